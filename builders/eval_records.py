"""What one record of a HIP evaluation says, whichever file it came from: kvdata's JSONL rows, AMD's eval-kit rows
(``baseline_hip_results.json``) and its comparison rows (``origin_vs_optimized_results.json``).

:func:`read_pair` turns a record into an :class:`EvalPair`: the base task, the files it names, the first failed
stage (or None for a kept pair), and the times recorded as what they are. In the kit, ``pytorch_time_ms`` is the
*reference HIP kernel's* time (docs/notes/layouts.md), so it becomes ``baseline_ms`` with ``speedup_over =
"baseline_kernel"``; in kvdata's JSONL it is the PyTorch reference's (``ref_ms``, ``speedup_over = "pytorch"``).
Nothing here reads a file: :mod:`kvdata.builders.hip2hip` finds the files.
"""
from __future__ import annotations

import math
import posixpath
from dataclasses import dataclass
from typing import Any, Optional, Union

from kvdata.schema import RejectReason

__all__ = ["EvalPair", "read_pair", "speedup_of", "status_problem"]

_STAGES = (  # (field, reject reason when false, what failed)
    ("compile_ok", RejectReason.COMPILE_FAILED, "did not compile"),
    ("run_ok", RejectReason.RUN_FAILED, "did not run"),
    ("match_ok", RejectReason.MISMATCH, "output does not match the reference"),
)
#: Comparison errors of the kit that mean a side is missing.
_MISSING_PAIR = ("missing_origin_pair", "missing_optimized_pair", "missing_pair")


def _number(value) -> Optional[float]:
    """A finite float, or None for null / non-numbers / NaN / inf (and booleans)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


# ----------------------------------------------------------------- one evaluation record, read
@dataclass
class EvalPair:
    """What one evaluation record says, whichever file it came from."""

    base: str
    candidate: str                      # the rewrite's file, as the record names it
    baseline: Optional[str]             # the baseline's file, where the record names one
    gen_idx: Any
    problem: Optional[tuple]            # the first failed stage, or None for a kept pair
    verification: dict
    upstream: dict
    kit: bool = True                    # from AMD's evaluation kit (its files are found by name in the tree)


def speedup_of(record: dict, base_key: str = "pytorch_time_ms", kernel_key: str = "hip_time_ms") -> Optional[float]:
    """The record's speedup, or base / kernel time when it is not given."""
    speedup = _number(record.get("speedup"))
    if speedup is not None:
        return speedup
    base_ms, kernel_ms = _number(record.get(base_key)), _number(record.get(kernel_key))
    if base_ms is not None and kernel_ms:
        return base_ms / kernel_ms
    return None


def status_problem(record: dict, prefix: str = "", who: str = "") -> Optional[tuple[RejectReason, str]]:
    """The first failed stage (``compile_ok``, ``run_ok``, ``match_ok`` after ``prefix``), or None."""
    detail = record.get("error_message") or record.get(f"{prefix}preflight_error_message") or ""
    for field, reason, what in _STAGES:
        value = record.get(prefix + field)
        if not isinstance(value, bool):
            return RejectReason.MISSING_FIELD, f"{prefix}{field} is {value!r}, not true/false"
        if not value:
            what = f"{who}{what}"
            return reason, f"{what}: {detail}" if detail else what
    return None


def _faster(speedup: Optional[float], what: str, detail: str = "") -> Optional[tuple[RejectReason, str]]:
    if speedup is None:
        return RejectReason.MISSING_FIELD, f"no speedup and no {what} to compute it"
    if speedup <= 1.0:
        return RejectReason.NOT_FASTER, f"speedup {speedup:.3f} <= 1" + (f": {detail}" if detail else "")
    return None


