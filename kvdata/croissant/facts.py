"""What a built folder or an export holds, read from its files: the facts ``croissant.json`` states (see the
package docstring). Nothing here knows the Croissant vocabulary; :mod:`kvdata.croissant.jsonld` renders it."""
from __future__ import annotations

import datetime
import hashlib
import json
import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

log = logging.getLogger(__name__)


CROISSANT_FILE = "croissant.json"
CROISSANT_1_1 = "http://mlcommons.org/croissant/1.1"
RAI_1_0 = "http://mlcommons.org/croissant/RAI/1.0"
PROV = "http://www.w3.org/ns/prov#"
PARQUET = "application/x-parquet"
JSON_MIME = "application/json"
HUB_DATASETS = "https://huggingface.co/datasets/"
SPDX_PAGE = "https://spdx.org/licenses/{}.html"
#: Where a built folder keeps the overlap audit this file reports (``kvdata audit-overlap --out DIR/audit``).
AUDIT_SUBDIR = "audit"
#: Columns whose meaning the record sets spell out (the RAI-relevant ones).
COLUMN_NOTES = {
    "id": "Content hash of the row, stable across rebuilds and unique in the corpus.",
    "license": "SPDX license expression of the row's code or text.",
    "license_source": "Where the license came from: file (the row's own header), declared, or tree (the tree's "
                      "LICENSE file).",
    "license_relied_on": "For an OR expression, the alternative the build's allow-list accepted.",
    "provenance": "Where the row came from: upstream repo, path, commit, pipeline, generator, retrieval date.",
    "verification": "What an execution check recorded (null: never verified): hardware, toolchain, correct, "
                    "tolerances, times and speedup.",
}



# ----------------------------------------------------------------- what the folder holds
@dataclass(frozen=True)
class FileEntry:
    """One file the metadata names: its path relative to the folder, sha256, size in bytes and MIME type."""

    path: str
    sha256: str
    size: int
    encoding: str
    description: str = ""


@dataclass(frozen=True)
class Table:
    """One record set: a config of a build or an export's examples, read from the shards ``include`` matches.

    ``schema`` is the parquet files' own Arrow schema, so the fields say what the files hold."""

    name: str
    description: str
    include: str
    files: tuple[FileEntry, ...]
    schema: Any
    rows: int
    key: Optional[str] = None            # the column that identifies a row
    split_regex: Optional[str] = None    # exports: one group, the split, out of a file's relative path


@dataclass(frozen=True)
class Licenses:
    """The rows' license expressions (expression -> rows), the SPDX ids they name, and rows without one."""

    rows: dict[str, int]
    ids: tuple[str, ...]
    unknown_rows: int = 0


@dataclass(frozen=True)
class VerificationState:
    """How many of ``rows`` carry an execution verification, and what it says.

    ``reverify``: an export filtered with ``--verified``, the results file that marked every row it kept."""

    rows: int
    verified: int
    correct: int
    incorrect: int
    hardware: dict[str, int]
    tools: tuple[str, ...]
    reverify: Optional[str] = None
    unknown: bool = False                # an export of a Hub corpus: its rows' verification was not looked up


@dataclass(frozen=True)
class Contamination:
    """What an ``audit-overlap`` report found: benchmark items and training rows flagged, and by which measure."""

    audit: str                           # the audit.json, relative to the folder
    benchmarks: tuple[str, ...]
    bench_items: int
    train_rows: int
    flagged_train: int
    flagged_bench: int
    measures: tuple[str, ...]
    flagged_by_measure: dict[str, int]
    dropped: Optional[int] = None        # an export: the rows it dropped as benchmark overlap


@dataclass(frozen=True)
class Origin:
    """One upstream input of a build, as ``accounting.json`` records it."""

    name: str
    kind: str
    repo: Optional[str]
    commit: Optional[str]
    license: Optional[str]
    input: int
    kept: int
    rejected: int
    duplicates: int


