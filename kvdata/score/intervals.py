"""Uncertainty of one model's metric: binomial intervals, the task-level bootstrap, cluster-robust SEs.

- Per-task binaries (``corr@k``, one-attempt rates): Wilson score intervals (statsmodels'
  ``proportion_confint``), Clopper-Pearson (``beta``) as the option. Wilson keeps close to its
  nominal coverage at 31 tasks, where the normal interval does not.
- Everything else (pass@k with several attempts, ``fast_p``, speedups): scipy's BCa bootstrap over
  tasks, since tasks, not attempts, are what a benchmark samples.
- Rates over several attempts per task also get a cluster-robust standard error (statsmodels OLS
  on a constant, clustered by task): attempts of one task are not independent.

Every interval this module returns contains its point estimate and stays inside the metric's
range (:func:`contain`). Mathematically Wilson's upper bound at k = n is 1 and its lower bound at
k = 0 is 0, but statsmodels' closed form computes them as 0.9999999999999999 and 2.8e-17; a
bootstrap's end can likewise miss a point computed by a second, algebraically equal formula by
an ulp. An upper bound below the estimate is a negative error bar, which matplotlib refuses.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Optional

import numpy as np

from kvdata.score.metrics import Metric
from kvdata.score.records import ModelResults

CONFIDENCE = 0.95
RESAMPLES = 2000


@dataclass(frozen=True)
class Estimate:
    """A metric's value over ``n`` tasks, its interval [``low``, ``high``] and how it was computed."""

    value: float
    low: float
    high: float
    method: str
    n: int
    se_cluster: Optional[float] = None     # cluster-robust SE (several attempts per task)

    def as_dict(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high, "method": self.method, "n": self.n,
                "se_cluster": self.se_cluster}


#: how far (relative to the metric's scale) an interval may miss its point before that is more than rounding:
#: beyond it :func:`bootstrap_interval` says in its method that the interval was widened
ROUNDING = 1e-9


def contain(value: float, low: float, high: float, lower: float = -math.inf,
            upper: float = math.inf) -> tuple[float, float]:
    """(low, high) widened to contain ``value`` and clipped to the metric's range [``lower``, ``upper``].

    Floating point puts an exact bound an ulp on the wrong side of the estimate (Wilson's upper
    bound at 100% is 0.9999999999999999): an interval must contain its estimate, and a rate's
    interval must stay in [0, 1]. NaN stays NaN (no value, no interval).
    """
    low, high = float(low), float(high)
    if math.isnan(value) or math.isnan(low) or math.isnan(high):
        return low, high
    low = min(max(low, lower), value)
    high = max(min(high, upper), value)
    return low, high


def binomial_interval(successes: int, n: int, method: str = "wilson",
                      confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson (``wilson``) or Clopper-Pearson (``clopper-pearson``) interval for successes/n, in [0, 1]
    and containing successes/n (:func:`contain`: statsmodels' Wilson gives 0.9999999999999999 at n/n)."""
    from statsmodels.stats.proportion import proportion_confint

    sm_method = {"wilson": "wilson", "clopper-pearson": "beta"}.get(method)
    if sm_method is None:
        raise ValueError(f"unknown interval {method!r}; expected wilson or clopper-pearson")
    if n <= 0:
        return float("nan"), float("nan")
    low, high = proportion_confint(successes, n, alpha=1 - confidence, method=sm_method)
    return contain(successes / n, low, high, 0.0, 1.0)


def bootstrap_interval(data: tuple[np.ndarray, ...], statistic, *, paired: bool = False,
                       resamples: int = RESAMPLES, confidence: float = CONFIDENCE,
                       seed: int = 0) -> tuple[float, float, str]:
    """scipy's BCa bootstrap of ``statistic`` over tasks; (low, high, method).

    Data with no spread (every task the same) has no bootstrap distribution: the interval is the
    point itself, said so in the method. BCa needs a jackknife; when it is undefined (NaN), the
    percentile interval is used instead, also said so. The interval always contains the
    statistic on the data (:func:`contain`); where BCa's ends miss it by more than rounding (a
    skewed handful of tasks), the method says the interval was widened to it.
    """
    from scipy.stats import bootstrap

    point = float(statistic(*data, axis=-1))
    if all(np.nanmax(d) == np.nanmin(d) for d in data if np.isfinite(d).any()) and not paired:
        return point, point, "none (no spread)"
    rng = np.random.default_rng(seed)
    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bootstrap(data, statistic, paired=paired, vectorized=True, n_resamples=resamples,
                            confidence_level=confidence, method=method, random_state=rng)
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if np.isfinite(low) and np.isfinite(high):
            how = f"bootstrap {method} over tasks ({resamples} resamples)"
            if not math.isfinite(point):
                return low, high, how
            slack = ROUNDING * max(1.0, abs(point), high - low)
            if low > point + slack or high < point - slack:
                how += ", widened to contain the estimate"
            return (*contain(point, low, high), how)
    return point, point, "none (degenerate bootstrap)"


def cluster_robust_se(results: ModelResults, field: str) -> Optional[float]:
    """The attempt-level rate's standard error, clustered by task (statsmodels); None for one attempt per task."""
    if results.n_tasks < 2 or int(results.n_attempts.max()) <= 1:
        return None
    import statsmodels.api as sm

    values = getattr(results, field)
    y = np.concatenate([values[i, : n] for i, n in enumerate(results.n_attempts)]).astype(float)
    groups = np.repeat(np.arange(results.n_tasks), results.n_attempts)
    if y.min() == y.max():
        return 0.0
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    return float(fit.bse[0])


def estimate(results: ModelResults, metric: Metric, *, interval: str = "wilson", resamples: int = RESAMPLES,
             confidence: float = CONFIDENCE, seed: int = 0) -> Estimate:
    """The metric for one model with its interval (module docstring for which interval); the interval
    contains the value and stays in the metric's range (rates in [0, 1], speedups above 0)."""
    est = _estimate(results, metric, interval=interval, resamples=resamples, confidence=confidence, seed=seed)
    lower, upper = (0.0, math.inf) if metric.kind == "speedup" else (0.0, 1.0)
    low, high = contain(est.value, est.low, est.high, lower, upper)
    return Estimate(est.value, low, high, est.method, est.n, est.se_cluster)


def _estimate(results: ModelResults, metric: Metric, *, interval: str, resamples: int, confidence: float,
              seed: int) -> Estimate:
    """:func:`estimate` before the interval is made to contain the value."""
    values = metric.per_task(results)
    have = values[~np.isnan(values)]
    n = int(have.size)
    value = float(metric.aggregate(values)) if n else float("nan")
    se = None
    if metric.name in ("compile_rate", "correct_rate"):
        se = cluster_robust_se(results, "compiled" if metric.name == "compile_rate" else "correct")
    if n == 0:
        return Estimate(value, float("nan"), float("nan"), "no tasks with a value", 0, se)
    if metric.kind == "binary":
        low, high = binomial_interval(int(round(have.sum())), n, interval, confidence)
        return Estimate(value, low, high, interval, n, se)
    if metric.kind == "speedup":
        logs = np.log(have)
        low, high, how = bootstrap_interval((logs,), lambda x, axis: np.mean(x, axis=axis),
                                            resamples=resamples, confidence=confidence, seed=seed)
        return Estimate(value, float(np.exp(low)), float(np.exp(high)), how + ", on log speedups", n, se)
    low, high, how = bootstrap_interval((have,), lambda x, axis: np.mean(x, axis=axis), resamples=resamples,
                                        confidence=confidence, seed=seed)
    return Estimate(value, low, high, how, n, se)
