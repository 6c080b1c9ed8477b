"""Combine the overlap measures of (benchmark item, training row) pairs and decide which pairs are flagged.

A pair is flagged when any measure reaches its threshold, and ``reason`` lists every measure that did (for
example ``jaccard>=0.7;structural>=0.95``). One exception, the *structural veto*: when both sides were traced
and their op-graphs clearly differ (structural < ``structural_veto``), lexical and semantic flags are dropped
and the reason says ``vetoed:structural<0.5``. That is how look-alike code that computes something else
(``softmax(-x)`` next to ``softmax``) stays unflagged: one changed token leaves Jaccard above 0.9, so no
lexical threshold can separate such pairs; only the computation can.

How the default thresholds were chosen (KernelBench v0 and v0.1 as staged for the tests, code normalised with identifiers
replaced by one placeholder, 5-token shingles, 13-token n-grams; ``tests/test_lexical.py::test_threshold_calibration``
recomputes these numbers):
* Different problems of KernelBench v0.1 against each other: 99th percentile Jaccard 0.72, containment 0.69
  (the largest reach 1.0: look-alikes such as Softmax / LogSoftmax, identical after renaming).
* The same problem in v0 and v0.1 (rewritten in July 2025 with other sizes): Jaccard median 0.80, lower quartile
  0.74; 20 of 258 problems are identical after normalisation.
* So ``jaccard >= 0.8`` and ``containment >= 0.8`` sit above 99% of different-problem pairs and flag about half of
  the rewritten same-problem pairs (all unchanged ones). Lexical measures cannot go further: the look-alikes
  above 0.8 are left to the structural veto. Cosine 0.95 and structural 0.95 are the semantic / structural
  modules' defaults.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Optional

__all__ = ["Thresholds", "PairScores", "flag_pair"]


@dataclass
class Thresholds:
    """Flagging thresholds (each measure flags a pair at or above its value) and the structural veto."""

    jaccard: float = 0.8
    containment: float = 0.8
    cosine: float = 0.95
    structural: float = 0.95
    structural_veto: Optional[float] = 0.5

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class PairScores:
    """One (benchmark item, training row) pair; NaN where a measure was not computed for the pair."""

    bench_id: str
    train_id: str
    jaccard: float = math.nan
    containment: float = math.nan
    cosine: float = math.nan
    structural: float = math.nan
    flagged: bool = False
    reason: str = ""
    extra: dict = field(default_factory=dict)

    def to_row(self) -> dict:
        return {"bench_id": self.bench_id, "train_id": self.train_id, "jaccard": self.jaccard,
                "containment": self.containment, "cosine": self.cosine, "structural": self.structural,
                "flagged": self.flagged, "reason": self.reason}


def _reached(value: float, threshold: float) -> bool:
    return not math.isnan(value) and value >= threshold - 1e-12


def flag_pair(pair: PairScores, th: Thresholds) -> PairScores:
    """Set ``flagged`` and ``reason`` on ``pair`` from its measures (in place; returns it)."""
    reasons = [f"{name}>={getattr(th, name):g}" for name in ("jaccard", "containment", "cosine", "structural")
               if _reached(getattr(pair, name), getattr(th, name))]
    vetoed = (th.structural_veto is not None and not math.isnan(pair.structural)
              and pair.structural < th.structural_veto)
    if vetoed and reasons:
        pair.flagged = False
        pair.reason = f"vetoed:structural<{th.structural_veto:g} ({';'.join(reasons)})"
    else:
        pair.flagged = bool(reasons)
        pair.reason = ";".join(reasons)
    return pair