@dataclass(frozen=True)
class Provenance:
    """Where the rows came from and what was done to them."""

    origins: tuple[Origin, ...] = ()
    repos: dict[str, int] = field(default_factory=dict)        # provenance.repo -> rows
    pipelines: dict[str, int] = field(default_factory=dict)
    generators: dict[str, int] = field(default_factory=dict)
    steps: tuple[str, ...] = ()                                # preprocessing, in order
    derived_from: Optional[str] = None                         # an export: the corpus (Hub page or relative path)
    used: tuple[str, ...] = ()                                 # an export: audit / reverify files it read
    command: str = ""                                          # "kvdata build", "kvdata export ..."


@dataclass(frozen=True)
class FolderDescription:
    """Everything ``croissant.json`` says about a folder, gathered before any JSON-LD is made."""

    kind: str                            # "build" | "export"
    name: str
    description: str
    url: str
    tables: tuple[Table, ...]
    files: tuple[FileEntry, ...]         # other files: accounting.json, rejects.parquet, ...
    licenses: Licenses
    verification: VerificationState
    contamination: Optional[Contamination]
    provenance: Provenance
    created: datetime.datetime
    composition: dict[str, int] = field(default_factory=dict)   # rows per config (a build) or split (an export)
    keywords: tuple[str, ...] = ()
    version: Optional[str] = None


# ----------------------------------------------------------------- reading a folder
def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_entry(folder: Path, path: Path, encoding: str, description: str = "") -> FileEntry:
    """A file of ``folder`` hashed, named by its POSIX path relative to the folder."""
    return FileEntry(path.relative_to(folder).as_posix(), _sha256(path), path.stat().st_size, encoding, description)


def dataset_url(repo_id: Optional[str]) -> str:
    """The Hub page of ``repo_id``, or ``.`` (the folder the file sits in) when none is known."""
    if repo_id:
        from kvdata.hub import validate_repo_id

        return HUB_DATASETS + validate_repo_id(repo_id)
    return "."


#: How many ``..`` a relative path may climb before only the target's name is written (deeper, the path would
#: spell out the machine's folders: ``../../../home/alice/corpus``).
MAX_CLIMB = 2


def _relative(target: str | Path, folder: Path) -> str:
    """``target`` (a local path) as the file names it: relative to ``folder`` (what a reader of the file can follow),
    or by its name alone when that path would climb more than :data:`MAX_CLIMB` folders."""
    rel = Path(os.path.relpath(Path(target).resolve(), folder.resolve()))
    if rel.parts[:MAX_CLIMB + 1].count("..") > MAX_CLIMB:
        return Path(target).resolve().name
    return rel.as_posix()


def _counts(column) -> dict[str, int]:
    """Value -> rows of an Arrow column (nulls left out), largest first."""
    import pyarrow.compute as pc

    pairs = pc.value_counts(column.drop_null()).to_pylist() if len(column) else []
    return dict(sorted(((p["values"], p["counts"]) for p in pairs), key=lambda kv: (-kv[1], str(kv[0]))))


def _merge(counts: Sequence[dict[str, int]]) -> dict[str, int]:
    total: Counter = Counter()
    for c in counts:
        total.update(c)
    return dict(sorted(total.items(), key=lambda kv: (-kv[1], str(kv[0]))))


def licenses_of(expressions: dict[str, int], unknown_rows: int = 0) -> Licenses:
    """The SPDX ids named by the expressions (``license-expression`` parses them); an expression that does not
    parse is kept whole, so that no license goes unlisted."""
    from kvdata.licenses.expressions import LicenseExpressionError, license_ids

    ids: set[str] = set()
    for expression in expressions:
        try:
            ids.update(license_ids(expression))
        except LicenseExpressionError:
            ids.add(expression)
    return Licenses(dict(expressions), tuple(sorted(ids)), unknown_rows)


