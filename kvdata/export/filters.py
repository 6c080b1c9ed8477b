"""What ``kvdata export`` drops, each with a reason the accounting counts.

- ``--audit DIR``: the training rows an overlap audit flagged against a benchmark (its
  ``pairs.parquet``: every flagged pair's ``train_id``), reason ``benchmark_overlap``; the flag
  reasons (``jaccard``, ``containment``, ``structural``, ...) are counted too.
- ``--verified RESULTS``: only rows ``kvdata reverify`` marked ``correct`` (reasons
  ``not_verified`` for rows the results do not hold, ``verified_not_correct``), optionally at a
  minimum speedup (``below_min_speedup``; untimed rows fail it).
- ``--license``: only rows whose SPDX expression the allow-list admits (``license_not_allowed``),
  with the build's rules (:func:`kvdata.licenses.evaluate_allow`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence


@dataclass(frozen=True)
class AuditFlags:
    """Flagged training row id -> the measures that flagged it."""

    flagged: dict[str, tuple[str, ...]]
    source: str


def read_audit(folder: str | Path) -> AuditFlags:
    """The training rows an audit flagged, from its ``pairs.parquet``."""
    import pyarrow.parquet as pq

    path = Path(folder) / "pairs.parquet"
    if not path.is_file():
        raise FileNotFoundError(f"{folder}: not an audit-overlap folder (no pairs.parquet)")
    flagged: dict[str, set[str]] = {}
    for r in pq.read_table(path, columns=["train_id", "flagged", "reason"]).to_pylist():
        if r["flagged"]:
            reason = r["reason"] or ""
            kept = reason.split("; ")[-1] if reason.startswith("vetoed:") else reason
            names = {part.split(">=")[0].strip() for part in kept.split(";") if part.strip()} or {"flagged"}
            flagged.setdefault(str(r["train_id"]), set()).update(names)
    return AuditFlags({k: tuple(sorted(v)) for k, v in flagged.items()}, str(path))


@dataclass(frozen=True)
class Verdicts:
    """Corpus row id -> (correct, speedup) from reverify results."""

    by_id: dict[str, tuple[bool, Optional[float]]]
    source: str


def read_verdicts(path: str | Path) -> Verdicts:
    """``kvdata reverify`` results (parquet or JSONL). An id's verdict is correct only if every result for
    it says so (a re-run that disagrees makes it not correct); a speedup that is not a finite number counts
    as unmeasured."""
    from kvdata.reverify.store import read_results

    try:
        results = read_results(path)
    except Exception as e:                      # pyarrow / json errors: the file is not results
        raise ValueError(f"--verified {path}: not a reverify results file ({type(e).__name__}: {e})") from None
    if not results:
        raise ValueError(f"--verified {path}: no results in it")
    missing = [c for c in ("id", "status") if not any(c in r for r in results)]
    if missing:
        raise ValueError(f"--verified {path}: not reverify results: no {' or '.join(missing)} column "
                         f"(kvdata reverify writes id, status, correct, speedup)")
    by_id: dict[str, tuple[bool, Optional[float]]] = {}
    for r in results:
        rid = r.get("id")
        if rid is None:
            continue
        speedup = r.get("speedup")
        if not (isinstance(speedup, (int, float)) and math.isfinite(speedup)):
            speedup = None
        correct = r.get("status") == "correct" and (r["correct"] is True if "correct" in r else True)
        if str(rid) in by_id:                   # several results: correct in all, the slowest measured speedup
            was_correct, was_speedup = by_id[str(rid)]
            measured = [x for x in (speedup, was_speedup) if x is not None]
            correct, speedup = correct and was_correct, min(measured) if measured else None
        by_id[str(rid)] = (correct, speedup)
    return Verdicts(by_id, str(path))


@dataclass
class RowFilters:
    audit: Optional[AuditFlags] = None
    verdicts: Optional[Verdicts] = None
    min_speedup: Optional[float] = None
    allow: Optional[Sequence[str]] = None
    overlap_by_measure: dict[str, int] = field(default_factory=dict)

    def reason(self, row: dict, *, need_correct: bool = True) -> Optional[str]:
        """Why ``row`` is dropped, or None. ``need_correct=False`` (DPO): incorrect rows stay, as rejected sides."""
        rid = str(row.get("id"))
        if self.allow is not None:
            from kvdata.licenses import evaluate_allow

            if not evaluate_allow(row.get("license"), self.allow).allowed:
                return "license_not_allowed"
        if self.audit is not None and rid in self.audit.flagged:
            for m in self.audit.flagged[rid]:
                self.overlap_by_measure[m] = self.overlap_by_measure.get(m, 0) + 1
            return "benchmark_overlap"
        if self.verdicts is not None:
            verdict = self.verdicts.by_id.get(rid)
            if verdict is None:
                return "not_verified"
            correct, speedup = verdict
            if need_correct and not correct:
                return "verified_not_correct"
            if need_correct and self.min_speedup is not None and not (speedup and speedup >= self.min_speedup):
                return "below_min_speedup"
        return None
