"""The metrics of kernel generation, each as per-task values plus how they aggregate.

A metric is a function of a model's results that gives one value per task (NaN where the task
has none, e.g. a speedup of a task nothing solved), and an aggregate over tasks. Keeping the
per-task values is what lets one bootstrap, one paired comparison and one clean-subset
re-scoring serve every metric: tasks are the unit of sampling.

- ``compile_rate``, ``correct_rate``: share of attempts that compiled / were correct (per task:
  the task's share; with one attempt per task, a per-task binary).
- ``pass@k``: the unbiased estimator of Chen et al. (2021), ``1 - C(n-c, k) / C(n, k)`` per task
  with ``n`` attempts of which ``c`` are correct, for every ``k`` up to the fewest attempts any
  task has.
- ``corr@k``, ``comp@k``: any of the first ``k`` attempts correct / compiled (the AMDKernelVault
  paper's Corr@k and Comp@k): a per-task binary.
- ``fast_p``: correct and faster than ``p`` times the reference (KernelBench's ``fast_p``, strict
  ``>``), for p = 1, 1.5, 2: per task the share of attempts that are.
- ``geomean_speedup``: the geometric mean, over tasks with a timed correct attempt, of each task's
  geometric-mean speedup.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Callable

import numpy as np

from kvdata.score.records import ModelResults

FAST_P = (1.0, 1.5, 2.0)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate for one task: ``n`` attempts, ``c`` correct (Chen et al. 2021)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


@dataclass(frozen=True)
class Metric:
    """``name``; ``kind``: ``binary`` (per-task 0/1: Wilson / Clopper-Pearson, McNemar), ``share``
    (per-task values in [0, 1]: bootstrap) or ``speedup`` (positive; aggregated geometrically);
    ``per_task``: results -> one value per task (NaN: no value for that task)."""

    name: str
    kind: str
    per_task: Callable[[ModelResults], np.ndarray]
    description: str

    def aggregate(self, values: np.ndarray, axis: int = -1) -> np.ndarray:
        """The metric over tasks from per-task values (NaN values are left out); vectorised over ``axis``."""
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.kind == "speedup":
                return np.exp(_nanmean(np.log(values), axis))
            return _nanmean(values, axis)


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    ok = ~np.isnan(values)
    n = ok.sum(axis=axis)
    total = np.where(ok, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def _rate(field: str) -> Callable[[ModelResults], np.ndarray]:
    def per_task(r: ModelResults) -> np.ndarray:
        hits = getattr(r, field).sum(axis=1)
        return hits / r.n_attempts
    return per_task


def _pass_k(k: int) -> Callable[[ModelResults], np.ndarray]:
    def per_task(r: ModelResults) -> np.ndarray:
        correct = r.correct.sum(axis=1)
        return np.array([pass_at_k(int(n), int(c), k) for n, c in zip(r.n_attempts, correct)], float)
    return per_task


def _any_of_k(field: str, k: int) -> Callable[[ModelResults], np.ndarray]:
    def per_task(r: ModelResults) -> np.ndarray:
        return getattr(r, field)[:, :k].any(axis=1).astype(float)
    return per_task


def _fast(p: float) -> Callable[[ModelResults], np.ndarray]:
    def per_task(r: ModelResults) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            fast = r.correct & (np.nan_to_num(r.speedup, nan=0.0) > p)
        return fast.sum(axis=1) / r.n_attempts
    return per_task


def _geomean_speedup(r: ModelResults) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        logs = np.log(r.speedup)
    return np.exp(_nanmean(logs, axis=1))


def metrics_for(results: ModelResults) -> list[Metric]:
    """Every metric these results support, in report order (published totals: just ``correct``)."""
    if results.counts_only:
        return [Metric("correct", "binary", _rate("correct"), "published total: tasks passed of tasks")]
    single = bool(results.n_tasks) and int(results.n_attempts.max()) == 1
    rate_kind = "binary" if single else "share"
    out = [Metric("compile_rate", rate_kind, _rate("compiled"), "share of attempts that compiled and ran"),
           Metric("correct_rate", rate_kind, _rate("correct"), "share of attempts that were correct")]
    kmax = results.min_attempts
    for k in range(1, kmax + 1):
        out.append(Metric(f"pass@{k}", "binary" if single else "share", _pass_k(k),
                          f"unbiased pass@{k} (Chen et al. 2021)"))
    for k in range(1, kmax + 1):
        out.append(Metric(f"corr@{k}", "binary", _any_of_k("correct", k), f"any of the first {k} attempts correct"))
    for k in range(1, kmax + 1):
        out.append(Metric(f"comp@{k}", "binary", _any_of_k("compiled", k), f"any of the first {k} attempts compiled"))
    if np.isfinite(results.speedup).any():
        for p in FAST_P:
            out.append(Metric(f"fast_{p:g}", "binary" if single else "share", _fast(p),
                              f"correct and more than {p:g}x faster than the reference"))
        out.append(Metric("geomean_speedup", "speedup", _geomean_speedup,
                          "geometric-mean speedup over tasks with a timed correct attempt"))
    return out


def common_metrics(*results: ModelResults) -> list[Metric]:
    """The metrics every one of ``results`` supports (pass@k up to the fewest attempts of any); a
    metric is ``binary`` only when it is for every model (one attempt per task everywhere)."""
    per_model = [{m.name: m for m in metrics_for(r)} for r in results]
    if not per_model:
        return []
    out = []
    for name, metric in per_model[0].items():
        if not all(name in ms for ms in per_model):
            continue
        kinds = {ms[name].kind for ms in per_model}
        kind = metric.kind if len(kinds) == 1 else "share"
        out.append(Metric(name, kind, metric.per_task, metric.description))
    return out
