"""Adapters for the result files two public harnesses write, read as their code writes them.

**KernelBench** (ScalingIntelligence/KernelBench; read at ``423217d``, 2026-03):
``runs/<run>/eval_results.json`` from ``scripts/eval_from_generations.py``. A JSON object keyed by
``str(problem_id)``; each value is a list of sample records (since ``94ab208``, 2025-10) or one
record (before it): ``sample_id, compiled, correctness, metadata, runtime (ms), runtime_stats``.
The level is not in the file (one run is one level): it comes from ``level`` or the run folder's
name (``level1``, ``level_2``). No speedup is stored: KernelBench's own analysis divides the
baseline's mean (``results/timing/<hw>/<baseline>.json``, keyed ``level<L>`` then the problem's
file name) by ``runtime``, and so does ``baseline`` here. Task ids are the audit's
(``kernelbench/<version>/level<L>/<name>``) when ``bench_path`` gives the problem list to map
problem ids to names; ``kernelbench/level<L>/<problem_id>`` otherwise.

**GEAK-eval** (AMD-AGI/GEAK-eval; read at ``453b021``, 2025-12, and its ``tb_eval`` line):
``<OUT>_results_<pass>.json`` per attempt, or ``<OUT>_all_passes.json`` with all of them: a list of
``{pass_num, file_name, call_status, exec_status, speedup, stdout, stderr, difficulty}``. The task
is ``file_name`` (TritonBench-G's and ROCmBench's own file names, as the audit names them), the
attempt ``pass_num``; ``call_status`` (the code ran with the reference's test) is ``compiled``,
``exec_status`` (outputs matched) is ``correct``. TritonBench-G's ``speedup`` is the reference
time over the generated one; ROCmBench's is always -1 there, its speedups are in
``<OUT>_perf_<pass>.json``, keyed by the benchmark op name (under a key named ``ms``), which
``bench_path`` (ROCmBench's task file, whose references set ``OP_NAME_FOR_BENCHMARK``) maps back
to file names. The 2025-07 release's records have no ``speedup``: read as untimed.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

from kvdata.score.inputs import BadValue, ResultsFormatError, as_bool, as_speedup
from kvdata.score.records import Attempt, JoinError

_GEAK_RESULTS = re.compile(r".*_results_(\d+)\.json$")
_GEAK_ALL = re.compile(r".*_all_passes\.json$")
_LEVEL = re.compile(r"level[_-]?(\d+)", re.I)


def _load_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultsFormatError(f"{path}: not readable JSON ({e})") from None


def sniff(path: Path) -> str:
    """``kernelbench``, ``geak``, or ``auto`` (a table or reverify results: their columns decide)."""
    path = Path(path)
    if path.is_dir():
        if (path / "eval_results.json").is_file():
            return "kernelbench"
        if any(_GEAK_RESULTS.match(p.name) or _GEAK_ALL.match(p.name) for p in path.iterdir()):
            return "geak"
        return "auto"
    if path.name == "eval_results.json":
        return "kernelbench"
    if _GEAK_RESULTS.match(path.name) or _GEAK_ALL.match(path.name):
        return "geak"
    if path.suffix == ".json":
        data = _load_json(path)
        if isinstance(data, dict) and data and all(isinstance(v, (list, dict)) for v in data.values()):
            first = next(iter(data.values()))
            first = first[0] if isinstance(first, list) and first else first
            if isinstance(first, dict) and "correctness" in first:
                return "kernelbench"
        if isinstance(data, list) and data and isinstance(data[0], dict) and "exec_status" in data[0]:
            return "geak"
    return "auto"


# ----------------------------------------------------------------- KernelBench
def _kernelbench_names(bench_path, version: str, level: int) -> dict[int, tuple[str, str]]:
    """problem_id -> (audit id, problem name) for one level."""
    from kvdata.audit.benchmarks import load_kernelbench

    out = {}
    for item in load_kernelbench(bench_path, version=version, levels=[level]):
        pid = item.meta.get("problem_id")
        if pid is None:
            m = re.match(r"(\d+)_", item.name)
            pid = int(m.group(1)) if m else None
        if pid is not None:
            out[int(pid)] = (item.id, item.name)
    return out


def kernelbench_attempts(path: Path, model: str, *, level: Optional[int] = None, bench_path=None,
                         version: str = "v0.1", baseline=None, **_) -> list[Attempt]:
    """Attempts from KernelBench's ``eval_results.json`` (module docstring)."""
    path = Path(path)
    file = path / "eval_results.json" if path.is_dir() else path
    data = _load_json(file)
    if not isinstance(data, dict):
        raise ResultsFormatError(f"{file}: KernelBench's eval_results.json is an object keyed by problem id")
    if level is None:
        m = _LEVEL.search(str(file.parent.name)) or _LEVEL.search(str(file))
        if not m:
            raise ResultsFormatError(f"{file}: which KernelBench level is this run? The file does not say; "
                                     f"pass --level (or name the run folder level1, level2, ...)")
        level = int(m.group(1))
    names = _kernelbench_names(bench_path, version, level) if bench_path else {}
    times = None
    if baseline is not None:
        base = _load_json(Path(baseline))
        times = base.get(f"level{level}") if isinstance(base, dict) else None
        if not isinstance(times, dict):
            raise ResultsFormatError(f"{baseline}: no 'level{level}' timings in this KernelBench baseline file")
        if not names:
            raise ResultsFormatError("--baseline needs --bench-path: baseline times are keyed by problem name")
    out, bad, unknown = [], [], []
    for key, value in data.items():
        try:
            pid = int(key)
        except ValueError:
            bad.append(f"key {key!r} (not a problem id)")
            continue
        if names and pid not in names:
            unknown.append(f"level{level} problem {pid}")
            continue
        task, name = names.get(pid, (f"kernelbench/level{level}/{pid}", None))
        for j, rec in enumerate(value if isinstance(value, list) else [value]):
            if not isinstance(rec, dict):
                bad.append(f"problem {pid} sample #{j}: not an object")
                continue
            compiled, correctness = as_bool(rec.get("compiled")), as_bool(rec.get("correctness"))
            sample = rec.get("sample_id", j)
            if compiled is None or correctness is None or not isinstance(sample, int):
                bad.append(f"problem {pid} sample {sample!r}: compiled={rec.get('compiled')!r}, "
                           f"correctness={rec.get('correctness')!r}")
                continue
            correct = compiled and correctness
            speedup = None
            if correct and times is not None:
                ref = times.get(f"{name}.py") or times.get(name) or {}
                try:
                    runtime = as_speedup(rec.get("runtime"))
                    mean = as_speedup(ref.get("mean")) if isinstance(ref, dict) else None
                except BadValue as e:
                    bad.append(f"problem {pid} sample {sample}: {e}")
                    continue
                speedup = mean / runtime if (mean and runtime) else None
            out.append(Attempt(model, task, sample, compiled, correct, speedup, f"{file} problem {pid}"))
    if bad:
        raise JoinError(f"{file}: records that are not KernelBench results", bad)
    if unknown:
        raise JoinError(f"{file}: problem ids not in the KernelBench problems of {bench_path}", unknown)
    return out


