"""Write a :class:`~kvdata.score.scoring.ScoreReport`: ``score.json`` for scripts, ``report.md`` and
``report.html`` (a table per metric, the comparisons, the clean split), and ``forest.png``: each
model's headline metrics with their intervals, all tasks and clean tasks side by side."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Optional

from kvdata.cards import template
from kvdata.score.scoring import ScoreReport

#: metrics the forest plot and the terminal line show, in this order, when the results have them
HEADLINE = ("correct_rate", "corr@3", "comp@3", "fast_1", "geomean_speedup")   # pass@1 is correct_rate (per task)


def _fmt(x: Optional[float], pct: bool = True) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{100 * x:.1f}" if pct else f"{x:.2f}"


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


def forest_plot(report: ScoreReport, path: Path) -> Optional[Path]:
    """Each model's headline metrics with intervals; with a clean split, all and clean tasks side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in headline(report) if n != "geomean_speedup"]
    if not names:
        return None
    clean = {(c.model, c.metric): c for c in report.clean}
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 0.55 * len(report.models) + 1.6),
                             sharey=True, squeeze=False)
    for ax, metric in zip(axes[0], names):
        for row, model in enumerate(report.models):
            est = model.metrics.get(metric)
            if est is None:
                continue
            y = len(report.models) - 1 - row
            ax.errorbar([100 * est.value], [y + 0.12], xerr=[[100 * (est.value - est.low)], [100 * (est.high - est.value)]],
                        fmt="o", color="C0", capsize=3, label="all tasks" if row == 0 else None)
            c = clean.get((model.model, metric))
            if c is not None and not math.isnan(c.clean.value):
                ax.errorbar([100 * c.clean.value], [y - 0.12],
                            xerr=[[100 * (c.clean.value - c.clean.low)], [100 * (c.clean.high - c.clean.value)]],
                            fmt="s", color="C2", capsize=3, label="clean tasks" if row == 0 else None)
        ax.set_title(metric)
        ax.set_xlabel("% (95% interval)")
        ax.set_xlim(0, 100)
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].set_yticks(range(len(report.models)))
    axes[0][0].set_yticklabels([m.model for m in reversed(report.models)])
    axes[0][0].set_ylim(-0.6, len(report.models) - 0.4)
    if report.clean:
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
        fig.tight_layout(rect=(0, 0.08, 1, 1))
    else:
        fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _context(report: ScoreReport, plot: Optional[str]) -> dict:
    metric_names = list(dict.fromkeys(n for m in report.models for n in m.metrics))
    tables = []
    for name in metric_names:
        pct = name != "geomean_speedup"
        rows = []
        for m in report.models:
            e = m.metrics.get(name)
            if e is not None:
                rows.append({"model": m.model, "value": _fmt(e.value, pct), "low": _fmt(e.low, pct),
                             "high": _fmt(e.high, pct), "n": e.n, "method": e.method,
                             "se": "–" if e.se_cluster is None else _fmt(e.se_cluster, pct)})
        tables.append({"metric": name, "unit": "%" if pct else "x", "rows": rows})
    comparisons = []
    for name, table in report.comparisons.items():
        pct = name != "geomean_speedup"
        comparisons.append({"metric": name, "rows": [{
            "pair": f"{c.a} vs {c.b}", "paired": c.paired, "n": c.n_tasks, "a": _fmt(c.value_a, pct),
            "b": _fmt(c.value_b, pct), "diff": _fmt(c.difference, pct), "low": _fmt(c.low, pct),
            "high": _fmt(c.high, pct), "test": c.test or "–", "p": _fmt_p(c.p_value), "p_holm": _fmt_p(c.p_holm),
            "verdict": ("different at 5% (Holm)" if c.significant else "not shown at 5%") if c.significant is not None
            else ("interval excludes 0" if (c.low > 0 or c.high < 0) and pct else "–"),
            "discordant": "–" if c.discordant is None else f"{c.discordant[0]} / {c.discordant[1]}",
            "mde": _fmt(c.mde, pct), "n5": c.tasks_for_5_points or "–", "notes": "; ".join(c.notes),
            "ratio": not pct} for c in table]})
    clean = [{"model": c.model, "metric": c.metric, "pct": c.metric != "geomean_speedup",
              "all": _fmt(c.all.value, c.metric != "geomean_speedup"),
              "clean": _fmt(c.clean.value, c.metric != "geomean_speedup"),
              "clean_ci": f"[{_fmt(c.clean.low, c.metric != 'geomean_speedup')}, {_fmt(c.clean.high, c.metric != 'geomean_speedup')}]",
              "dirty": _fmt(c.contaminated.value, c.metric != "geomean_speedup"),
              "diff": _fmt(c.difference, c.metric != "geomean_speedup"),
              "diff_ci": f"[{_fmt(c.low, c.metric != 'geomean_speedup')}, {_fmt(c.high, c.metric != 'geomean_speedup')}]",
              "p": _fmt_p(c.p_contaminated_higher), "n_clean": c.n_clean, "n_dirty": c.n_contaminated}
             for c in report.clean]
    return {"r": report, "tables": tables, "comparisons": comparisons, "clean": clean, "plot": plot,
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
    """score.json, report.md, report.html and forest.png under ``out_dir``; their paths by name."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"score.json": out / "score.json", "report.md": out / "report.md", "report.html": out / "report.html"}
    paths["score.json"].write_text(json.dumps(_json_ready(report.to_json()), indent=2) + "\n", encoding="utf-8")
    plot = forest_plot(report, out / "forest.png")
    if plot:
        paths["forest.png"] = plot
    ctx = _context(report, plot.name if plot else None)
    paths["report.md"].write_text(template("score_report.md.j2").render(**ctx), encoding="utf-8")
    paths["report.html"].write_text(template("score_report.html.j2").render(**ctx), encoding="utf-8")
    return paths
