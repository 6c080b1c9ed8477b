"""HIP2HIP: a reference HIP extension and an optimised rewrite, with measured times.

Layout read (the upstream evaluation's output, plus the files it evaluated)::

    <root>/LICENSE                               (or the ``license`` option)
    <root>/eval_results*.jsonl                   one evaluation record per line (option ``results``: a glob)
    <root>/reference/<base_name>.hip             the baseline HIP extension (before optimisation)
    <root>/<hip_file>                            the optimised HIP extension (usually generated/...)
    <root>/pytorch_code_module/<base_name>.py    KernelBench-style reference (Model, get_inputs)
    <root>/pytorch_code_functional/<base_name>.py  optional functional form (module_fn)
    <root>/meta.json                             optional: {"hardware", "arch", "rocm_version", "torch_version"}

An evaluation record has the upstream fields ``hip_file, base_name, gen_idx, compile_ok,
run_ok, match_ok, pytorch_time_ms, hip_time_ms, speedup, error_message``. ``hip_file`` is
a path relative to ``<root>`` (an absolute path or one relative to ``generated/`` is
also tried). ``speedup`` is ``pytorch_time_ms / hip_time_ms`` upstream; when it is null
and both times are present it is computed that way.

One input record is one non-blank JSONL line. A line is kept only when the rewrite
compiled, ran, matched and is faster (``speedup > 1``); otherwise the first failed stage
names the reject (``compile_failed``, ``run_failed``, ``mismatch``, ``not_faster``) and
the upstream ``error_message`` is the reject message. The status is checked before any
file is read, so failed generations cost nothing.
"""
from __future__ import annotations

import json
import math
import posixpath
from typing import Iterator, Optional

from kvdata.builders.base import Item, UnitSource, located_lines
from kvdata.builders.common import check_hip_extension, check_reference, decode, is_problem, read_text
from kvdata.builders.common import COMMON_OPTIONS, glob_sorted, make_provenance, read_functional, relative, within
from kvdata.builders.hip_gpumode import FUNCTIONAL_DIR, MODULE_DIR
from kvdata.builders.tables import load_json
from kvdata.schema import KernelRecord, Reject, RejectReason, Verification

REFERENCE_DIR = "reference"
GENERATED_DIR = "generated"
DEFAULT_RESULTS = "eval_results*.jsonl"
META_FILE = "meta.json"
_STAGES = (  # (field, reject reason when false, what failed)
    ("compile_ok", RejectReason.COMPILE_FAILED, "did not compile"),
    ("run_ok", RejectReason.RUN_FAILED, "did not run"),
    ("match_ok", RejectReason.MISMATCH, "output does not match the reference"),
)
_META_KEYS = ("hardware", "arch", "rocm_version", "torch_version", "compiler")


def _number(value) -> Optional[float]:
    """A finite float, or None for null / non-numbers / NaN / inf (and booleans)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def speedup_of(record: dict) -> Optional[float]:
    """The record's speedup, or pytorch_time_ms / hip_time_ms when it is not given."""
    speedup = _number(record.get("speedup"))
    if speedup is not None:
        return speedup
    ref_ms, kernel_ms = _number(record.get("pytorch_time_ms")), _number(record.get("hip_time_ms"))
    if ref_ms is not None and kernel_ms:
        return ref_ms / kernel_ms
    return None


def status_problem(record: dict) -> Optional[tuple[RejectReason, str]]:
    """The first failed evaluation stage of a record, or None when it is a kept pair."""
    detail = record.get("error_message") or ""
    for field, reason, what in _STAGES:
        value = record.get(field)
        if not isinstance(value, bool):
            return RejectReason.MISSING_FIELD, f"{field} is {value!r}, not true/false"
        if not value:
            return reason, f"{what}: {detail}" if detail else what
    speedup = speedup_of(record)
    if speedup is None:
        return RejectReason.MISSING_FIELD, "no speedup and no pytorch_time_ms/hip_time_ms to compute it"
    if speedup <= 1.0:
        return RejectReason.NOT_FASTER, f"speedup {speedup:.3f} <= 1" + (f": {detail}" if detail else "")
    return None


