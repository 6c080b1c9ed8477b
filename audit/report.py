"""The audit report: Markdown that links its plots (``plots/<measure>.png`` beside it, so the file stays small and
readable as text), and a self-contained HTML page (the same plots embedded as base64 PNGs).

For every flagged pair the report shows, side by side with a unified diff, the two texts the flag came from: the
two PyTorch references when only structural or behavioural measures fired (they compare references), the two
matching kernel functions when only the kernel measures did, else the compared code. So a reader can judge the
overlap without opening any file. Per benchmark item it names the nearest training row of each measure, which
need not be the same row. Templates live in ``cards/audit_report.md.j2`` and ``cards/audit_report.html.j2``.
"""
from __future__ import annotations

import base64
import difflib
import io
import math
import re
from pathlib import Path

from kvdata.audit.outputs import audit_summary, summary_rows
from kvdata.audit.pairs import SCORE_FIELDS
from kvdata.audit.pipeline import AuditResult
from kvdata.cards import template

__all__ = ["render_report", "write_report", "histogram_png"]

_MEASURES = SCORE_FIELDS
MAX_PAIRS_SHOWN = 200
PLOTS_DIR = "plots"
#: measures computed on the PyTorch references (the others on the compared code)
_REFERENCE_MEASURES = frozenset({"structural", "structural_containment", "behavioural"})
_KERNEL_MEASURES = frozenset({"kernel_jaccard", "kernel_containment", "kernel_ast"})
_KERNELS = re.compile(r"^(?P<b>\S+)~(?P<t>\S+) \(lines (?P<bl>\d+)/(?P<tl>\d+)\)")


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


def fired_measures(reason: str) -> set[str]:
    """The measures a pair's ``reason`` says flagged it (after a veto, the ones that survived)."""
    kept = reason.split("; ")[-1] if reason.startswith("vetoed:") else reason
    return {part.split(">=")[0].strip().replace("kernel_w_", "kernel_").replace("kernel_ast_similarity", "kernel_ast")
            for part in kept.split(";") if ">=" in part}


def _kernel_text(code: str, name: str, line: int) -> str:
    """The kernel function ``name`` starting at ``line`` (its decorators included) of ``code``, or ''."""
    from kvdata.audit.triton_kernels import extract_kernels

    for k in extract_kernels(code):
        if k.name == name and k.start_line == line:
            return k.source
    return ""


def flag_texts(pair, bench_code: str, train_code: str, train_reference: str) -> tuple[str, str, str]:
    """(what is compared, benchmark text, training text): the two texts the pair's flag came from."""
    fired = fired_measures(pair.reason)
    if fired and fired <= _REFERENCE_MEASURES and train_reference:
        return "PyTorch references", bench_code, train_reference
    m = _KERNELS.match(pair.kernels or "")
    if fired and fired <= _KERNEL_MEASURES and m:
        b = _kernel_text(bench_code, m["b"], int(m["bl"]))
        t = _kernel_text(train_code, m["t"], int(m["tl"]))
        if b and t:
            return f"kernels {m['b']} ~ {m['t']}", b, t
    return "code", bench_code, train_code


def _context(result: AuditResult, plots: str = "inline") -> dict:
    """The templates' context. ``plots``: ``inline`` (base64, for HTML) or a folder name the Markdown links to."""
    bench_code = {it.id: it.code for it in result.bench}
    train_code = dict(zip(result.train.ids, result.train.code))
    train_ref = dict(zip(result.train.ids, result.train.pytorch))
    summary = summary_rows(result)
    hists = {}
    for m in _MEASURES:
        values = [r[f"max_{m}"] for r in summary if not math.isnan(r[f"max_{m}"])]
        if values:
            png = histogram_png(values, m, getattr(result.thresholds, m))
            hists[m] = {"n": len(values), "png": png, "png_b64": base64.b64encode(png).decode("ascii"),
                        "file": f"{PLOTS_DIR}/{m}.png"}
    flagged = result.flagged
    shown = []
    for p in flagged[:MAX_PAIRS_SHOWN]:
        what, b, t = flag_texts(p, bench_code[p.bench_id], train_code[p.train_id], train_ref.get(p.train_id) or "")
        shown.append({"bench_id": p.bench_id, "train_id": p.train_id, "reason": p.reason,
                      "kernels": p.kernels, "probe": p.probe, "compared": what,
                      "scores": {m: _fmt(getattr(p, m)) for m in _MEASURES if not math.isnan(getattr(p, m))},
                      "bench_code": b, "train_code": t, "diff": _unified_diff(b, t, p.bench_id, p.train_id)})
    top = sorted(summary, key=lambda r: -max([r[f"max_{m}"] for m in _MEASURES if not math.isnan(r[f"max_{m}"])]
                                              or [0.0]))[:30]
    measures = [m for m in _MEASURES if any(not math.isnan(r[f"max_{m}"]) for r in summary)]
    return {
        "n_bench": len(result.bench), "n_train": len(result.train), "train_source": result.train.source,
        "benchmarks": sorted({it.benchmark for it in result.bench}),
        "measures_run": result.measures_run, "notes": result.notes,
        "thresholds": result.thresholds.as_dict(), "n_pairs": len(result.pairs), "n_flagged": len(flagged),
        "n_flagged_bench": len({p.bench_id for p in flagged}), "n_flagged_train": len(result.flagged_train_ids()),
        "n_clean": len(result.clean_bench_ids()), "hists": hists, "plots_inline": plots == "inline",
        "pairs": shown, "n_pairs_not_shown": max(0, len(flagged) - MAX_PAIRS_SHOWN), "measures": measures,
        "top": [{"bench_id": r["bench_id"],
                 "scores": {m: _fmt(r[f"max_{m}"]) for m in _MEASURES},
                 "nearest": {m: r[f"nearest_{m}"] or "-" for m in _MEASURES},
                 "clean": r["clean"]} for r in top],
        "coverage": audit_summary(result)["coverage"],
        "flagged_by_measure": audit_summary(result)["flagged_by_measure"],
    }


def render_report(result: AuditResult) -> tuple[str, str]:
    """(Markdown, HTML) texts of the report (the Markdown links ``plots/<measure>.png``; write them with
    :func:`write_report`)."""
    md_ctx = _context(result, plots=PLOTS_DIR)
    html_ctx = dict(md_ctx, plots_inline=True)
    return template("audit_report.md.j2").render(**md_ctx), template("audit_report.html.j2").render(**html_ctx)


def write_report(result: AuditResult, out_dir: str | Path) -> dict[str, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ctx = _context(result, plots=PLOTS_DIR)
    md = template("audit_report.md.j2").render(**ctx)
    page = template("audit_report.html.j2").render(**dict(ctx, plots_inline=True))
    paths = {"report.md": out / "report.md", "report.html": out / "report.html"}
    if ctx["hists"]:
        (out / PLOTS_DIR).mkdir(exist_ok=True)
    for m, h in ctx["hists"].items():
        paths[f"{PLOTS_DIR}/{m}.png"] = out / h["file"]
        paths[f"{PLOTS_DIR}/{m}.png"].write_bytes(h["png"])
    paths["report.md"].write_text(md, encoding="utf-8")
    paths["report.html"].write_text(page, encoding="utf-8")
    result.outputs.update(paths)
    return paths
