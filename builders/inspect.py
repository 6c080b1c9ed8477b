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
from kvdata.schema import Reject

#: How deep the walk goes below the named folder.
MAX_DEPTH = 7
_DIGIT = re.compile(r"\d")
_SKIP = frozenset({".git", "__pycache__", ".cache", "node_modules"})


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
        report = _detect(fs, root, folder, url, count)
        if report is not None:
            reports.append(report)
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
            deeper.extend(_subfolders(fs, folder))
        frontier = deeper
        if not frontier:
            return


def _subfolders(fs, folder: str) -> list[str]:
    try:
        entries = fs.ls(folder, detail=True)
    except (OSError, ValueError):
        return []
    return sorted(str(e["name"]).rstrip("/") for e in entries
                  if e.get("type") == "directory" and posixpath.basename(str(e["name"]).rstrip("/")) not in _SKIP)


def _files(fs, folder: str) -> list[str]:
    try:
        entries = fs.ls(folder, detail=True)
    except (OSError, ValueError):
        return []
    return sorted(str(e["name"]) for e in entries if e.get("type") == "file")


def _claimed(fs, folder: str) -> bool:
    from kvdata.builders.hip_gpumode import is_gpumode_root
    from kvdata.builders.release_v02 import V02_KINDS

    return is_gpumode_root(fs, folder) or posixpath.basename(folder) in V02_KINDS


# ----------------------------------------------------------------- detectors
def _detect(fs, root: str, folder: str, url: str, count: bool) -> Optional[FolderReport]:
    from kvdata.builders.hip2hip import DEFAULT_RESULTS
    from kvdata.builders.hip_gpumode import is_gpumode_root
    from kvdata.builders.release_v02 import V02_KINDS

    rel = _rel(folder, root)
    source = _source_path(url, root, folder)
    if is_gpumode_root(fs, folder):
        return _report(fs, folder, rel, "hip_gpumode", source, count, _gpumode_missing)
    if posixpath.basename(folder) in V02_KINDS:
        return _report(fs, folder, rel, V02_KINDS[posixpath.basename(folder)], source, count, _rejected_at_listing)
    names = [posixpath.basename(f) for f in _files(fs, folder)]
    if any(fnmatch.fnmatch(n, pat) for n in names for pat in DEFAULT_RESULTS):
        return _report(fs, folder, rel, "hip2hip", source, count, _rejected_at_listing)
    if any(n.startswith("rl_data") and n.endswith(".json") for n in names):
        return _report(fs, folder, rel, "hip_rl_data", source, count, _rejected_at_listing)
    if any(n.endswith("_verl.parquet") for n in names):
        return _report(fs, folder, rel, "hip_verl", source, count, _rejected_at_listing)
    return None


def _report(fs, folder: str, rel: str, kind: str, source: str, count: bool,
            missing: Callable[[list], list[str]]) -> FolderReport:
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
    report.missing.extend(missing(units))
    return report


def _is_table_refusal(unit) -> bool:
    return isinstance(unit, Reject) and "give --option" in (unit.message or "") and "no column for" in unit.message


def _rejected_at_listing(units: list) -> list[str]:
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


def _gpumode_missing(units: list) -> list[str]:
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
    return out


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
