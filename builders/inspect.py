"""``kvdata sources --inspect PATH``: which kind reads each folder of a tree, before any build.

A release whose layout moved builds nothing, and the accounting only says so afterwards. :func:`inspect_tree`
walks a folder (or an archive: ``release.tar``, ``hip_opt.tar.gz``) and, for each folder a source kind would
read, says which kind, how many input records its listing finds, the file patterns and table keys it saw, and
what it misses. It lists and reads tables' first records only: no kernel is checked and no license matched.
"""
from __future__ import annotations

import fnmatch
import posixpath
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterator, Optional

from kvdata.builders.archive import is_archive_name
from kvdata.builders.base import open_fs
from kvdata.builders.locate import is_dir, is_file, subfolders
from kvdata.schema import Reject

#: How deep the walk goes below the named folder.
MAX_DEPTH = 7
_DIGIT = re.compile(r"\d")


@dataclass
class FolderReport:
    """What one folder of the tree is, for a source kind."""

    path: str                             # relative to the named folder ("." for itself)
    kind: Optional[str]                   # the source kind that reads it (None: none does)
    source: str                           # what to pass: --source KIND=SOURCE
    records: int                          # input records its listing finds
    patterns: dict[str, int] = field(default_factory=dict)   # file pattern -> files
    keys: list[str] = field(default_factory=list)            # keys of its tables' first records
    missing: list[str] = field(default_factory=list)         # what a build would miss or reject at listing
    note: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def inspect_tree(path: str, count: bool = True) -> list[FolderReport]:
    """One report per folder (or file) of ``path`` that a source kind reads, outermost first.

    ``path`` may be an archive: it is walked as a tree (``tar://``); a ``hip_opt`` archive alone is reported as
    what it is. ``count`` lists each folder with its kind to count records (off: patterns only)."""
    url = path
    if is_archive_name(path) and "://" not in path:
        if posixpath.basename(path.rstrip("/")).lower().startswith("hip_opt"):
            return [FolderReport(".", None, path, 0, {posixpath.basename(path): 1},
                                 note="a hip_opt archive: hip_gpumode reads it when it lies beside "
                                      "pytorch_code_module/ (name that folder, or the release root)")]
        url = f"tar://::{path}"
    fs, root = open_fs(url)
    root = root.rstrip("/")
    reports: list[FolderReport] = []
    for folder, depth in _walk(fs, root):
        reports.extend(_detect(fs, root, folder, url, count))
    return _merge_hip2hip(fs, root, url, reports, count)


def _walk(fs, root: str) -> Iterator[tuple[str, int]]:
    """Every folder at or below ``root`` (breadth first), not below a folder a kind claims."""
    frontier = [root]
    for depth in range(MAX_DEPTH + 1):
        deeper = []
        for folder in frontier:
            yield folder, depth
            if _claimed(fs, folder):
                continue
            deeper.extend(subfolders(fs, folder))
        frontier = deeper
        if not frontier:
            return


def _files(fs, folder: str) -> list[str]:
    try:
        entries = fs.ls(folder, detail=True)
    except (OSError, ValueError):
        return []
    return sorted(str(e["name"]) for e in entries if e.get("type") == "file")


def _claimed(fs, folder: str) -> bool:
    """Whether a kind reads ``folder`` as a whole (the walk does not go below it)."""
    from kvdata.builders.hip2hip import DEFAULT_RESULTS
    from kvdata.builders.hip_gpumode import is_gpumode_root
    from kvdata.builders.release_v02 import V02_KINDS

    if is_gpumode_root(fs, folder) or posixpath.basename(folder) in V02_KINDS:
        return True
    if is_dir(fs, posixpath.join(folder, "library", "include")):
        return True
    names = [posixpath.basename(f) for f in _files(fs, folder)]
    return any(fnmatch.fnmatch(n, pat) for n in names for pat in DEFAULT_RESULTS)


# ----------------------------------------------------------------- detectors
#: A table's kind from the keys of its first record: (keys it must have, kind), first match wins.
TABLE_SIGNATURES: tuple[tuple[frozenset, str], ...] = (
    (frozenset({"repo", "file", "output"}), "triton_github"),
    (frozenset({"python_code", "triton_code", "entry_point"}), "triton_kernelbook"),
    (frozenset({"task_name", "pytorch_code", "hip_code"}), "hip_cudaagent"),
    (frozenset({"pytorch_code", "kernel_code"}), "triton_table"),
)