# ----------------------------------------------------------------- GEAK-eval
def _geak_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    per_pass = sorted((p for p in path.iterdir() if _GEAK_RESULTS.match(p.name)),
                      key=lambda p: int(_GEAK_RESULTS.match(p.name).group(1)))
    if per_pass:
        return per_pass
    combined = [p for p in path.iterdir() if _GEAK_ALL.match(p.name)]
    if not combined:
        raise ResultsFormatError(f"{path}: no GEAK-eval *_results_<n>.json or *_all_passes.json here")
    return combined[:1]


def _rocm_op_names(bench_path) -> dict[str, str]:
    """ROCmBench op name (its perf file's stem) -> the task's file name; names two tasks share are left out."""
    items = json.loads(Path(bench_path).read_text(encoding="utf-8"))
    seen: dict[str, list[str]] = {}
    for item in items if isinstance(items, list) else []:
        m = re.search(r"OP_NAME_FOR_BENCHMARK\s*=\s*[\"'](\w+)", str(item.get("label", "")))
        if m and item.get("file"):
            seen.setdefault(m.group(1), []).append(item["file"])
    return {op: files[0] for op, files in seen.items() if len(files) == 1}


def geak_attempts(path: Path, model: str, *, bench_path=None, **_) -> list[Attempt]:
    """Attempts from GEAK-eval's per-pass result files (module docstring)."""
    path = Path(path)
    ops = _rocm_op_names(bench_path) if bench_path and Path(bench_path).suffix == ".json" else {}
    out, bad = [], []
    for file in _geak_files(path):
        records = _load_json(file)
        if not isinstance(records, list):
            raise ResultsFormatError(f"{file}: GEAK-eval results are a list of per-task records")
        perf = {}
        m = _GEAK_RESULTS.match(file.name)
        if m and ops:
            perf_file = file.with_name(file.name.replace(f"_results_{m.group(1)}", f"_perf_{m.group(1)}"))
            found = _load_json(perf_file) if perf_file.is_file() else None
            for key, value in (found or {}).items():     # null when GEAK's perf step failed
                task = ops.get(key[:-5] if key.endswith(".json") else key)
                if task and isinstance(value, dict):
                    try:
                        perf[task] = as_speedup(value.get("ms"))      # GEAK's own key: it holds the speedup
                    except BadValue as e:
                        bad.append(f"{perf_file.name} {key}: {e}")
        for i, rec in enumerate(records):
            if not isinstance(rec, dict):
                bad.append(f"{file.name} item {i}: not an object")
                continue
            call, exe = as_bool(rec.get("call_status")), as_bool(rec.get("exec_status"))
            task, attempt = rec.get("file_name"), rec.get("pass_num", int(m.group(1)) if m else None)
            if call is None or exe is None or not task or not isinstance(attempt, int):
                bad.append(f"{file.name} item {i}: file_name={task!r} pass_num={attempt!r} "
                           f"call_status={rec.get('call_status')!r} exec_status={rec.get('exec_status')!r}")
                continue
            correct = bool(call and exe)
            try:
                speedup = (perf.get(task) or as_speedup(rec.get("speedup"))) if correct else None
            except BadValue as e:
                bad.append(f"{file.name} item {i}: {e}")
                continue
            out.append(Attempt(model, str(task), attempt, bool(call), correct, speedup, f"{file} item {i}"))
    if bad:
        raise JoinError(f"{path}: records that are not GEAK-eval results", bad)
    return out
