"""Re-scoring on the tasks the training data never saw.

The clean list comes from ``kvdata audit-overlap``: ``--audit DIR`` reads its ``summary.parquet``
(every benchmark id, with ``clean``), ``--clean-tasks FILE`` its ``clean_tasks.txt`` (the clean
ids only; every other scored task then counts as contaminated). Task ids must be the benchmark's
own, as the audit writes them; a results id that is not the audit's exactly may still match one
benchmark id by its last path component (``19_ReLU`` -> ``kernelbench/v0.1/level1/19_ReLU``), and
ids that match none, or several, are a :class:`~kvdata.score.records.JoinError`.

For each model and metric: the value on all tasks, on the clean ones and on the contaminated
ones, the difference clean − all with a bootstrap interval (tasks resampled, each resample split by
the same labels), and a one-sided permutation test (scipy) of whether the contaminated tasks
score higher than the clean ones.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from kvdata.public import public_path
from kvdata.score.intervals import CONFIDENCE, RESAMPLES, Estimate, bootstrap_interval, contain, estimate
from kvdata.score.metrics import Metric
from kvdata.score.records import JoinError, ModelResults


@dataclass(frozen=True)
class CleanLabels:
    """Which benchmark ids are clean; ``complete``: every benchmark id is listed (an audit folder),
    not only the clean ones (a clean_tasks.txt)."""

    clean: frozenset[str]
    known: frozenset[str]
    complete: bool
    source: str


def read_labels(clean_tasks: Optional[str | Path] = None, audit: Optional[str | Path] = None) -> CleanLabels:
    """The audit's verdicts, from ``--audit DIR`` or ``--clean-tasks FILE``."""
    if audit is not None:
        folder = Path(audit)
        summary = folder / "summary.parquet"
        if summary.is_file():
            import pyarrow.parquet as pq

            rows = pq.read_table(summary, columns=["bench_id", "clean"]).to_pylist()
            return CleanLabels(frozenset(r["bench_id"] for r in rows if r["clean"]),
                               frozenset(r["bench_id"] for r in rows), True, public_path(summary))
        clean_tasks = folder / "clean_tasks.txt"
        if not clean_tasks.is_file():
            raise FileNotFoundError(f"{folder}: not an audit folder (no summary.parquet or clean_tasks.txt)")
    path = Path(clean_tasks)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"--clean-tasks {path} is not a text file: give clean_tasks.txt (one task id per line), "
                         "or the audit folder with --audit") from None
    ids = frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))
    return CleanLabels(ids, ids, False, public_path(path))


def _tail(task: str) -> str:
    name = task.rstrip("/").rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".py") else name


def resolve_tasks(tasks: Sequence[str], labels: CleanLabels) -> dict[str, str]:
    """Results task id -> benchmark id (exact, else a unique last-component match)."""
    by_tail: dict[str, list[str]] = {}
    for k in labels.known:
        by_tail.setdefault(_tail(k), []).append(k)
    mapped, unknown, ambiguous = {}, [], []
    for t in tasks:
        if t in labels.known:
            mapped[t] = t
            continue
        hits = by_tail.get(_tail(t), [])
        if len(hits) == 1:
            mapped[t] = hits[0]
        elif len(hits) > 1:
            ambiguous.append(f"{t} ({len(hits)} benchmark ids end so)")
        else:
            unknown.append(t)
    if ambiguous:
        raise JoinError(f"task ids that match several ids of {labels.source}", ambiguous)
    if unknown and labels.complete:
        raise JoinError(f"task ids not found among the audit's benchmark ids ({labels.source})", unknown)
    if not mapped and tasks:
        raise JoinError(f"no task id matches any id in {labels.source} (are these results on that benchmark?)",
                        list(tasks))
    return mapped


@dataclass
class CleanSplit:
    """One model's metric on all, clean and contaminated tasks; ``difference`` = clean − all (for
    speedups, the ratio clean/all) with its interval; ``p_contaminated_higher``: one-sided
    permutation test, contaminated > clean."""

    model: str
    metric: str
    all: Estimate
    clean: Estimate
    contaminated: Estimate
    difference: float
    low: float
    high: float
    p_contaminated_higher: Optional[float]
    n_clean: int
    n_contaminated: int


def split_score(results: ModelResults, metric: Metric, clean_mask: np.ndarray, *, interval: str = "wilson",
                resamples: int = RESAMPLES, confidence: float = CONFIDENCE, seed: int = 0) -> CleanSplit:
    """:class:`CleanSplit` for one model and metric; ``clean_mask`` over ``results.tasks``."""
    from scipy.stats import permutation_test

    clean_tasks = [t for t, c in zip(results.tasks, clean_mask) if c]
    dirty_tasks = [t for t, c in zip(results.tasks, clean_mask) if not c]
    opts = dict(interval=interval, resamples=resamples, confidence=confidence, seed=seed)
    est_all = estimate(results, metric, **opts)
    est_clean = estimate(results.subset(clean_tasks), metric, **opts)
    est_dirty = estimate(results.subset(dirty_tasks), metric, **opts)
    values = metric.per_task(results)
    mask = clean_mask.astype(float)
    speed = metric.kind == "speedup"

    def clean_minus_all(v, m, axis):
        on_clean = np.where(m > 0.5, v, np.nan)
        a, b = metric.aggregate(on_clean, axis), metric.aggregate(v, axis)
        return np.log(a) - np.log(b) if speed else a - b

    have = ~np.isnan(values)
    low = high = float("nan")
    if clean_tasks and have.any():
        low, high, _ = bootstrap_interval((values[have], mask[have]), clean_minus_all, paired=True,
                                          resamples=resamples, confidence=confidence, seed=seed)
        if speed:
            low, high = float(np.exp(low)), float(np.exp(high))
    diff = (est_clean.value / est_all.value if est_all.value else float("nan")) if speed \
        else est_clean.value - est_all.value
    if clean_tasks and have.any():          # the interval contains the difference (intervals.contain)
        low, high = contain(diff, low, high, *((0.0, np.inf) if speed else (-1.0, 1.0)))
    p = None
    dirty_v, clean_v = values[have & ~clean_mask], values[have & clean_mask]
    if dirty_v.size and clean_v.size:
        def higher(x, y, axis):
            a, b = metric.aggregate(x, axis), metric.aggregate(y, axis)
            return np.log(a) - np.log(b) if speed else a - b
        res = permutation_test((dirty_v, clean_v), higher, permutation_type="independent", alternative="greater",
                               n_resamples=max(resamples, 999), vectorized=True, random_state=np.random.default_rng(seed))
        p = float(res.pvalue)
    return CleanSplit(results.model, metric.name, est_all, est_clean, est_dirty, float(diff), float(low),
                      float(high), p, len(clean_tasks), len(dirty_tasks))