def _detect(fs, root: str, folder: str, url: str, count: bool) -> list[FolderReport]:
    from kvdata.builders.hip2hip import DEFAULT_RESULTS
    from kvdata.builders.hip_gpumode import is_gpumode_root
    from kvdata.builders.release_v02 import V02_KINDS

    rel = _rel(folder, root)
    source = _source_path(url, root, folder)
    files = _files(fs, folder)
    names = [posixpath.basename(f) for f in files]
    if any(fnmatch.fnmatch(n, pat) for n in names for pat in DEFAULT_RESULTS):
        return [_report(fs, folder, rel, "hip2hip", source, count, _rejected_at_listing)]
    if is_gpumode_root(fs, folder):
        return [_report(fs, folder, rel, "hip_gpumode", source, count, _gpumode_missing)]
    if posixpath.basename(folder) in V02_KINDS:
        return [_report(fs, folder, rel, V02_KINDS[posixpath.basename(folder)], source, count, _rejected_at_listing)]
    if any(n.startswith("rl_data") and n.endswith(".json") for n in names):
        return [_report(fs, folder, rel, "hip_rl_data", source, count, _rejected_at_listing)]
    if any(n.endswith("_verl.parquet") for n in names):
        return [_report(fs, folder, rel, "hip_verl", source, count, _rejected_at_listing)]
    if is_dir(fs, posixpath.join(folder, "library", "include")):
        report = _report(fs, folder, rel, "qa_rocm", source, False, _rejected_at_listing)
        report.note = "a rocBLAS/rocSOLVER tree: its QA entries are mined at build time (not counted here)"
        return [report]
    if any(is_file(fs, posixpath.join(d, "reference.py")) for d in subfolders(fs, folder)):
        return [_report(fs, folder, rel, "triton_kernelbench", source, count, _rejected_at_listing)]
    return [r for r in (_table_report(fs, root, f, url, count) for f in files) if r is not None]


def _table_report(fs, root: str, path: str, url: str, count: bool) -> Optional[FolderReport]:
    """A table file no folder kind claims: its kind guessed from its first record's keys."""
    from kvdata.builders.tables import TABLE_SUFFIXES, iter_any_table

    if not path.lower().endswith(TABLE_SUFFIXES):
        return None
    keys: list[str] = []
    for _, row in iter_any_table(fs, path):
        if isinstance(row, dict):
            keys = sorted(map(str, row))
        break
    if not keys:
        return None
    kind = next((k for need, k in TABLE_SIGNATURES if need <= set(keys)), None)
    if kind is None and not any(w in k.lower() for k in keys for w in ("code", "kernel", "triton", "hip")):
        return None                   # a table of something else (expected verdicts, a task list)
    if kind == "hip_cudaagent":       # reads the *.jsonl of a folder
        path = posixpath.dirname(path)
    rel, source = _rel(path, root), _source_path(url, root, path)
    if kind is None:
        note = ("v0.2-style columns: name its folder, or use a v02_* kind" if "answer_code" in keys else
                "no kind matches these keys: triton_table with --option triton_table.columns='{...}' maps any")
        return FolderReport(rel, None, source, 0, {posixpath.basename(path): 1}, keys[:40], note=note)
    report = _report(fs, path, rel, kind, source, count, _rejected_at_listing)
    report.keys = report.keys or keys[:40]
    return report


def _report(fs, folder: str, rel: str, kind: str, source: str, count: bool,
            missing: Callable[..., list[str]]) -> FolderReport:
    from kvdata.builders import source_class

    report = FolderReport(rel, kind, source, 0, _patterns(fs, folder))
    if not count:
        return report
    try:
        units = list(source_class(kind)(source).read_units())
    except Exception as e:  # noqa: BLE001 - an inspection names the problem, never stops
        report.missing.append(f"listing failed: {e}")
        return report
    report.records = sum(1 for u in units if not _is_table_refusal(u))
    report.keys = _keys(units)
    report.missing.extend(missing(units, fs, folder))
    return report


def _is_table_refusal(unit) -> bool:
    return isinstance(unit, Reject) and "give --option" in (unit.message or "") and "no column for" in unit.message


def _rejected_at_listing(units: list, fs=None, folder: str = "") -> list[str]:
    """The rejects a listing already makes (a table refused, a tree problem), by message; at most ten."""
    rejects = [u for u in units if isinstance(u, Reject)]
    lines = [f"{u.ref}: {u.message}" if u.ref not in (u.message or "") else u.message for u in rejects[:10]]
    if len(rejects) > 10:
        lines.append(f"... {len(rejects) - 10} more")
    for unit in units:
        problem = getattr(unit, "root_problem", None)
        if problem:
            lines.append(problem)
            break
    return lines


def _gpumode_missing(units: list, fs=None, folder: str = "") -> list[str]:
    rejects = Counter(u.reason.value if hasattr(u.reason, "value") else str(u.reason)
                      for u in units if isinstance(u, Reject))
    orphans = sum(1 for u in units if getattr(u, "task", "x") is None)
    out = []
    if rejects.get("no_kernel"):
        out.append(f"{rejects['no_kernel']} task(s) with no HIP variant under hip_code/, hip_opt/ or a hip_opt archive")
    if orphans:
        out.append(f"{orphans} variant(s) whose task has no pytorch_code_module/py_<id>.py")
    for reason, n in rejects.items():
        if reason != "no_kernel":
            out.append(f"{n} record(s) rejected at listing: {reason}")
    if fs is not None:
        unread = Counter(posixpath.splitext(str(p))[1] or posixpath.basename(str(p))
                         for d in ("hip_opt", "hip_code") for p in _find(fs, posixpath.join(folder, d))
                         if not str(p).endswith((".hip", "/info.json")))
        if unread:
            out.append("files under hip_opt/ or hip_code/ that no kind reads: "
                       + ", ".join(f"{ext} ({n})" for ext, n in unread.most_common(5)))
    return out


