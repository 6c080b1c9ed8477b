"""Comparisons of two models: paired on the same tasks, or unpaired from totals; Holm across a table.

Paired (per-task results of both on the same tasks):

- McNemar's exact test (statsmodels) on every per-task binary metric: only tasks where the two
  disagree carry information about which is better;
- a paired bootstrap (scipy, BCa, tasks resampled jointly) of the difference for every metric
  (for ``geomean_speedup`` the ratio A/B).

Unpaired (``--counts``, published totals only): Fisher's exact test (scipy) and Newcombe's hybrid
score interval for the difference (statsmodels ``confint_proportions_2indep(method="newcomb")``).

Every comparison also says how large a difference it could have found: the minimum detectable
difference at 80% power, two-sided 5%, with these many tasks, and how many tasks a 5-point
difference would need (statsmodels' power solvers: a paired t-test on the per-task differences,
whose spread the data gives, for paired results; Cohen's h between two independent proportions,
at the lower observed rate, for counts).

With few discordant tasks (fewer than :data:`FEW_DISCORDANT`) a comparison's notes say to read
McNemar's exact test rather than the bootstrap interval (see the constant for why 25).
"""
from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

from kvdata.score.intervals import CONFIDENCE, RESAMPLES, bootstrap_interval, contain
from kvdata.score.metrics import Metric
from kvdata.score.records import JoinError, ModelResults

ALPHA = 0.05
POWER = 0.8
TARGET_DIFFERENCE = 0.05
#: Below this many discordant tasks (b + c) the large-sample approximations fail and only the exact test is to
#: be read. statsmodels' ``mcnemar`` documents the chi-square as "the approximation to the distribution of the
#: test statistic for large sample sizes" and the binomial (exact=True) otherwise; the usual rule for "large" is
#: b + c >= 25 (the exact test is recommended when b + c < 25: Wikipedia's McNemar's test article, SPSS's and
#: most calculators' switch). The paired bootstrap of the difference rests on the same normal-theory
#: behaviour of the discordant tasks, so the same count says when its interval is too narrow to trust.
FEW_DISCORDANT = 25
#: relative size under which a standard deviation of per-task differences is floating-point noise, not spread
#: (every task differing by 1/3 gives sd 1.7e-16, for which the power solvers fail to converge)
_NO_SPREAD = 1e-9


@dataclass
class Comparison:
    """A against B on one metric. ``difference`` is A − B (the ratio A/B for speedups);
    ``p_value`` from ``test``; ``p_holm`` after Holm's correction across the table it is in."""

    a: str
    b: str
    metric: str
    paired: bool
    n_tasks: int
    value_a: float
    value_b: float
    difference: float
    low: float
    high: float
    interval: str
    test: Optional[str] = None
    p_value: Optional[float] = None
    p_holm: Optional[float] = None
    significant: Optional[bool] = None
    discordant: Optional[tuple[int, int]] = None       # (tasks only A got, tasks only B got)
    mde: Optional[float] = None                          # minimum detectable difference at 80% power
    tasks_for_5_points: Optional[int] = None
    notes: list[str] = field(default_factory=list)


def check_same_tasks(a: ModelResults, b: ModelResults) -> None:
    """JoinError naming the tasks one model has and the other lacks."""
    only_a, only_b = sorted(set(a.tasks) - set(b.tasks)), sorted(set(b.tasks) - set(a.tasks))
    if only_a or only_b:
        items = [f"{t} (only {a.model})" for t in only_a] + [f"{t} (only {b.model})" for t in only_b]
        raise JoinError(f"{a.model} and {b.model} were not scored on the same tasks "
                        f"(use --on-missing intersect to compare on the shared ones)", items)


def paired_mde(differences: np.ndarray, n: int) -> tuple[Optional[float], Optional[int]]:
    """(minimum detectable mean difference, tasks needed for a 5-point one) for a paired design."""
    differences = differences[~np.isnan(differences)]
    sd = float(np.std(differences, ddof=1)) if differences.size > 1 else 0.0
    scale = max(1.0, float(np.max(np.abs(differences)))) if differences.size else 1.0
    if n < 2 or not math.isfinite(sd) or sd <= _NO_SPREAD * scale:
        return None, None
    return float(_detectable_effect(n) * sd), _tasks_needed(round(TARGET_DIFFERENCE / sd, 6))