class Hip2HipSource(UnitSource):
    """Baseline HIP -> optimised HIP pairs from the upstream evaluation's JSONL records.

    Options: ``results`` (glob of result files under the root, default ``eval_results*.jsonl``),
    ``license``, ``allow``, ``repo``, ``commit``, ``path_prefix``, ``generator``,
    ``hardware``/``arch``/``rocm_version``/``torch_version`` (override ``meta.json``), ``name``.
    """

    kind = "hip2hip"
    config = "hip2hip"
    pipeline = "hip2hip"
    description = "HIP2HIP: baseline and optimised HIP extensions with measured speedups"
    options_known = COMMON_OPTIONS | {"results", "rocm_version", "torch_version", "compiler"}

    # ``read`` (UnitSource) is ``unit_to_item`` over ``read_units``: the result files, the
    # license and meta.json are read once, in the main process; reading and checking the
    # files of a pair (the costly half) can run in the build's worker processes.
    def read_units(self) -> Iterator[object]:
        """A Reject for a file-level problem, else one ``(ref, line, license, meta)`` per
        non-blank line of a result file."""
        fs, root = self.tree()
        pattern = self.option("results", DEFAULT_RESULTS)
        result_files = glob_sorted(fs, root, pattern)
        if not result_files:
            yield self.reject(self.path, RejectReason.MISSING_FILE, f"no {pattern} under {self.path}")
            return
        license_ = self.tree_license(fs, root)
        self.revision()
        meta = self._meta(fs, root)
        for results in result_files:
            name = relative(results, root)
            for unit in located_lines(self, fs, results, name):
                if isinstance(unit, Reject):
                    yield unit
                else:
                    _, lineno, line = unit
                    yield f"{name}:{lineno}", line, license_, meta

    def unit_to_item(self, unit) -> Item:
        if isinstance(unit, Reject):
            return unit
        ref, line, license_, meta = unit
        fs, root = self.tree()
        return self._pair(fs, root, ref, line, license_, meta, self.per_process("task_files", dict))

    # ------------------------------------------------------------- one evaluation record
    def _pair(self, fs, root, ref, line, license_, meta, cache) -> Item:
        text = self.line_files().text(line, ref)
        if is_problem(text):
            return self.reject(ref, *text)
        try:
            record = load_json(text)
        except json.JSONDecodeError as e:
            return self.reject(ref, RejectReason.BAD_JSON, f"{ref}: {e.msg} at column {e.colno}")
        if not isinstance(record, dict):
            return self.reject(ref, RejectReason.BAD_JSON, f"{ref}: a {type(record).__name__}, not an object")
        for field in ("hip_file", "base_name"):
            if not isinstance(record.get(field), str) or not record[field].strip():
                return self.reject(ref, RejectReason.MISSING_FIELD, f"{field} is missing or not a string")
        problem = status_problem(record)
        if problem:
            return self.reject(ref, *problem)
        base = record["base_name"]
        if within(root, posixpath.join(root, REFERENCE_DIR, f"{base}.hip")) is None:
            return self.reject(ref, RejectReason.MISSING_FILE, f"base_name {base!r} names a file outside the tree")
        hip_path = self._generated_path(fs, root, record["hip_file"])
        if is_problem(hip_path):
            return self.reject(ref, *hip_path)
        kernel = read_text(fs, hip_path)
        if is_problem(kernel):
            return self.reject(ref, *kernel)
        fields, problem = self.row_license(kernel, license_)
        if problem:
            return self.reject(ref, *problem)
        problem = check_hip_extension(kernel)
        if problem:
            return self.reject(ref, *problem)
        baseline, module, functional = self._task_files(fs, root, base, cache)
        for value, what in ((baseline, "baseline"), (module, "reference"), (functional, "functional reference")):
            if is_problem(value):
                return self.reject(ref, value[0], f"{what} of {base}: {value[1]}")
        gen_idx = record.get("gen_idx")
        return KernelRecord(
            subset=self.config, source=self.name, language="hip", task_name=base,
            pytorch_code=module, pytorch_functional_code=functional, kernel_code=kernel,
            baseline_kernel_code=baseline, **fields,
            provenance=make_provenance(self.path, self.options, relative(hip_path, root), self.pipeline,
                                       self.revision()),
            variant=f"gen_{gen_idx}" if isinstance(gen_idx, int) and not isinstance(gen_idx, bool) else None,
            verification=self._verification(record, meta),
        )

    def _generated_path(self, fs, root, hip_file: str):
        """Where ``hip_file`` lies: relative to the root, relative to generated/, or (for an absolute
        path from the evaluation machine) its part from ``generated/`` on. The first candidate is
        returned when none exists, so the reject names the path as recorded. Only paths inside the
        tree are candidates (``generated/../../x`` is not read): a MISSING_FILE problem when none is."""
        relative_file = hip_file.lstrip("/")
        candidates = [posixpath.join(root, relative_file), posixpath.join(root, GENERATED_DIR, relative_file)]
        marker = f"{GENERATED_DIR}/"
        if marker in hip_file:
            candidates.append(posixpath.join(root, hip_file[hip_file.rindex(marker):]))
        candidates = [p for p in (within(root, c) for c in candidates) if p is not None]
        if not candidates:
            return RejectReason.MISSING_FILE, f"hip_file {hip_file!r} names a file outside the tree"
        for path in candidates:
            try:
                if fs.exists(path):
                    return path
            except OSError:
                continue
        return candidates[0]

    def _task_files(self, fs, root, base: str, cache: dict):
        """(baseline HIP, module reference, functional reference or None), each a value or a problem."""
        if base in cache:
            return cache[base]
        baseline = read_text(fs, posixpath.join(root, REFERENCE_DIR, f"{base}.hip"))
        if not is_problem(baseline):
            baseline = check_hip_extension(baseline, "baseline_kernel_code") or baseline
        module = read_text(fs, posixpath.join(root, MODULE_DIR, f"{base}.py"))
        if not is_problem(module):
            module = check_reference(module) or module
        functional = read_functional(fs, posixpath.join(root, FUNCTIONAL_DIR, f"{base}.py"))
        cache[base] = (baseline, module, functional)
        return cache[base]

    def _meta(self, fs, root) -> dict:
        """Hardware facts of the evaluation: meta.json (if any) overridden by options."""
        meta: dict = {}
        path = posixpath.join(root, META_FILE)
        try:
            if fs.exists(path):
                with fs.open(path, "rb") as f:
                    text = decode(f.read(), path)
                loaded = json.loads(text) if isinstance(text, str) else {}
                if isinstance(loaded, dict):
                    meta = {k: str(loaded[k]) for k in _META_KEYS if loaded.get(k) is not None}
        except (OSError, json.JSONDecodeError):
            meta = {}
        meta.update({k: str(self.options[k]) for k in _META_KEYS if self.options.get(k)})
        return meta

    def _verification(self, record: dict, meta: dict) -> Verification:
        return Verification(
            hardware=meta.get("hardware"), arch=meta.get("arch"),
            rocm_version=meta.get("rocm_version"), torch_version=meta.get("torch_version"),
            compiler=meta.get("compiler"),
            compile_ok=record.get("compile_ok"), correct=record.get("match_ok"),
            ref_ms=_number(record.get("pytorch_time_ms")), kernel_ms=_number(record.get("hip_time_ms")),
            speedup=speedup_of(record),
        )
