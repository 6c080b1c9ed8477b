"""``score``: attempts (and published totals) in, a :class:`ScoreReport` out.

Steps, each its own function: group attempts by model (``records.by_model``); map task ids to the
audit's (``clean.resolve_tasks``); estimate every metric with its interval (``intervals``);
compare pairs of models (``compare``), Holm-adjusting each metric's table; re-score on clean and
contaminated tasks (``clean``). Printing and files are the report module's and the CLI's.
"""
from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field
from typing import Optional, Sequence

import numpy as np

from kvdata.score.clean import CleanLabels, CleanSplit, resolve_tasks, split_score
from kvdata.score.compare import Comparison, compare_counts, compare_paired, holm
from kvdata.score.intervals import CONFIDENCE, RESAMPLES, Estimate, estimate
from kvdata.score.metrics import common_metrics, metrics_for
from kvdata.score.records import Attempt, Counts, JoinError, ModelResults, by_model


@dataclass
class ScoreSettings:
    interval: str = "wilson"          # or clopper-pearson
    confidence: float = CONFIDENCE
    resamples: int = RESAMPLES
    seed: int = 0
    on_missing: str = "error"         # or intersect: compare on the tasks both models have


@dataclass
class ModelScore:
    model: str
    n_tasks: int
    attempts_per_task: tuple[int, int]          # (fewest, most)
    metrics: dict[str, Estimate]
    counts_only: bool = False


@dataclass
class ScoreReport:
    settings: ScoreSettings
    models: list[ModelScore]
    comparisons: dict[str, list[Comparison]]    # metric -> the table of comparisons (Holm within it)
    clean: list[CleanSplit] = field(default_factory=list)
    clean_comparisons: dict[str, list[Comparison]] = field(default_factory=dict)   # the same, on clean tasks
    dropped_tasks: list[str] = field(default_factory=list)      # --on-missing intersect: tasks not all models have
    clean_source: Optional[str] = None
    task_mapping: dict[str, str] = field(default_factory=dict)   # results id -> audit id, where they differ
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


def _map_tasks(results: dict[str, ModelResults], labels: CleanLabels) -> dict[str, str]:
    every = sorted({t for r in results.values() if not r.counts_only for t in r.tasks})
    mapping = resolve_tasks(every, labels)
    for name, r in results.items():
        if r.counts_only:
            continue
        new = [mapping.get(t, t) for t in r.tasks]
        if len(set(new)) != len(new):
            dup = sorted({t for t in new if new.count(t) > 1})
            raise JoinError(f"{name}: several task ids map to one audit id", dup)
        order = np.argsort(new, kind="stable")
        results[name] = ModelResults(r.model, [new[i] for i in order], r.n_attempts[order], r.compiled[order],
                                     r.correct[order], r.speedup[order])
    return {k: v for k, v in mapping.items() if k != v}


def _intersect(results: dict[str, ModelResults], report: ScoreReport) -> dict[str, ModelResults]:
    """Every model on the tasks all of them have (``--on-missing intersect``); the rest are listed."""
    real = [r for r in results.values() if not r.counts_only]
    if len(real) < 2:
        return results
    shared = set.intersection(*(set(r.tasks) for r in real))
    report.dropped_tasks = sorted(set().union(*(set(r.tasks) for r in real)) - shared)
    if report.dropped_tasks:
        report.notes.append(f"--on-missing intersect: {len(report.dropped_tasks)} tasks not every model has are "
                            f"left out of every table ({', '.join(report.dropped_tasks[:8])}"
                            f"{', ...' if len(report.dropped_tasks) > 8 else ''}); {len(shared)} tasks scored")
    return {k: (v if v.counts_only else v.subset(shared)) for k, v in results.items()}


def _pairs(names: Sequence[str], pairs: Optional[Sequence[tuple[str, str]]]) -> list[tuple[str, str]]:
    if pairs is None:
        return list(itertools.combinations(names, 2))
    unknown = sorted({n for p in pairs for n in p} - set(names))
    if unknown:
        raise JoinError(f"--compare names models that are not in the results (have {', '.join(names)})", unknown)
    return list(pairs)


def score(attempts: Sequence[Attempt] = (), counts: Sequence[Counts] = (), *,
          pairs: Optional[Sequence[tuple[str, str]]] = None, labels: Optional[CleanLabels] = None,
          settings: Optional[ScoreSettings] = None, progress: bool = False) -> ScoreReport:
    """Score every model, compare the pairs (default: every pair), and re-score on clean tasks."""
    from tqdm.auto import tqdm

    settings = settings or ScoreSettings()
    results = by_model(attempts)
    for c in counts:
        if c.model in results:
            raise JoinError("a model given both as results and as --counts", [c.model])
        results[c.model] = c.as_results()
    if not results:
        raise ValueError("nothing to score: give results files or --counts")
    report = ScoreReport(settings, [], {})
    opts = dict(resamples=settings.resamples, confidence=settings.confidence, seed=settings.seed)
    if labels is not None:
        report.clean_source = labels.source
        report.task_mapping = _map_tasks(results, labels)
    if settings.on_missing == "intersect":
        results = _intersect(results, report)
    names = list(results)
    work = sum(len(metrics_for(r)) for r in results.values())
    bar = tqdm(total=work, desc="score: intervals", unit="metric", disable=not progress)
    for name in names:
        r = results[name]
        est = {}
        for m in metrics_for(r):
            est[m.name] = estimate(r, m, interval=settings.interval, **opts)
            bar.update()
        report.models.append(ModelScore(name, r.n_tasks, (r.min_attempts, int(r.n_attempts.max())), est, r.counts_only))
    bar.close()

    chosen = _pairs(names, pairs)
    for a_name, b_name in tqdm(chosen, desc="score: comparisons", unit="pair", disable=not progress):
        a, b = results[a_name], results[b_name]
        if a.counts_only or b.counts_only:
            report.comparisons.setdefault("correct", []).append(compare_counts(a, b, settings.confidence))
            continue
        for m in common_metrics(a, b):
            report.comparisons.setdefault(m.name, []).append(compare_paired(a, b, m, **opts))
    for table in report.comparisons.values():
        holm(table)

    if labels is not None:
        scored = {t for r in results.values() if not r.counts_only for t in r.tasks}
        unscored = sorted(labels.clean - scored)
        if unscored:
            report.notes.append(f"{len(unscored)} clean ids of {labels.source} have no results (e.g. "
                                f"{', '.join(unscored[:5])}): the results cover part of the audited benchmark")
        for a_name, b_name in chosen:
            a, b = results[a_name], results[b_name]
            if a.counts_only or b.counts_only:
                continue
            ca = a.subset([t for t in a.tasks if t in labels.clean])
            cb = b.subset([t for t in b.tasks if t in labels.clean])
            if ca.n_tasks == 0:
                continue
            for m in common_metrics(ca, cb):
                report.clean_comparisons.setdefault(m.name, []).append(compare_paired(ca, cb, m, **opts))
        for table in report.clean_comparisons.values():
            holm(table)
        for name in names:
            r = results[name]
            if r.counts_only:
                continue
            mask = np.array([t in labels.clean for t in r.tasks])
            if mask.all() or not mask.any():
                report.notes.append(f"{name}: {'every' if mask.all() else 'no'} task is clean; "
                                    f"nothing to split")
            for m in tqdm(metrics_for(r), desc=f"score: clean split {name}", disable=not progress):
                report.clean.append(split_score(r, m, mask, interval=settings.interval, **opts))
    return report
