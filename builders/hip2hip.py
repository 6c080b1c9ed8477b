"""HIP2HIP: a baseline HIP extension and an optimised rewrite, with measured times.

Two kinds of result file are read, told apart by their rows, not their names (docs/notes/layouts.md):

* **kvdata's JSONL** (``eval_results*.jsonl``, one record a line): ``hip_file, base_name, gen_idx,
  compile_ok, run_ok, match_ok, pytorch_time_ms, hip_time_ms, speedup, error_message``, where
  ``pytorch_time_ms`` is the PyTorch reference's time.
* **AMD's evaluation kit** (hip_kernel_llm_lab ``HIP_benchmark_kit``), indented JSON arrays:
  ``baseline_hip_results.json`` (one row per kernel: the fields above plus ``artifact_side`` and
  ``eval_backend``) and ``comparison/origin_vs_optimized_results.json`` (one row per pair: ``base_name,
  gen_idx, origin_hip_file, optimized_hip_file, origin_*_ok, optimized_*_ok, origin_hip_time_ms,
  optimized_hip_time_ms, speedup, pair_ok, compare_error``). In the kit, ``pytorch_time_ms`` is the
  *reference HIP kernel's* time (``reference_perf_ms``) and every speedup is over that kernel: kvdata records
  it as ``verification.baseline_ms`` with ``speedup_over = "baseline_kernel"``, never as a PyTorch time.
  Where a run holds a comparison file, its ``origin_eval/`` and ``optimized_eval/`` row files are not read
  again (the comparison joins them). A row of the baseline's own evaluation (``artifact_side: origin``) is
  rejected ``baseline_only``: it is not a rewrite.

Files a row names are looked for where each layout keeps them::

    <root>/<hip_file>  or <root>/generated/<hip_file>      the rewrite (kvdata's JSONL)
    <root>/reference/<base_name>.hip                        the baseline (kvdata's JSONL)
    any <name>.hip of the tree, by base name                the kit's bare names: a copy under
                                                            optimized/ or generated/ for the rewrite, under
                                                            origin/, reference/ or hip_code/ for the baseline,
                                                            the one nearest the result file first
    pytorch_code_module/<base>.py, py_<id>.py               the PyTorch reference (the kit: hip_ -> py_);
    pytorch_code_functional/<same name>, py_<id>_func.py    in the tree, or under the ``pytorch_root`` option
    <root>/meta.json                                        optional: hardware, arch, rocm_version, torch_version

One input record is one JSONL line or one array element (read by :mod:`kvdata.builders.eval_records`). A record
is kept only when the rewrite compiled,
ran, matched and is faster (``speedup > 1``); otherwise the first failed stage names the reject
(``compile_failed``, ``run_failed``, ``mismatch``, ``not_faster``). The status is checked before any file is
read, so failed generations cost nothing.
"""
from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from typing import Any, Iterator, Optional

from kvdata.builders.base import Item, UnitSource, open_fs
from kvdata.builders.common import check_hip_extension, check_reference, is_problem, read_text
from kvdata.builders.common import COMMON_OPTIONS, make_provenance, read_functional, relative, within
from kvdata.builders.hip_gpumode import FUNCTIONAL_DIR, MODULE_DIR
from kvdata.builders.eval_records import EvalPair, read_pair
from kvdata.builders.locate import is_dir, is_file
from kvdata.builders.tables import LineAt, iter_json_array, iter_jsonl, json_object, json_row
from kvdata.builders.tree_index import FileIndex
from kvdata.schema import KernelRecord, Reject, RejectReason, Verification

REFERENCE_DIR = "reference"
GENERATED_DIR = "generated"
#: The result files read by default, by base name pattern (searched through the whole tree).
DEFAULT_RESULTS = ("eval_results*.jsonl", "baseline_hip_results.json", "origin_vs_optimized_results.json")
KIT_COMPARISON = "origin_vs_optimized_results.json"
KIT_SIDES = ("origin_eval", "optimized_eval")
META_FILE = "meta.json"
_META_KEYS = ("hardware", "arch", "rocm_version", "torch_version", "compiler")
#: Folders where the kit keeps each side's files, heaviest first.
_CANDIDATE_DIRS = ("optimized", "generated", "staging")
_BASELINE_DIRS = ("origin", REFERENCE_DIR, "hip_code", "staging")