def _find(fs, folder: str) -> list:
    try:
        return fs.find(folder)
    except (OSError, ValueError):
        return []


def _keys(units: list) -> list[str]:
    """The keys of the first decoded record of each table the units come from (at most 40)."""
    from kvdata.builders.tables import LineAt, json_row

    seen: dict[str, None] = {}
    tables: set = set()
    for unit in units:
        row = getattr(unit, "row", getattr(unit, "record", None))
        table = str(getattr(unit, "ref", "")).split("[", 1)[0].rsplit(":", 1)[0]
        if row is None or table in tables:
            continue
        if isinstance(row, LineAt):
            with open(row.path, "rb") as f:
                f.seek(row.offset)
                row = json_row(f.read(row.length).decode("utf-8", "replace"), table)
        elif isinstance(row, bytes):
            row = json_row(row.decode("utf-8", "replace"), table)
        if isinstance(row, dict):
            tables.add(table)
            seen.update(dict.fromkeys(map(str, row)))
    return list(seen)[:40]


def _patterns(fs, folder: str) -> dict[str, int]:
    """The files below ``folder`` as patterns (``hip_opt/<id>/*.hip``, ``pytorch_code_module/py_*.py``) with counts."""
    try:
        found = fs.find(folder)
    except (OSError, ValueError):
        return {}
    counts: Counter = Counter()
    for path in found:
        counts[_pattern(_rel(str(path), folder))] += 1
    return dict(counts.most_common(12))


def _pattern(rel: str) -> str:
    parts = rel.split("/")
    dirs = ["<id>" if _DIGIT.search(d) else d for d in parts[:-1]]
    name = parts[-1]
    if name in ("info.json", "LICENSE", "meta.json") or not _DIGIT.search(name):
        return "/".join(dirs + [name])
    stem, dot, ext = name.partition(".")
    prefix = next((p for p in ("py_", "hip_") if stem.startswith(p)), "")
    suffix = next((s for s in ("_func", "_hip") if stem.endswith(s)), "")
    gen = "_gen*" if re.search(r"_gen\d+$", stem) else ""
    return "/".join(dirs + [f"{prefix}*{gen}{suffix}{dot}{ext}"])


def _merge_hip2hip(fs, root: str, url: str, reports: list[FolderReport], count: bool) -> list[FolderReport]:
    """The kit's per-run result folders (``comparison/``, ``origin_eval/``, ``optimized_eval/``) as one hip2hip
    report at the run's folder, the one to name (the Source reads the comparison and not the sides again, and
    finds the run's HIP files from there); a run whose tree holds no ``pytorch_code_module/`` says so."""
    from kvdata.builders.hip2hip import KIT_SIDES

    runs: dict[str, list[FolderReport]] = {}
    out: list[FolderReport] = []
    for r in reports:
        if r.kind != "hip2hip":
            out.append(r)
            continue
        folder = root if r.path == "." else f"{root}/{r.path}" if root else r.path
        run = posixpath.dirname(folder) if posixpath.basename(folder) in (*KIT_SIDES, "comparison") else folder
        runs.setdefault(run, []).append(r)
    for run, group in runs.items():
        if len(group) == 1 and _rel(run, root) == group[0].path:
            merged = group[0]
        else:
            merged = _report(fs, run, _rel(run, root), "hip2hip", _source_path(url, root, run), count,
                             _rejected_at_listing)
            merged.note = "results in " + ", ".join(r.path for r in group)
        if not _has_folder(fs, run, "pytorch_code_module"):
            where = [r.source for r in out if r.kind == "hip_gpumode"]
            merged.missing.append("no pytorch_code_module/ in this tree: give --option hip2hip.pytorch_root=FOLDER"
                                  + (f" (e.g. {where[0]})" if where else ""))
        out.append(merged)
    return out


def _has_folder(fs, folder: str, name: str) -> bool:
    try:
        return any(posixpath.basename(str(p).rstrip("/")) == name
                   for p in fs.find(folder, withdirs=True, maxdepth=MAX_DEPTH))
    except (OSError, ValueError, TypeError):
        return False


def _rel(path: str, root: str) -> str:
    path, root = str(path).rstrip("/"), root.rstrip("/")
    if path == root:
        return "."
    return path[len(root) + 1:] if path.startswith(root + "/") else path


def _source_path(url: str, root: str, folder: str) -> str:
    """The ``--source`` path of ``folder``: a local path, or the archive URL with the folder inside it."""
    if url.startswith("tar://::"):
        return f"tar://{_rel(folder, root) if folder != root else ''}::{url[len('tar://::'):]}"
    if "://" in url and folder.startswith(root):
        return url.rstrip("/") + folder[len(root):]
    return folder