def verification_of(column) -> VerificationState:
    """The verification state of a ``verification`` column (an Arrow struct array; null: never verified)."""
    import pyarrow.compute as pc

    present = column.drop_null()
    if not len(present):
        return VerificationState(len(column), 0, 0, 0, {}, ())
    correct = present.field("correct")
    hardware = _counts(present.field("hardware"))
    if len(present) - sum(hardware.values()):
        hardware["(not recorded)"] = len(present) - sum(hardware.values())
    names = {f.name for f in present.type}
    tools: set[str] = set()
    for name, label in (("compiler", ""), ("rocm_version", "ROCm "), ("torch_version", "torch "),
                        ("triton_version", "triton ")):
        if name in names:
            tools.update(f"{label}{v}" for v in _counts(present.field(name)))
    return VerificationState(len(column), len(present), int(pc.sum(pc.equal(correct, True)).as_py() or 0),
                             int(pc.sum(pc.equal(correct, False)).as_py() or 0), hardware, tuple(sorted(tools)))


def combined(rows: int, parts: Sequence[VerificationState], reverify: Optional[str] = None,
             unknown: bool = False) -> VerificationState:
    """The verification state of ``rows`` rows of which ``parts`` (e.g. the configs that have the column) are
    described; the other rows carry none."""
    return VerificationState(rows, sum(p.verified for p in parts), sum(p.correct for p in parts),
                             sum(p.incorrect for p in parts), _merge([p.hardware for p in parts]),
                             tuple(sorted({t for p in parts for t in p.tools})), reverify, unknown)