# ----------------------------------------------------------------- the Source
@dataclass
class ResultUnit:
    """One evaluation record: where it is, and the record (or its located JSONL line)."""

    ref: str
    result_file: str                    # relative to the root
    row: Any                            # a dict, a problem, or a located JSONL line
    tree: Any
    meta: dict


class Hip2HipSource(UnitSource):
    """Baseline HIP -> optimised HIP pairs from evaluation records (kvdata's JSONL, AMD's eval kit arrays).

    Options: ``results`` (a base-name pattern or a list of them, searched through the tree; default
    ``eval_results*.jsonl``, ``baseline_hip_results.json``, ``origin_vs_optimized_results.json``),
    ``pytorch_root`` (a folder holding ``pytorch_code_module/`` and ``pytorch_code_functional/``, when the
    references are not in the tree), ``license``, ``allow``, ``repo``, ``commit``, ``path_prefix``,
    ``generator``, ``hardware``/``arch``/``rocm_version``/``torch_version`` (override ``meta.json``), ``name``.
    """

    kind = "hip2hip"
    config = "hip2hip"
    pipeline = "hip2hip"
    description = "HIP2HIP: baseline and optimised HIP with speedups (kvdata JSONL, AMD eval-kit JSON arrays)"
    options_known = COMMON_OPTIONS | {"results", "pytorch_root", "rocm_version", "torch_version", "compiler"}

    def read_units(self) -> Iterator[object]:
        """A Reject for a file-level problem, else one :class:`ResultUnit` per record of a result file."""
        fs, root = self.tree()
        result_files = self._result_files(fs, root)
        if not result_files:
            yield self.reject(self.path, RejectReason.MISSING_FILE,
                              f"no result file ({', '.join(self._patterns())}) under {self.path}")
            return
        license_ = self.tree_license(fs, root)
        self.revision()
        meta = self._meta(fs, root)
        for path in result_files:
            name = relative(path, root)
            rows = iter_jsonl(fs, path, locate=True) if path.lower().endswith(".jsonl") else iter_json_array(fs, path)
            for ref, row in rows:
                yield ResultUnit(relative(ref, root) if ref.startswith(root) else ref, name, row, license_, meta)

    def _patterns(self) -> tuple[str, ...]:
        value = self.option("results", DEFAULT_RESULTS)
        return (value,) if isinstance(value, str) else tuple(str(v) for v in value)

    def _result_files(self, fs, root: str) -> list[str]:
        """The result files under ``root`` whose base name matches a pattern, less the kit's per-side files of a
        run whose comparison file is read."""
        import fnmatch

        if not is_dir(fs, root):
            return [root] if is_file(fs, root) else []
        patterns = self._patterns()
        try:
            found = sorted(str(p) for p in fs.find(root))
        except (OSError, ValueError):
            return []
        files = [p for p in found if any(fnmatch.fnmatch(posixpath.basename(p), pat) or
                                         fnmatch.fnmatch(relative(p, root), pat) for pat in patterns)]
        compared = {posixpath.dirname(posixpath.dirname(p)) for p in files if posixpath.basename(p) == KIT_COMPARISON}
        return [p for p in files if not (posixpath.basename(posixpath.dirname(p)) in KIT_SIDES
                                         and posixpath.dirname(posixpath.dirname(p)) in compared)]

    def unit_to_item(self, unit) -> Item:
        if isinstance(unit, Reject):
            return unit
        fs, root = self.tree()
        row = unit.row
        if isinstance(row, (LineAt, bytes)):
            row = json_row(self.line_files().text(row, unit.ref), unit.ref)
        return self._pair(fs, root, unit, row, self.per_process("task_files", dict))

    # ------------------------------------------------------------- one evaluation record
    def _pair(self, fs, root, unit: ResultUnit, record, cache) -> Item:
        ref = unit.ref
        if is_problem(record):
            return self.reject(ref, *record)
        if not isinstance(record, dict):
            return self.reject(ref, RejectReason.BAD_JSON, f"{ref}: a {type(record).__name__}, not an object")
        pair = read_pair(record)
        if is_problem(pair):
            return self.reject(ref, *pair)
        if pair.problem:
            return self.reject(ref, *pair.problem)
        near = posixpath.join(root, unit.result_file)
        hip_path = self._candidate_path(fs, root, pair.candidate, near)
        if is_problem(hip_path):
            return self.reject(ref, *hip_path)
        kernel = read_text(fs, hip_path)
        if is_problem(kernel):
            return self.reject(ref, *kernel)
        fields, problem = self.row_license(kernel, unit.tree)
        if problem:
            return self.reject(ref, *problem)
        problem = check_hip_extension(kernel)
        if problem:
            return self.reject(ref, *problem)
        baseline_path = self._baseline_path(fs, root, pair, near, hip_path)
        if is_problem(baseline_path):
            return self.reject(ref, *baseline_path)
        baseline, module, functional = self._task_files(fs, root, pair.base, baseline_path, near, cache)
        for value, what in ((baseline, "baseline"), (module, "reference"), (functional, "functional reference")):
            if is_problem(value):
                return self.reject(ref, value[0], f"{what} of {pair.base}: {value[1]}")
        gen_idx = pair.gen_idx
        provenance = make_provenance(self.path, self.options, relative(hip_path, root), self.pipeline,
                                     self.revision())
        upstream = dict(pair.upstream, result=ref) if pair.upstream else None
        provenance.upstream = json.dumps(upstream, sort_keys=True, default=str) if upstream else None
        return KernelRecord(
            subset=self.config, source=self.name, language="hip", task_name=pair.base,
            pytorch_code=module, pytorch_functional_code=functional, kernel_code=kernel,
            baseline_kernel_code=baseline, **fields, provenance=provenance,
            variant=f"gen_{gen_idx}" if isinstance(gen_idx, int) and not isinstance(gen_idx, bool) else None,
            verification=self._verification(pair, unit.meta),
        )

    def _index(self, fs, root) -> FileIndex:
        return self.per_process("hip_index", lambda: FileIndex.of_tree(fs, root, (".hip",)))

    def _candidate_path(self, fs, root, hip_file: str, near: str):
        """Where the rewrite lies: relative to the root or to generated/, the part of an absolute path from
        ``generated/`` on; for a bare name (the kit's), a file of that name in the tree (optimized/ or
        generated/ first). Only paths inside the tree are candidates (``generated/../../x`` is not read)."""
        relative_file = hip_file.lstrip("/")
        candidates = [posixpath.join(root, relative_file), posixpath.join(root, GENERATED_DIR, relative_file)]
        marker = f"{GENERATED_DIR}/"
        if marker in hip_file:
            candidates.append(posixpath.join(root, hip_file[hip_file.rindex(marker):]))
        inside = [p for p in (within(root, c) for c in candidates) if p is not None]
        if not inside and ".." in hip_file.split("/"):
            return RejectReason.MISSING_FILE, f"hip_file {hip_file!r} names a file outside the tree"
        for path in inside:
            if is_file(fs, path):
                return path
        if "/" not in relative_file or hip_file.startswith("/"):
            # a bare name (the kit's), or an absolute path of the evaluation machine: the tree's file of that name
            # (for a path, only one in a folder of the same name)
            found = self._index(fs, root).find(hip_file, near, prefer=_CANDIDATE_DIRS, avoid=("origin",))
            parent = posixpath.basename(posixpath.dirname(hip_file))
            if found is not None and (not parent or posixpath.basename(posixpath.dirname(found)) == parent):
                return found
        return inside[0] if inside else (RejectReason.MISSING_FILE, f"hip_file {hip_file!r} is not in the tree")

    def _baseline_path(self, fs, root, pair: EvalPair, near: str, candidate: str):
        """Where the baseline lies: ``reference/<base>.hip`` (always, for kvdata's JSONL), else the file the kit's
        record names (or ``<base>.hip``) found by name in the tree (origin/, reference/, hip_code/ first), never
        the rewrite itself."""
        base = pair.base
        if within(root, posixpath.join(root, REFERENCE_DIR, f"{base}.hip")) is None:
            return RejectReason.MISSING_FILE, f"base_name {base!r} names a file outside the tree"
        conventional = posixpath.join(root, REFERENCE_DIR, f"{base}.hip")
        if not pair.kit or pair.baseline is None and is_file(fs, conventional):
            return conventional
        name = pair.baseline or f"{base}.hip"
        found = self._index(fs, root).find(name, near, prefer=_BASELINE_DIRS, avoid=("optimized", GENERATED_DIR),
                                           exclude=candidate)
        return found or conventional

    def _task_files(self, fs, root: str, base: str, baseline_path: str, near: str, cache: dict):
        """(baseline HIP, module reference, functional reference or None), each a value or a problem."""
        key = (base, baseline_path)
        if key in cache:
            return cache[key]
        baseline = read_text(fs, baseline_path)
        if not is_problem(baseline):
            baseline = check_hip_extension(baseline, "baseline_kernel_code") or baseline
        module, functional = self._references(fs, root, base, near)
        cache[key] = (baseline, module, functional)
        return cache[key]

    def _references(self, fs, root: str, base: str, near: str):
        """The PyTorch module and functional references of ``base``: ``<base>.py`` (kvdata), the kit's
        ``hip_`` -> ``py_`` name, or the release's ``py_<id>.py`` / ``py_<id>_func.py``; in the tree's own
        ``pytorch_code_module/``, in any such folder of the tree (nearest first), or under ``pytorch_root``."""
        kit_name = base.replace("hip_", "py_")
        module_names = dict.fromkeys((f"{base}.py", f"{kit_name}.py", f"py_{base}.py"))
        functional_names = dict.fromkeys((*module_names, f"py_{base}_func.py", f"{kit_name}_func.py"))
        ref_fs, ref_root = (open_fs(str(self.option("pytorch_root"))) if self.option("pytorch_root") else (fs, root))
        ref_root = str(ref_root).rstrip("/")
        index = self.per_process("py_index", lambda: FileIndex.of_tree(ref_fs, ref_root, (".py",)))

        def locate(folder: str, names) -> Optional[str]:
            for name in names:
                direct = posixpath.join(ref_root, folder, name)
                if is_file(ref_fs, direct):
                    return direct
            for name in names:
                found = index.find(name, near, prefer=(folder,))
                if found is not None and posixpath.basename(posixpath.dirname(found)) == folder:
                    return found
            return None

        module_path = locate(MODULE_DIR, module_names)
        if module_path is None:
            module = (RejectReason.MISSING_FILE,
                      f"no {MODULE_DIR}/ file among {', '.join(module_names)}")
        else:
            module = read_text(ref_fs, module_path)
            if not is_problem(module):
                module = check_reference(module) or module
        functional_path = locate(FUNCTIONAL_DIR, functional_names)
        functional = read_functional(ref_fs, functional_path) if functional_path else None
        return module, functional

    def _meta(self, fs, root) -> dict:
        """Hardware facts of the evaluation: meta.json (if any, and an object) overridden by options."""
        path = posixpath.join(root, META_FILE)
        loaded = json_object(read_text(fs, path), path) if is_file(fs, path) else {}
        meta = {k: str(loaded[k]) for k in _META_KEYS if loaded.get(k) is not None} if isinstance(loaded, dict) else {}
        meta.update({k: str(self.options[k]) for k in _META_KEYS if self.options.get(k)})
        return meta

    def _verification(self, pair: EvalPair, meta: dict) -> Verification:
        return Verification(
            hardware=meta.get("hardware"), arch=meta.get("arch"),
            rocm_version=meta.get("rocm_version"), torch_version=meta.get("torch_version"),
            compiler=meta.get("compiler"), **pair.verification,
        )
