"""Write a :class:`~kvdata.score.scoring.ScoreReport`: ``score.json`` for scripts, ``report.md`` and
``report.html`` (one models × metrics table of values with intervals, one table of comparisons, the
clean split), and ``forest.png``: each model's headline metrics with their intervals, all tasks and
clean tasks side by side, at most a page wide (templates ``cards/score_report.{md,html}.j2``)."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Optional

from kvdata.score.scoring import ScoreReport
from kvdata.cards import template

#: metrics the forest plot and the terminal line show, in this order, when the results have them
HEADLINE = ("correct_rate", "corr@3", "comp@3", "fast_1", "geomean_speedup")   # pass@1 is correct_rate (per task)


def _fmt(x: Optional[float], pct: bool = True) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    text = f"{100 * x:.1f}" if pct else f"{x:.2f}"
    return text[1:] if text in ("-0.0", "-0.00") else text      # a difference of -1e-17 is no difference


def _fmt_p(p: Optional[float]) -> str:
    if p is None:
        return "–"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def headline(report: ScoreReport) -> list[str]:
    """The metrics shown first: the ``HEADLINE`` ones present, else the first three."""
    present = list(dict.fromkeys(n for m in report.models for n in m.metrics))
    chosen = [n for n in HEADLINE if n in present]
    return chosen or present[:3]


def terminal_lines(report: ScoreReport) -> list[str]:
    """One line per model: its headline metrics with 95% intervals."""
    lines = []
    for m in report.models:
        parts = []
        for name in headline(report):
            e = m.metrics.get(name)
            if e is None:
                continue
            pct = name != "geomean_speedup"
            unit = "%" if pct else "x"
            parts.append(f"{name} {_fmt(e.value, pct)}{unit} [{_fmt(e.low, pct)}, {_fmt(e.high, pct)}]")
        lo, hi = m.attempts_per_task
        att = f"{lo}" if lo == hi else f"{lo}-{hi}"
        lines.append(f"{m.model}: {m.n_tasks} tasks x {att} attempts{' (totals only)' if m.counts_only else ''}; "
                     + "; ".join(parts))
    return lines


#: the forest plot fits a page: at most this wide (inches) at this resolution, so at most 750 pixels
FOREST_WIDTH_IN = 7.5
FOREST_DPI = 100
#: a model name on the plot's axis: wrapped at this many characters, at most this many lines (then "…")
LABEL_CHARS = 16
LABEL_LINES = 2


def _label(name: str) -> str:
    """A model name for the plot's axis: wrapped to ``LABEL_LINES`` lines of ``LABEL_CHARS``; a longer one
    keeps its start and its end around "…" (names of one family differ at the end: ``...-sft`` and
    ``...-sft-rl``), so a 40-character name does not take a third of the figure's width from the panels."""
    import textwrap

    wrapped = textwrap.wrap(name, LABEL_CHARS, break_long_words=True, break_on_hyphens=True) or [name]
    if len(wrapped) <= LABEL_LINES:
        return "\n".join(wrapped)
    head = [name[i * LABEL_CHARS: (i + 1) * LABEL_CHARS] for i in range(LABEL_LINES - 1)]
    return "\n".join(head + ["…" + name[-(LABEL_CHARS - 1):]])


def _xerr(value: float, low: float, high: float) -> list[list[float]]:
    """Matplotlib's asymmetric error in points, never negative (matplotlib refuses a negative bar; the
    estimates' intervals contain their values already, this keeps the plot safe from any that do not)."""
    return [[max(0.0, 100 * (value - low))], [max(0.0, 100 * (high - value))]]


def _plottable(value: float, low: float, high: float) -> bool:
    return all(isinstance(x, (int, float)) and math.isfinite(x) for x in (value, low, high))