def read_audit(audit_dir: Path, folder: Path, dropped: Optional[int] = None) -> Optional[Contamination]:
    """The contamination an ``audit-overlap`` output folder reports (its ``audit.json``, and the benchmarks named in
    its ``summary.parquet``), or None when ``audit_dir`` holds none."""
    path = audit_dir / "audit.json"
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    benchmarks: tuple[str, ...] = ()
    if (audit_dir / "summary.parquet").is_file():
        import pyarrow.parquet as pq

        try:
            benchmarks = tuple(sorted(_counts(pq.read_table(audit_dir / "summary.parquet",
                                                            columns=["benchmark"]).column("benchmark"))))
        except Exception as exc:  # noqa: BLE001 - an unreadable summary costs the benchmark names only
            log.warning("%s: benchmark names not read: %s", audit_dir / "summary.parquet", exc)
    return Contamination(
        audit=_relative(path, folder), benchmarks=benchmarks, bench_items=int(summary.get("n_bench", 0)),
        train_rows=int(summary.get("n_train", 0)), flagged_train=int(summary.get("n_flagged_train", 0)),
        flagged_bench=int(summary.get("n_flagged_bench", 0)), measures=tuple(summary.get("measures_run", ())),
        flagged_by_measure={k: int(v) for k, v in (summary.get("flagged_by_measure") or {}).items() if v},
        dropped=dropped)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def describe_build(folder: str | Path, repo_id: Optional[str] = None, audit: Optional[str | Path] = None,
                   version: Optional[str] = None) -> FolderDescription:
    """What a built folder holds: its configs' shards and schemas, the rows' licenses, provenance and
    verification, ``accounting.json``'s sources, and the overlap audit in ``audit`` (default: the folder's
    ``audit/``, when it has one)."""
    import pyarrow.parquet as pq

    from kvdata import __version__
    from kvdata.hub import built_configs, shard_files
    from kvdata.ledger import read_accounting

    folder = Path(folder)
    tables, licenses, repos, pipelines, generators, verification = [], [], [], [], [], []
    total = 0
    for config in built_configs(folder):
        shards = shard_files(folder, config)
        entries = tuple(file_entry(folder, s, PARQUET) for s in shards)
        schema = pq.read_schema(shards[0])
        columns = [c for c in ("license", "provenance", "verification") if c in schema.names]
        table = pq.read_table(shards, columns=columns)
        total += table.num_rows
        licenses.append(_counts(table.column("license")))
        if "provenance" in columns:
            prov = table.column("provenance").combine_chunks()
            repos.append(_counts(prov.field("repo")))
            pipelines.append(_counts(prov.field("pipeline")))
            generators.append(_counts(prov.field("generator")))
        if "verification" in columns:
            verification.append(verification_of(table.column("verification").combine_chunks()))
        tables.append(Table(config, f"The {config} config: {table.num_rows} rows.",
                            f"data/{config}/*.parquet", entries, schema, table.num_rows,
                            key="id" if "id" in schema.names else None))
    accounting = read_accounting(folder)
    origins = tuple(Origin(name, acc.get("kind", name), (acc.get("origin") or {}).get("repo"),
                           (acc.get("origin") or {}).get("commit"), (acc.get("origin") or {}).get("license"),
                           int(acc.get("input", 0)), int(acc.get("kept", 0)), int(acc.get("rejected_total", 0)),
                           int(acc.get("duplicates_total", 0)))
                    for name, acc in accounting.get("sources", {}).items())
    files = tuple(file_entry(folder, folder / name, mime, note) for name, mime, note in (
        ("accounting.json", JSON_MIME, "Per-source accounting: every input record kept, rejected by reason, or "
                                       "removed as a duplicate."),
        ("rejects.parquet", PARQUET, "Every rejected input record and its reason code."))
        if (folder / name).is_file())
    audit_dir = Path(audit) if audit is not None else folder / AUDIT_SUBDIR
    contamination = read_audit(audit_dir, folder)
    if contamination is not None and _inside(audit_dir / "audit.json", folder):
        files += (file_entry(folder, audit_dir / "audit.json", JSON_MIME, "The overlap audit's summary."),)
    settings = accounting.get("settings", {}) or {}
    steps = _build_steps(settings)
    totals = accounting.get("totals", {})
    names = ", ".join(f"{t.name} ({t.rows})" for t in tables)
    description = (f"AMDKernelVault: AMD GPU kernels (HIP and Triton) with PyTorch references, execution-verified "
                   f"where a row's verification says so, plus QA mined from rocBLAS/rocSOLVER. {total} rows in "
                   f"{len(tables)} configs: {names}. Built by kvdata {__version__} from {len(origins)} sources "
                   f"({totals.get('input', '?')} input records: {totals.get('kept', '?')} kept, "
                   f"{totals.get('rejected', '?')} rejected, {totals.get('duplicates', '?')} duplicates).")
    return FolderDescription(
        kind="build", name="AMDKernelVault", description=description, url=dataset_url(repo_id),
        tables=tuple(tables), files=files, licenses=licenses_of(_merge(licenses)),
        verification=combined(total, verification), contamination=contamination,
        provenance=Provenance(origins, _merge(repos), _merge(pipelines), _merge(generators), steps,
                              command="kvdata build"),
        created=_now(), composition={t.name: t.rows for t in tables},
        keywords=("code", "gpu-kernels", "hip", "rocm", "triton", "amd", "pytorch", "kernelbench"),
        version=version)


def _inside(path: Path, folder: Path) -> bool:
    return folder.resolve() in path.resolve().parents


def _build_steps(settings: dict) -> tuple[str, ...]:
    """The build's preprocessing, in the order it runs, with the settings ``accounting.json`` recorded."""
    allow = settings.get("allow_license") or []
    steps = ["Each source's reader turns one upstream layout into rows or rejects with a reason code "
             "(unparsable, missing files or fields, empty code, no reference model or kernel, failed upstream "
             "evaluation).",
             "Row checks: code that parses, a PyTorch reference with Model and get_inputs, a kernel.",
             "License: an SPDX expression per row from its own header, the declared license or the tree's LICENSE "
             "(ScanCode); rows outside the allow-list are rejected"
             + (f" (allow-list: {', '.join(allow)})." if allow else ".")]
    if settings.get("dedup", True):
        steps.append("Deduplication: exact duplicates of normalised code, then MinHash/LSH near duplicates"
                     + (f" at Jaccard >= {settings['near_dup_threshold']}" if "near_dup_threshold" in settings
                        else "")
                     + "; the verified-correct, then faster, then lowest-id row of a cluster is kept.")
    else:
        steps.append("No deduplication (--no-dedup).")
    return tuple(steps)


