"""``run_audit``: benchmark items + training rows -> scored pairs, coverage, and the outputs people act on.

The measures are steps (:mod:`kvdata.audit.steps`) over one shared context, run in order: lexical, semantic,
structural, kernel, behavioural. Then two small steps: fill in the lexical and structural values of pairs found
only by another measure, and flag (:func:`kvdata.audit.pairs.flag_pair`). :mod:`kvdata.audit.outputs` writes
``pairs.parquet``, ``summary.parquet``, ``coverage.parquet``, ``train_decontaminated.parquet`` and
``clean_tasks.txt``; :mod:`kvdata.audit.report` the report.
"""
from __future__ import annotations

import logging
import math
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional, Sequence

from kvdata.audit.benchmarks import BenchmarkItem
from kvdata.audit.coverage import CoverageTable
from kvdata.audit.lexical import pair_scores
from kvdata.audit.normalize import strip_comments
from kvdata.audit.outputs import summary_rows, write_outputs
from kvdata.audit.pairs import PairScores, Thresholds, flag_pair
from kvdata.audit.steps import MEASURES, STEPS, AuditContext, AuditOptions, SemanticStep, StructuralStep, lexical_pairs
from kvdata.audit.training import TrainingRows

log = logging.getLogger(__name__)

__all__ = ["MEASURES", "AuditOptions", "AuditResult", "run_audit", "lexical_pairs", "write_outputs",
           "summary_rows"]


@dataclass
class AuditResult:
    """Everything an audit found; ``notes`` says which measures ran and why any were skipped."""

    bench: list[BenchmarkItem]
    train: TrainingRows
    pairs: list[PairScores]
    thresholds: Thresholds
    measures_run: list[str]
    notes: list[str] = field(default_factory=list)
    coverage: CoverageTable = field(default_factory=CoverageTable)
    seconds: dict[str, float] = field(default_factory=dict)   # wall time of each measure's step
    outputs: dict[str, Path] = field(default_factory=dict)
    interrupted: Optional[str] = None    # the step a Ctrl-C stopped: pairs and coverage hold what came before

    @property
    def flagged(self) -> list[PairScores]:
        return [p for p in self.pairs if p.flagged]

    def flagged_train_ids(self) -> set[str]:
        return {p.train_id for p in self.flagged}

    def clean_bench_ids(self) -> list[str]:
        dirty = {p.bench_id for p in self.flagged}
        return [it.id for it in self.bench if it.id not in dirty]


def run_audit(bench: list[BenchmarkItem], train: TrainingRows, *, measures: Sequence[str] = MEASURES,
              thresholds: Optional[Thresholds] = None, options: Optional[AuditOptions] = None,
              progress: bool = True, **overrides) -> AuditResult:
    """Score every benchmark item against the training rows with the chosen measures, and flag pairs.

    ``options`` (an :class:`AuditOptions`) or keyword overrides of its fields (``cache_dir``, ``workers``,
    ``executor``, ``semantic_model``, ``device``, ...) configure the run. A measure whose dependencies are
    missing, or that fails as a whole, is skipped and ``notes`` says so; the other measures' results are kept.
    """
    unknown = set(measures) - set(MEASURES)
    if unknown:
        raise ValueError(f"unknown measure(s) {sorted(unknown)}; expected some of {', '.join(MEASURES)}")
    if not bench:
        raise ValueError("no benchmark items to audit")
    bad = [k for k in overrides if k not in AuditOptions.__dataclass_fields__]
    if bad:
        raise TypeError(f"run_audit() got unknown option(s) {bad}")
    base = options or AuditOptions()
    opts = replace(base, measures=tuple(measures), thresholds=thresholds or base.thresholds, progress=progress,
                   **overrides)
    ctx = AuditContext(bench, train, opts)
    ctx.coverage.add_side("bench", [it.id for it in bench])
    ctx.coverage.add_side("train", train.ids)
    seconds: dict[str, float] = {}
    interrupted = None
    for step in STEPS:
        if step.name not in opts.measures:
            continue
        started = time.perf_counter()
        try:
            step.run(ctx)
            ctx.measures_run.append(step.name)
        except KeyboardInterrupt:
            # Ctrl-C: keep what the steps so far found (the caches keep every embedding, trace and probe that
            # finished), so the caller can write it and a rerun with the same cache picks up where this stopped
            interrupted = step.name
            ctx.notes.append(f"interrupted during {step.name}: the results hold the measures before it; rerun "
                             "with the same --cache-dir to continue")
            seconds[step.name] = time.perf_counter() - started
            break
        except ImportError as exc:
            ctx.notes.append(f"{step.name} measure skipped: a dependency is missing ({exc})")
        except ConnectionError:         # a model that cannot be fetched: the user's setting, said at once
            raise
        except Exception as exc:  # one measure failing must not lose the others' results
            log.warning("%s measure failed: %s", step.name, exc, exc_info=bool(os.environ.get("KVDATA_DEBUG")))
            ctx.notes.append(f"{step.name} measure skipped: {type(exc).__name__}: {exc}")
        finally:
            seconds[step.name] = time.perf_counter() - started
    _fill_lexical(ctx)
    if "semantic" in ctx.measures_run:
        SemanticStep.fill(ctx)
    if "structural" in ctx.measures_run:
        StructuralStep.fill(ctx, list(ctx.pairs.values()))
    flagged = [flag_pair(p, opts.thresholds) for p in ctx.pairs.values()]
    flagged.sort(key=lambda p: (p.bench_id, -p.best(), p.train_id))
    return AuditResult(bench, train, flagged, opts.thresholds, ctx.measures_run, ctx.notes, ctx.coverage, seconds,
                       interrupted=interrupted)


def _fill_lexical(ctx: AuditContext) -> None:
    """Exact lexical values for pairs another measure found (few pairs; each training row normalised once)."""
    if "lexical" not in ctx.measures_run:
        return
    todo = [p for p in ctx.pairs.values() if math.isnan(p.jaccard) or math.isnan(p.containment)]
    if not todo:
        return
    b_index = {it.id: i for i, it in enumerate(ctx.bench)}
    t_index = {t: i for i, t in enumerate(ctx.train.ids)}
    bench_text = [strip_comments(it.code) for it in ctx.bench]
    rows = sorted({t_index[p.train_id] for p in todo})
    train_text = dict(zip(rows, (strip_comments(ctx.train.code[r]) for r in rows)))
    jac, con = pair_scores(bench_text, train_text, [(b_index[p.bench_id], t_index[p.train_id]) for p in todo],
                           rename_identifiers=ctx.options.rename_identifiers)
    for p, j, c in zip(todo, jac.tolist(), con.tolist()):
        if math.isnan(p.jaccard):
            p.jaccard = j
        if math.isnan(p.containment):
            p.containment = c

