"""The audit report: Markdown and a self-contained HTML page (histograms embedded as base64 PNGs).

For every flagged pair the report shows both texts side by side with a unified diff, so a reader can judge the
overlap without opening any file. Templates live in ``cards/audit_report.md.j2`` and ``cards/audit_report.html.j2``.
"""
from __future__ import annotations

import base64
import difflib
import io
import math
from pathlib import Path

from kvdata.audit.outputs import audit_summary, summary_rows
from kvdata.audit.pairs import SCORE_FIELDS
from kvdata.audit.pipeline import AuditResult
from kvdata.cards import template

__all__ = ["render_report", "write_report", "histogram_png"]

_MEASURES = SCORE_FIELDS
MAX_PAIRS_SHOWN = 200


def histogram_png(values: list[float], title: str, threshold: float) -> bytes:
    """A histogram of one measure over benchmark items (their max), with the flag threshold marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3), dpi=80)
    ax.hist(values, bins=20, range=(0.0, 1.0), color="#4C72B0")
    ax.axvline(threshold, color="#C44E52", linestyle="--", label=f"threshold {threshold:g}")
    ax.set_title(title)
    ax.set_xlabel("max over training rows")
    ax.set_ylabel("benchmark items")
    ax.legend()
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def _unified_diff(a: str, b: str, a_name: str, b_name: str) -> str:
    return "".join(difflib.unified_diff(a.splitlines(True), b.splitlines(True), fromfile=a_name, tofile=b_name,
                                        n=2))


def _fmt(v: float) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"


def _context(result: AuditResult) -> dict:
    bench_code = {it.id: it.code for it in result.bench}
    train_code = dict(zip(result.train.ids, result.train.code))
    summary = summary_rows(result)
    hists = {}
    for m in _MEASURES:
        values = [r[f"max_{m}"] for r in summary if not math.isnan(r[f"max_{m}"])]
        if values:
            png = histogram_png(values, m, getattr(result.thresholds, m))
            hists[m] = {"n": len(values), "png_b64": base64.b64encode(png).decode("ascii")}
    flagged = result.flagged
    shown = []
    for p in flagged[:MAX_PAIRS_SHOWN]:
        b, t = bench_code[p.bench_id], train_code[p.train_id]
        shown.append({"bench_id": p.bench_id, "train_id": p.train_id, "reason": p.reason,
                      "kernels": p.kernels, "probe": p.probe,
                      "scores": {m: _fmt(getattr(p, m)) for m in _MEASURES if not math.isnan(getattr(p, m))},
                      "bench_code": b, "train_code": t, "diff": _unified_diff(b, t, p.bench_id, p.train_id)})
    top = sorted(summary, key=lambda r: -max([r[f"max_{m}"] for m in _MEASURES if not math.isnan(r[f"max_{m}"])]
                                              or [0.0]))[:30]
    return {
        "n_bench": len(result.bench), "n_train": len(result.train), "train_source": result.train.source,
        "benchmarks": sorted({it.benchmark for it in result.bench}),
        "measures_run": result.measures_run, "notes": result.notes,
        "thresholds": result.thresholds.as_dict(), "n_pairs": len(result.pairs), "n_flagged": len(flagged),
        "n_flagged_bench": len({p.bench_id for p in flagged}), "n_flagged_train": len(result.flagged_train_ids()),
        "n_clean": len(result.clean_bench_ids()), "hists": hists, "pairs": shown,
        "n_pairs_not_shown": max(0, len(flagged) - MAX_PAIRS_SHOWN),
        "measures": [m for m in _MEASURES if any(not math.isnan(r[f"max_{m}"]) for r in summary)],
        "top": [{"bench_id": r["bench_id"], "scores": {m: _fmt(r[f"max_{m}"]) for m in _MEASURES},
                 "nearest": next((r[f"nearest_{m}"] for m in _MEASURES if r[f"nearest_{m}"]), "-"),
                 "clean": r["clean"]} for r in top],
        "coverage": audit_summary(result)["coverage"],
        "flagged_by_measure": audit_summary(result)["flagged_by_measure"],
    }


def render_report(result: AuditResult) -> tuple[str, str]:
    """(Markdown, HTML) texts of the report."""
    ctx = _context(result)
    return template("audit_report.md.j2").render(**ctx), template("audit_report.html.j2").render(**ctx)


def write_report(result: AuditResult, out_dir: str | Path) -> dict[str, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md, page = render_report(result)
    paths = {"report.md": out / "report.md", "report.html": out / "report.html"}
    paths["report.md"].write_text(md, encoding="utf-8")
    paths["report.html"].write_text(page, encoding="utf-8")
    result.outputs.update(paths)
    return paths