def forest_plot(report: ScoreReport, path: Path) -> Optional[Path]:
    """Each model's headline metrics with intervals; with a clean split, all and clean tasks side by side.

    The figure is ``FOREST_WIDTH_IN`` inches wide at ``FOREST_DPI`` (a page's width): the panels
    sit two to a row, model names are wrapped and cut (``_label``), and the height grows with
    the models.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in headline(report) if n != "geomean_speedup"]
    if not names:
        return None
    clean = {(c.model, c.metric): c for c in report.clean}
    n_models = len(report.models)
    ncols = min(2, len(names))
    nrows = math.ceil(len(names) / ncols)
    panel_h = 0.32 * n_models + 0.9
    legend_h = 0.35 if report.clean else 0.0
    fig_h = nrows * panel_h + legend_h + 0.2
    fig, axes = plt.subplots(nrows, ncols, figsize=(FOREST_WIDTH_IN, fig_h), sharey=True, squeeze=False)
    flat = list(axes.ravel())
    for ax, metric in zip(flat, names):
        for row, model in enumerate(report.models):
            est = model.metrics.get(metric)
            if est is None or not _plottable(est.value, est.low, est.high):
                continue
            y = n_models - 1 - row
            ax.errorbar([100 * est.value], [y + 0.12], xerr=_xerr(est.value, est.low, est.high),
                        fmt="o", color="C0", capsize=3, label="all tasks")
            c = clean.get((model.model, metric))
            if c is not None and _plottable(c.clean.value, c.clean.low, c.clean.high):
                ax.errorbar([100 * c.clean.value], [y - 0.12], xerr=_xerr(c.clean.value, c.clean.low, c.clean.high),
                            fmt="s", color="C2", capsize=3, label="clean tasks")
        ax.set_title(metric, fontsize=10)
        ax.set_xlabel(f"% ({round(100 * report.settings.confidence)}% interval)", fontsize=8)
        ax.set_xlim(-3, 103)             # a point at 0% or 100% shows whole
        ax.set_xticks(range(0, 101, 20))
        ax.tick_params(labelsize=8)
        ax.grid(axis="x", alpha=0.3)
    for ax in flat[len(names):]:
        ax.set_visible(False)
    first = flat[0]
    first.set_yticks(range(n_models))
    first.set_yticklabels([_label(m.model) for m in reversed(report.models)])
    first.set_ylim(-0.6, n_models - 0.4)
    if report.clean:
        seen: dict[str, object] = {}
        for ax in flat[: len(names)]:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                seen.setdefault(label, handle)
        fig.legend(list(seen.values()), list(seen), loc="lower center", ncol=2, fontsize=8, frameon=False)
        fig.tight_layout(rect=(0, legend_h / fig_h, 1, 1))
    else:
        fig.tight_layout()
    fig.savefig(path, dpi=FOREST_DPI)       # no bbox_inches="tight": the saved size is the figure's size
    plt.close(fig)
    return path


def _cell(e, pct: bool, n_tasks: int) -> str:
    """One table cell: ``value [low, high]`` (× for speedups), ``(n = …)`` where fewer tasks have a value."""
    if e is None:
        return "–"
    text = f"{_fmt(e.value, pct)}{'' if pct else '×'} [{_fmt(e.low, pct)}, {_fmt(e.high, pct)}]"
    return text + (f" (n = {e.n})" if e.n != n_tasks else "")


def metrics_table(report: ScoreReport) -> dict:
    """The one models × metrics table: ``header`` and ``rows`` of cells, each the value and its interval.

    Metrics are the rows and models the columns when there are more metrics than models (two
    models and thirteen metrics stay three columns wide), models the rows otherwise (eleven
    published totals of one metric); ``n_note``: some cell has fewer tasks than its model.
    """
    names = list(dict.fromkeys(n for m in report.models for n in m.metrics))
    cells = {(m.model, n): _cell(m.metrics.get(n), n != "geomean_speedup", m.n_tasks)
             for m in report.models for n in names}
    models = [m.model for m in report.models]
    if len(names) > len(models):
        header = ["metric", *models]
        rows = [[n, *(cells[(m, n)] for m in models)] for n in names]
    else:
        header = ["model", *names]
        rows = [[m, *(cells[(m, n)] for n in names)] for m in models]
    n_note = any(e.n != m.n_tasks for m in report.models for e in m.metrics.values())
    return {"header": header, "rows": rows, "n_note": n_note}


def _method_lines(report: ScoreReport) -> list[str]:
    """Which interval each metric has, grouped by method ("wilson: corr@1, corr@2, ..."), then, per model,
    the metrics whose tasks all had one value (a bootstrap has nothing to resample: the interval is the
    value). A metric whose method still differs between models is listed with each model."""
    names = list(dict.fromkeys(n for m in report.models for n in m.metrics))
    by_method: dict[str, list[str]] = {}
    flat: dict[str, list[str]] = {}
    for n in names:
        methods = {}
        for m in report.models:
            e = m.metrics.get(n)
            if e is None:
                continue
            if e.method.startswith("none"):
                flat.setdefault(m.model, []).append(n)
            else:
                methods[m.model] = e.method
        if len(set(methods.values())) == 1:
            by_method.setdefault(next(iter(methods.values())), []).append(n)
        else:
            for model, how in methods.items():
                by_method.setdefault(how, []).append(f"{n} ({model})")
    lines = [f"{how}: {', '.join(items)}" for how, items in by_method.items()]
    lines += [f"{model}: every task has the same value on {', '.join(items)} (nothing to resample: the interval "
              f"is the value)" for model, items in flat.items()]
    return lines


def _se_lines(report: ScoreReport) -> list[str]:
    """The cluster-robust standard errors (several attempts per task), one line per model that has any."""
    out = []
    for m in report.models:
        ses = [f"{n} {_fmt(e.se_cluster)}" for n, e in m.metrics.items() if e.se_cluster is not None]
        if ses:
            out.append(f"{m.model}: cluster-robust SE by task, points: {', '.join(ses)}")
    return out


def _verdict(c, pct: bool) -> str:
    """Holm's verdict where there is a test; else whether the interval excludes no difference (0, or 1 for a
    ratio of speedups)."""
    if c.significant is not None:
        return "different at 5% (Holm)" if c.significant else "not shown at 5%"
    null = 0.0 if pct else 1.0
    return f"interval excludes {null:g}" if (c.low > null or c.high < null) else "–"


def _comparison_rows(tables: dict) -> list[dict]:
    """Every comparison as a row of one table, metric by metric (Holm stays within each metric's pairs)."""
    rows = []
    for name, table in tables.items():
        pct = name != "geomean_speedup"
        for c in table:
            rows.append({
                "metric": name, "pair": f"{c.a} vs {c.b}", "design": "paired" if c.paired else "totals",
                "n": c.n_tasks, "a": _fmt(c.value_a, pct), "b": _fmt(c.value_b, pct), "diff": _fmt(c.difference, pct),
                "low": _fmt(c.low, pct), "high": _fmt(c.high, pct), "test": c.test or "–", "p": _fmt_p(c.p_value),
                "p_holm": _fmt_p(c.p_holm),
                "verdict": _verdict(c, pct),
                "discordant": "–" if c.discordant is None else f"{c.discordant[0]} / {c.discordant[1]}",
                "mde": _fmt(c.mde, pct), "n5": c.tasks_for_5_points or "–", "notes": list(c.notes)})
    return rows


def _context(report: ScoreReport, plot: Optional[str]) -> dict:
    clean = [{"model": c.model, "metric": c.metric, "pct": c.metric != "geomean_speedup",
              "all": _fmt(c.all.value, c.metric != "geomean_speedup"),
              "clean": _fmt(c.clean.value, c.metric != "geomean_speedup"),
              "clean_ci": f"[{_fmt(c.clean.low, c.metric != 'geomean_speedup')}, {_fmt(c.clean.high, c.metric != 'geomean_speedup')}]",
              "dirty": _fmt(c.contaminated.value, c.metric != "geomean_speedup"),
              "diff": _fmt(c.difference, c.metric != "geomean_speedup"),
              "diff_ci": f"[{_fmt(c.low, c.metric != 'geomean_speedup')}, {_fmt(c.high, c.metric != 'geomean_speedup')}]",
              "p": _fmt_p(c.p_contaminated_higher), "n_clean": c.n_clean, "n_dirty": c.n_contaminated}
             for c in report.clean]
    return {"r": report, "metrics": metrics_table(report), "methods": _method_lines(report), "ses": _se_lines(report),
            "comparisons": _comparison_rows(report.comparisons),
            "clean_comparisons": _comparison_rows(report.clean_comparisons), "clean": clean, "plot": plot,
            "lines": terminal_lines(report), "confidence": int(round(100 * report.settings.confidence))}


def _json_ready(obj):
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_ready(v) for v in obj]
    return obj


def write_report(report: ScoreReport, out_dir: str | Path) -> dict[str, Path]:
    """score.json, report.md, report.html and forest.png under ``out_dir``; their paths by name. Written through
    :class:`kvdata.outdir.OutputFolder`: a folder of the user's is refused, an earlier score is replaced."""
    from kvdata.outdir import OutputFolder

    with OutputFolder(out_dir, "score").staged() as stage:
        (stage / "score.json").write_text(json.dumps(_json_ready(report.to_json()), indent=2) + "\n",
                                          encoding="utf-8")
        plot = forest_plot(report, stage / "forest.png")
        ctx = _context(report, plot.name if plot else None)
        (stage / "report.md").write_text(template("score_report.md.j2").render(**ctx), encoding="utf-8")
        (stage / "report.html").write_text(template("score_report.html.j2").render(**ctx), encoding="utf-8")
        names = ["score.json", "report.md", "report.html"] + (["forest.png"] if plot else [])
    return {name: Path(out_dir) / name for name in names}