def read_pair(record: dict) -> Union[EvalPair, tuple]:
    """An :class:`EvalPair` from a record of any of the result files, or the problem with the record."""
    if "optimized_hip_file" in record or "origin_hip_file" in record:
        return _comparison_pair(record)
    for field in ("hip_file", "base_name"):
        if not isinstance(record.get(field), str) or not record[field].strip():
            return RejectReason.MISSING_FIELD, f"{field} is missing or not a string"
    kit = "eval_backend" in record or "artifact_side" in record
    if kit and str(record.get("artifact_side", "")).lower() == "origin":
        return (RejectReason.BASELINE_ONLY,
                f"{record['hip_file']}: the baseline's own evaluation (artifact_side origin), not a rewrite")
    if kit and posixpath.basename(record["hip_file"]) in (f"{record['base_name']}.hip", f"{record['base_name']}_hip.hip"):
        return (RejectReason.BASELINE_ONLY,
                f"{record['hip_file']}: the reference file itself (no _gen<N> suffix), timed against itself")
    problem = status_problem(record)
    speedup = speedup_of(record)
    if problem is None:
        problem = _faster(speedup, "pytorch_time_ms/hip_time_ms", record.get("error_message") or "")
    times = {"kernel_ms": _number(record.get("hip_time_ms")), "speedup": speedup}
    if kit:      # the kit times the reference HIP kernel under the name pytorch_time_ms
        times.update(baseline_ms=_number(record.get("pytorch_time_ms")), speedup_over="baseline_kernel")
    else:
        times.update(ref_ms=_number(record.get("pytorch_time_ms")), speedup_over="pytorch")
    verification = {"compile_ok": record.get("compile_ok"), "correct": record.get("match_ok"), **times}
    return EvalPair(base=record["base_name"], candidate=record["hip_file"],
                    baseline=record.get("reference_hip_file") if isinstance(record.get("reference_hip_file"), str)
                    else None, gen_idx=record.get("gen_idx"), problem=problem,
                    verification=verification, upstream=_scalars(record, _KNOWN_ROW_KEYS), kit=kit)


def _comparison_pair(record: dict) -> Union[EvalPair, tuple]:
    for field in ("optimized_hip_file", "base_name"):
        if not isinstance(record.get(field), str) or not record[field].strip():
            error = record.get("compare_error")
            if error in _MISSING_PAIR:
                return RejectReason.MISSING_FILE, f"{record.get('base_name')!r}: {error}"
            return RejectReason.MISSING_FIELD, f"{field} is missing or not a string"
    error = record.get("compare_error")
    problem = None
    if error in _MISSING_PAIR:
        problem = RejectReason.MISSING_FILE, f"{error}: the comparison found no evaluation of one side"
    problem = problem or status_problem(record, "optimized_") or status_problem(record, "origin_", "the baseline ")
    speedup = speedup_of(record, "origin_hip_time_ms", "optimized_hip_time_ms")
    if problem is None and error:
        problem = RejectReason.MISSING_FIELD if "perf" in str(error) else RejectReason.OTHER, f"compare_error {error}"
    if problem is None:
        problem = _faster(speedup, "origin/optimized hip_time_ms")
    verification = {"compile_ok": record.get("optimized_compile_ok"), "correct": record.get("optimized_match_ok"),
                    "kernel_ms": _number(record.get("optimized_hip_time_ms")),
                    "baseline_ms": _number(record.get("origin_hip_time_ms")), "speedup": speedup,
                    "speedup_over": "baseline_kernel"}
    baseline = record.get("origin_hip_file")
    return EvalPair(base=record["base_name"], candidate=record["optimized_hip_file"],
                    baseline=baseline if isinstance(baseline, str) and baseline.strip() else None,
                    gen_idx=record.get("gen_idx"), problem=problem, verification=verification,
                    upstream=_scalars(record, _KNOWN_PAIR_KEYS))


_KNOWN_ROW_KEYS = frozenset({"hip_file", "base_name", "gen_idx", "compile_ok", "run_ok", "match_ok", "pytorch_time_ms",
                             "hip_time_ms", "speedup", "reference_hip_file"})
_KNOWN_PAIR_KEYS = frozenset({"base_name", "gen_idx", "origin_hip_file", "optimized_hip_file", "speedup",
                              "origin_hip_time_ms", "optimized_hip_time_ms", "optimized_compile_ok",
                              "optimized_match_ok"})


def _scalars(record: dict, known: frozenset) -> dict:
    """The record's other fields that are plain values (nested timing dumps are left out)."""
    return {k: v for k, v in record.items()
            if k not in known and (v is None or isinstance(v, (str, int, float, bool)))}
