"""Combine the overlap measures of (benchmark item, training row) pairs and decide which pairs are flagged.

The measures of a pair (NaN where one was not computed):

| field | measure | question it answers |
|---|---|---|
| ``jaccard`` | 5-token shingles, identifiers renamed | is the row a (renamed) copy? |
| ``containment`` | 13-gram containment of the item in the row | is the item pasted inside a larger row? |
| ``cosine`` | chunked sentence embeddings | is the row about the same thing? |
| ``structural`` | ATen op-graph similarity (core-ATen decompositions, algebra canonicalised) | the same computation written differently? |
| ``structural_containment`` | the item's op graph inside the row's | the task fused into a bigger model? |
| ``behavioural`` | both references run on shared probe inputs | the same function, whatever the code? |
| ``kernel_jaccard`` / ``kernel_containment`` / ``kernel_ast`` | best pair of ``@triton.jit`` kernels | a benchmark kernel inside a library file? |

A pair is flagged when any measure reaches its threshold, and ``reason`` lists every measure that did (for
example ``jaccard>=0.8;behavioural>=0.999``). Two vetoes keep look-alikes (code that looks the same but computes
something else, such as ``softmax(-x)`` next to ``softmax``) unflagged; one changed token leaves Jaccard above 0.9,
so no lexical threshold can separate such pairs, only the computation can:

* **behavioural veto**: both sides were run and their outputs differ (``behavioural < behavioural_veto``). It
  drops the whole-text and whole-graph reasons (lexical, semantic, structural) and ``structural_containment``
  too: a small computation (a mean of squares, an MSE, a softmax) sits inside many bigger models that compute
  something else, and a probe that ran and disagreed is the stronger evidence. It does not drop the kernel-level
  reasons (they compare Triton kernels, which probing does not run). Op graphs abstract constants away, so
  ``gelu(y) * c`` and ``gelu(y * c)`` can share a graph; only running them tells them apart. Measured on the
  second look-alike set (``tests/audit_suite/lookalikes2``, small patterns inside bigger models): 10 of 41
  look-alikes flagged with containment exempt, 2 of 41 (both unprobed) without; the paraphrase suite's held-out
  split keeps 32 of 35 found and drops from 2 to 0 of 35 look-alikes flagged.
* **structural veto**, when the pair was not probed: both sides were traced and their op graphs clearly differ
  (``structural < structural_veto``). It drops the lexical and semantic reasons.

The reason then starts with ``vetoed:`` and names the vetoed measures. Kernel-level scores obey the kernel
rule of :mod:`kvdata.audit.triton_kernels.rule` (a minimum kernel size, and an *op veto* for kernels that read
alike but compute with other ops); a refused kernel match keeps its scores and says why in ``kernel_veto``.

How the lexical thresholds were chosen (KernelBench v0 and v0.1 as staged for the tests, code normalised with
identifiers replaced by one placeholder, 5-token shingles, 13-token n-grams;
``tests/test_lexical.py::test_threshold_calibration`` recomputes these numbers):
* Different problems of KernelBench v0.1 against each other: 99th percentile Jaccard 0.72, containment 0.69
  (the largest reach 1.0: look-alikes such as Softmax / LogSoftmax, identical after renaming).
* The same problem in v0 and v0.1 (rewritten in July 2025 with other sizes): Jaccard median 0.80, lower quartile
  0.74; 20 of 258 problems are identical after normalisation.
* So ``jaccard >= 0.8`` and ``containment >= 0.8`` sit above 99% of different-problem pairs and flag about half of
  the rewritten same-problem pairs (all unchanged ones). Lexical measures cannot go further: the look-alikes
  above 0.8 are left to the vetoes. The structural, behavioural and kernel thresholds were tuned on the
  development set in ``tests/audit_suite/dev`` (never on the held-out suite); the README's ablation table gives
  the held-out figures.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Optional

__all__ = ["Thresholds", "PairScores", "flag_pair", "SCORE_FIELDS", "WHOLE_MEASURES", "MEASURE_OF_FIELD"]

# Every score a pair can carry, in report order.
SCORE_FIELDS = ("jaccard", "containment", "cosine", "structural", "structural_containment", "behavioural",
                "kernel_jaccard", "kernel_containment", "kernel_ast")
# Which audit measure (``--measures``) computes each score.
MEASURE_OF_FIELD = {"jaccard": "lexical", "containment": "lexical", "cosine": "semantic",
                    "structural": "structural", "structural_containment": "structural",
                    "behavioural": "behavioural", "kernel_jaccard": "kernel", "kernel_containment": "kernel",
                    "kernel_ast": "kernel"}
# Scores about the whole text or graph: what a veto can cancel.
WHOLE_MEASURES = ("jaccard", "containment", "cosine", "structural")


@dataclass
class Thresholds:
    """Flagging thresholds (each score flags a pair at or above its value) and the two vetoes."""

    jaccard: float = 0.8
    containment: float = 0.8
    cosine: float = 0.95
    structural: float = 0.95
    structural_containment: float = 0.95
    behavioural: float = 0.999
    kernel_jaccard: float = 0.8         # on the IDF-weighted kernel measures (kvdata.audit.triton_kernels.rule)
    kernel_containment: float = 0.8
    kernel_ast: float = 0.9
    structural_veto: Optional[float] = 0.5
    behavioural_veto: Optional[float] = 0.5

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class PairScores:
    """One (benchmark item, training row) pair; NaN where a measure was not computed for the pair.

    ``kernels`` names the matching Triton kernels (``bench_kernel~train_kernel``) and ``probe`` what the
    behavioural probe matched or why it could not run.
    """

    bench_id: str
    train_id: str
    jaccard: float = math.nan
    containment: float = math.nan
    cosine: float = math.nan
    structural: float = math.nan
    structural_containment: float = math.nan
    behavioural: float = math.nan
    kernel_jaccard: float = math.nan
    kernel_containment: float = math.nan
    kernel_ast: float = math.nan
    kernels: str = ""
    kernel_veto: str = ""     # why the kernel rule refused the best kernel match ("op_conflicts=2", "short")
    probe: str = ""
    flagged: bool = False
    reason: str = ""
    extra: dict = field(default_factory=dict)

    def to_row(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}

    def best(self) -> float:
        vals = [getattr(self, m) for m in SCORE_FIELDS if not math.isnan(getattr(self, m))]
        return max(vals) if vals else 0.0


def _reached(value: float, threshold: float) -> bool:
    return not math.isnan(value) and value >= threshold - 1e-12


def flag_pair(pair: PairScores, th: Thresholds) -> PairScores:
    """Set ``flagged`` and ``reason`` on ``pair`` from its measures (in place; returns it)."""
    reached = [name for name in SCORE_FIELDS if _reached(getattr(pair, name), getattr(th, name))
               and not (name.startswith("kernel_") and pair.kernel_veto)]
    vetoed: list[str] = []
    veto = ""
    if th.behavioural_veto is not None and not math.isnan(pair.behavioural) \
            and pair.behavioural < th.behavioural_veto:
        vetoed = [m for m in reached if m in WHOLE_MEASURES or m == "structural_containment"]
        veto = f"behavioural<{th.behavioural_veto:g}"
    elif th.structural_veto is not None and math.isnan(pair.behavioural) and not math.isnan(pair.structural) \
            and pair.structural < th.structural_veto:
        vetoed = [m for m in reached if m in ("jaccard", "containment", "cosine")]
        veto = f"structural<{th.structural_veto:g}"
    kept = [m for m in reached if m not in vetoed]
    pair.flagged = bool(kept)
    text = ";".join(f"{m}>={getattr(th, m):g}" for m in kept)
    if vetoed:
        dropped = ";".join(f"{m}>={getattr(th, m):g}" for m in vetoed)
        text = f"vetoed:{veto} ({dropped})" + (f"; {text}" if text else "")
    pair.reason = text
    return pair