@contextlib.contextmanager
def _quiet():
    """A context where statsmodels' solvers do not print ConvergenceWarning (a NaN answer is handled here).

    ``statsmodels.tools.sm_exceptions`` sets ``simplefilter("always", ConvergenceWarning)`` when first
    imported, which the power module does lazily inside the solver: imported first, so that filter lands
    before this context's "ignore" rather than over it."""
    import warnings

    import statsmodels.tools.sm_exceptions  # noqa: F401

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@functools.lru_cache(maxsize=1024)
def _detectable_effect(n: int) -> float:
    """The standardised effect a paired t-test on ``n`` tasks detects at 80% power (statsmodels' solver)."""
    from statsmodels.stats.power import TTestPower

    with _quiet():
        return float(TTestPower().solve_power(effect_size=None, nobs=n, alpha=ALPHA, power=POWER,
                                              alternative="two-sided"))


@functools.lru_cache(maxsize=4096)
def _tasks_needed(effect: float) -> Optional[int]:
    """Tasks a paired t-test needs to detect the standardised ``effect`` at 80% power; None where the solver
    finds none. An effect at least the one two tasks already detect (:func:`_detectable_effect` of 2) has
    no root above 2, where statsmodels warns and returns NaN: the answer is 2, the fewest a t-test takes."""
    from statsmodels.stats.power import TTestPower

    with _quiet():
        nobs = float(TTestPower().solve_power(effect_size=effect, nobs=None, alpha=ALPHA, power=POWER,
                                              alternative="two-sided"))
    if math.isfinite(nobs):
        return int(math.ceil(nobs))
    return 2 if effect >= _detectable_effect(2) else None


def _shift_by_h(p: float, h: float) -> float:
    """The proportion Cohen's h above ``p``."""
    angle = math.asin(math.sqrt(p)) + h / 2
    return 1.0 if angle >= math.pi / 2 else math.sin(angle) ** 2


def unpaired_mde(p_base: float, n1: int, n2: int) -> tuple[Optional[float], Optional[int]]:
    """(minimum detectable difference above ``p_base``, tasks per arm for a 5-point one), two proportions."""
    from statsmodels.stats.power import NormalIndPower

    power = NormalIndPower()
    h = power.solve_power(effect_size=None, nobs1=n1, ratio=n2 / n1, alpha=ALPHA, power=POWER,
                          alternative="two-sided")
    mde = _shift_by_h(p_base, float(h)) - p_base
    target = min(p_base + TARGET_DIFFERENCE, 1.0)
    h5 = 2 * math.asin(math.sqrt(target)) - 2 * math.asin(math.sqrt(p_base))
    needed = power.solve_power(effect_size=h5, nobs1=None, ratio=1.0, alpha=ALPHA, power=POWER,
                               alternative="two-sided") if h5 > 0 else None
    return float(mde), (int(math.ceil(needed)) if needed else None)


def mcnemar_exact(a: np.ndarray, b: np.ndarray) -> tuple[float, tuple[int, int]]:
    """McNemar's exact p-value for paired binaries, and the discordant counts (A only, B only)."""
    from statsmodels.stats.contingency_tables import mcnemar

    a, b = a.astype(bool), b.astype(bool)
    table = [[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]]
    result = mcnemar(table, exact=True)
    return float(result.pvalue), (table[0][1], table[1][0])