def _corpus_index(corpus: Path) -> dict[str, tuple[Optional[str], Any]]:
    """Corpus row id -> (license, verification record) of a local built folder."""
    import pyarrow.parquet as pq

    from kvdata.hub import built_configs, shard_files

    index: dict[str, tuple[Optional[str], Any]] = {}
    for config in built_configs(corpus):
        shards = shard_files(corpus, config)
        names = pq.read_schema(shards[0]).names
        columns = [c for c in ("id", "license", "verification") if c in names]
        table = pq.read_table(shards, columns=columns)
        ids, lic = table.column("id").to_pylist(), table.column("license").to_pylist()
        ver = table.column("verification").to_pylist() if "verification" in columns else [None] * len(ids)
        index.update(zip(ids, zip(lic, ver)))
    return index


def _column_path(table, path: Sequence[str]):
    column = table.column(path[0]).combine_chunks()
    for name in path[1:]:
        column = column.field(name)
    return column


def describe_export(folder: str | Path, corpus: Optional[str | Path] = None, id_field: Sequence[str] = ("id",),
                    audit: Optional[str | Path] = None, verified: Optional[str | Path] = None,
                    repo_id: Optional[str] = None, version: Optional[str] = None) -> FolderDescription:
    """What an export folder holds: its split files and schema; from its ``accounting.json`` the task, format,
    filters and drops; from ``corpus`` (the ``--data`` it read: a built folder, whose rows give the licenses and
    verification of the rows kept, or a Hub id) its provenance; from ``audit`` (the ``--audit`` folder, or its
    ``pairs.parquet``) the contamination it removed; ``verified``: the ``--verified`` results.

    ``id_field``: where a row keeps its corpus id (a column, or a struct's field: ``("extra_info", "id")``; a
    DPO pair: its chosen side). Without ``corpus``/``audit``/``verified``, the paths ``accounting.json`` names are
    tried (they resolve when the export ran from the current folder)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kvdata import __version__

    folder = Path(folder)
    accounting = json.loads((folder / "accounting.json").read_text(encoding="utf-8"))
    sources = accounting.get("sources", {})
    shards = sorted((folder / "data").glob("*-00000-of-00001.parquet"))
    if not shards:
        raise FileNotFoundError(f"{folder}: no data/<split>-00000-of-00001.parquet (not an export)")
    entries = tuple(file_entry(folder, s, PARQUET) for s in shards)
    schema = pq.read_schema(shards[0])
    table = pq.read_table(shards, columns=[c for c in (id_field[0], "license") if c in schema.names])
    rows = table.num_rows
    splits = ", ".join(f"{s} {n}" for s, n in accounting.get("exported", {}).items())
    unit = "preference pairs" if accounting.get("format") == "dpo" else "examples"
    tables = (Table("default", f"The exported {unit} ({splits}); the split is the file's name.", "data/*.parquet",
                    entries, schema, rows, key=None,
                    split_regex=r"^data/(train|validation|test)-\d+-of-\d+\.parquet$"),)

    data = str(corpus if corpus is not None else sources.get("data", ""))
    local = bool(data) and Path(data).is_dir()
    index = _corpus_index(Path(data)) if local else {}
    ids = [str(i) if i is not None else None for i in _column_path(table, id_field).to_pylist()]
    if "license" in schema.names:
        lic_column = table.column("license")
        licenses = licenses_of(_counts(lic_column), lic_column.null_count)
    elif local:
        found = [index[i][0] for i in ids if i in index and index[i][0]]
        licenses = licenses_of(dict(Counter(found)), rows - len(found))
    else:
        licenses = Licenses({}, (), rows)
    parts = []
    if local:
        parts.append(verification_of(pa.array([index.get(i, (None, None))[1] for i in ids],
                                                   type=_verification_type())))
    verified = verified if verified is not None else sources.get("verified")
    verified_ref = (_relative(verified, folder) if Path(verified).exists() else Path(str(verified)).name) \
        if verified else None
    verification = combined(rows, parts, verified_ref, unknown=not local)

    used, files = [], []
    contamination = None
    audit = audit if audit is not None else sources.get("audit")
    if audit:
        audit_dir = Path(audit) if Path(audit).is_dir() else Path(audit).parent
        contamination = read_audit(audit_dir, folder, accounting.get("dropped", {}).get("benchmark_overlap", 0))
        used.append(_relative(audit_dir, folder) if audit_dir.is_dir() else audit_dir.name)
    if verified_ref:
        used.append(verified_ref)
    for name, mime, note in (("accounting.json", JSON_MIME, "Input rows = exported + dropped by reason."),
                             ("dataset_info.json", JSON_MIME, "LLaMA-Factory's dataset entries.")):
        if (folder / name).is_file():
            files.append(file_entry(folder, folder / name, mime, note))
    derived = _corpus_ref(data, folder) if data else None
    task, fmt = accounting.get("task", "?"), accounting.get("format", "?")
    dropped = accounting.get("dropped", {})
    description = (f"The {task} task of AMDKernelVault as {fmt} rows, exported by kvdata {__version__} from the "
                   f"configs {sources.get('configs', '?')}: {accounting.get('input_rows', '?')} input rows made "
                   f"{accounting.get('examples', '?')} examples; {rows} {unit} written ({splits}), split by task "
                   f"group ({accounting.get('groups', '?')} groups, none on two sides).")
    return FolderDescription(
        kind="export", name=f"AMDKernelVault {task} ({fmt})", description=description,
        url=dataset_url(repo_id), tables=tables, files=tuple(files), licenses=licenses, verification=verification,
        contamination=contamination,
        provenance=Provenance(steps=_export_steps(sources, dropped), derived_from=derived, used=tuple(used),
                              command=f"kvdata export --task {task} --format {fmt}"),
        created=_now(), composition={str(k): int(v) for k, v in accounting.get("exported", {}).items()},
        keywords=("code", "gpu-kernels", "hip", "rocm", "triton", "amd", task, fmt),
        version=version)


def _corpus_ref(data: str, folder: Path) -> str:
    """The corpus an export came from as the file names it: a local folder relative to the export, a Hub id as
    its page (a value that is neither, e.g. a folder since removed, by its last path part only)."""
    if Path(data).exists():
        return _relative(data, folder)
    try:
        return dataset_url(data)
    except ValueError:
        return Path(data).name


def _verification_type():
    from kvdata.schema import VERIFICATION_TYPE

    return VERIFICATION_TYPE


def _export_steps(sources: dict, dropped: dict[str, int]) -> tuple[str, ...]:
    """An export's filters and drops, as its accounting recorded them."""
    steps = ["Rows that cannot make an example of the task (no reference, no kernel, ...) are dropped."]
    for option, what in (("license", "only rows whose SPDX expression the allow-list admits"),
                         ("audit", "rows the overlap audit flagged are dropped"),
                         ("verified", "only rows kvdata reverify marked correct"),
                         ("min-speedup", "only rows at least this much faster"),
                         ("keep-splits", "rows keep the split an earlier export gave them")):
        if option in sources:
            value = sources[option]
            shown = value if option in ("license", "min-speedup") else Path(str(value)).name
            steps.append(f"--{option} {shown}: {what}.")
    if dropped:
        steps.append("Dropped rows by reason: " + ", ".join(f"{k} {v}" for k, v in sorted(dropped.items())) + ".")
    steps.append("Split by task group (same task name or normalised PyTorch reference): no task on two sides.")
    return tuple(steps)