def compare_paired(a: ModelResults, b: ModelResults, metric: Metric, *, resamples: int = RESAMPLES,
                   confidence: float = CONFIDENCE, seed: int = 0) -> Comparison:
    """A against B on the same tasks (module docstring)."""
    check_same_tasks(a, b)
    b = b.subset(a.tasks)
    order = {t: i for i, t in enumerate(b.tasks)}
    idx = [order[t] for t in a.tasks]
    va, vb = metric.per_task(a), metric.per_task(b)[idx]
    agg_a, agg_b = float(metric.aggregate(va)), float(metric.aggregate(vb))
    if metric.kind == "speedup":
        def statistic(x, y, axis):
            return np.log(metric.aggregate(x, axis)) - np.log(metric.aggregate(y, axis))
        point = agg_a / agg_b if agg_b else float("nan")
    else:
        def statistic(x, y, axis):
            return metric.aggregate(x, axis) - metric.aggregate(y, axis)
        point = agg_a - agg_b
    both = ~np.isnan(va) | ~np.isnan(vb)
    low, high, how = bootstrap_interval((va[both], vb[both]), statistic, paired=True, resamples=resamples,
                                        confidence=confidence, seed=seed)
    if metric.kind == "speedup":
        low, high, how = math.exp(low), math.exp(high), how + ", ratio A/B"
        low, high = contain(point, low, high, 0.0)
    else:
        low, high = contain(point, low, high, -1.0, 1.0)
    out = Comparison(a.model, b.model, metric.name, True, len(a.tasks), agg_a, agg_b, point, low, high,
                     "paired " + how)
    if metric.kind == "binary":
        out.test = "McNemar exact"
        out.p_value, out.discordant = mcnemar_exact(va, vb)
        out.notes.extend(discordant_notes(sum(out.discordant), low, high, out.p_value))
    if metric.kind != "speedup":
        out.mde, out.tasks_for_5_points = paired_mde(va - vb, len(a.tasks))
        if out.mde is None:
            same = "agree on" if np.array_equal(va, vb, equal_nan=True) else "differ by the same amount on"
            out.notes.append(f"the two {same} every task: no spread to size a difference against")
    return out


def discordant_notes(discordant: int, low: float, high: float, p_value: float) -> list[str]:
    """What to say about a paired binary comparison with ``discordant`` tasks where the two differ.

    Fewer than :data:`FEW_DISCORDANT`: the bootstrap interval is too narrow, read McNemar's exact
    test (whether or not the two agree here). More, but the interval and the test disagree at 5%:
    a borderline result, with no claim that the tasks are few.
    """
    excludes_zero = low > 0 or high < 0
    if 0 < discordant < FEW_DISCORDANT:
        agree = "" if excludes_zero == (p_value < ALPHA) else (
            f" (here they disagree: the interval {'excludes' if excludes_zero else 'includes'} 0, "
            f"McNemar p = {p_value:.3g})")
        return [f"only {discordant} discordant tasks (fewer than {FEW_DISCORDANT}); with so few, the paired "
                f"bootstrap interval is too narrow and McNemar's exact test is the one to read{agree}"]
    if discordant >= FEW_DISCORDANT and excludes_zero != (p_value < ALPHA):
        return [f"borderline at 5%: the bootstrap interval and McNemar's exact test (p = {p_value:.3g}) "
                f"disagree on {discordant} discordant tasks; report the exact test"]
    return []


def compare_counts(a: ModelResults, b: ModelResults, confidence: float = CONFIDENCE) -> Comparison:
    """A against B from totals only (``--counts``): Fisher's exact test and Newcombe's interval."""
    from scipy.stats import fisher_exact
    from statsmodels.stats.proportion import confint_proportions_2indep

    ka, na = int(a.correct[:, 0].sum()), a.n_tasks
    kb, nb = int(b.correct[:, 0].sum()), b.n_tasks
    pa, pb = ka / na, kb / nb
    p = float(fisher_exact([[ka, na - ka], [kb, nb - kb]], alternative="two-sided").pvalue)
    low, high = confint_proportions_2indep(ka, na, kb, nb, method="newcomb", compare="diff", alpha=1 - confidence)
    low, high = contain(pa - pb, low, high, -1.0, 1.0)
    out = Comparison(a.model, b.model, "correct", False, min(na, nb), pa, pb, pa - pb, low, high,
                     "Newcombe hybrid score", test="Fisher exact", p_value=p)
    out.mde, out.tasks_for_5_points = unpaired_mde(min(pa, pb), na, nb)
    if na == nb:
        out.notes.append("totals only: if both ran the same tasks, per-task results would allow the paired "
                         "(McNemar) test, which is usually more powerful")
    return out


def holm(comparisons: Sequence[Comparison], alpha: float = ALPHA) -> None:
    """Holm-adjust the p-values of one table of comparisons in place (statsmodels ``multipletests``)."""
    from statsmodels.stats.multitest import multipletests

    tested = [c for c in comparisons if c.p_value is not None]
    if not tested:
        return
    reject, adjusted, _, _ = multipletests([c.p_value for c in tested], alpha=alpha, method="holm")
    for c, r, p in zip(tested, reject, adjusted):
        c.p_holm, c.significant = float(p), bool(r)
