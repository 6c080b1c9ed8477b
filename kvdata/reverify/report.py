"""The re-verification report: counts by status, correctness and speedup distributions, drift.

``write_report(results, out_dir, corpus_rows)`` writes ``report.md`` (from
``cards/reverify_report.md.j2``), ``summary.json`` and PNG plots. The drift table
compares each result with the ``verification`` the corpus recorded for the same id:
``correct`` that flipped, and speedups that moved by more than ``speedup_tolerance``
(relative).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from kvdata.reverify.store import read_results


@dataclass
class Drift:
    id: str
    recorded_correct: Optional[bool]
    now_correct: Optional[bool]
    recorded_speedup: Optional[float]
    now_speedup: Optional[float]
    status: str

    @property
    def flipped(self) -> bool:
        return self.recorded_correct is not None and self.recorded_correct != self.now_correct


def summarize(rows: list[dict]) -> dict:
    status = Counter(r["status"] for r in rows)
    flags = Counter(f for r in rows for f in (r.get("flags") or []))
    speedups = sorted(r["speedup"] for r in rows if r.get("speedup"))
    by_backend = Counter((r.get("backend"), r.get("hardware")) for r in rows)
    return {
        "total": len(rows), "by_status": dict(status), "flags": dict(flags),
        "correct_rate": (sum(bool(r.get("correct")) for r in rows) / len(rows)) if rows else None,
        "speedup": _quantiles(speedups),
        "environments": [{"backend": b, "hardware": h, "count": n} for (b, h), n in by_backend.items()],
    }


def _quantiles(xs: list[float]) -> Optional[dict]:
    if not xs:
        return None
    pick = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))]  # noqa: E731
    return {"n": len(xs), "min": xs[0], "p25": pick(0.25), "median": pick(0.5), "p75": pick(0.75), "max": xs[-1]}


@dataclass
class DriftReport:
    """The results compared with a verdict the corpus recorded for the same id (``compared``), and those whose
    verdict or speedup moved (``drifts``). With nothing compared there is no drift to speak of, either way."""

    compared: int
    drifts: list[Drift]


def drift(rows: list[dict], corpus_rows: Iterable[dict], speedup_tolerance: float = 0.25) -> DriftReport:
    """Results whose verdict or speedup differs from what the corpus recorded."""
    recorded = {}
    for c in corpus_rows:
        v = c.get("verification")
        if isinstance(v, dict) and c.get("id"):
            recorded[c["id"]] = v
    out, compared = [], 0
    for r in rows:
        v = recorded.get(r["id"])
        if v is None:
            continue
        compared += 1
        d = Drift(r["id"], v.get("correct"), r.get("correct"), v.get("speedup"), r.get("speedup"), r["status"])
        moved = (d.recorded_speedup and d.now_speedup and
                 abs(d.now_speedup - d.recorded_speedup) / d.recorded_speedup > speedup_tolerance)
        if d.flipped or moved:
            out.append(d)
    return DriftReport(compared, out)


def load_corpus_rows(path: Path, subset: Optional[str] = None) -> list[dict]:
    """Rows (with ``verification``) of a built folder's config, a parquet or a JSONL file."""
    from kvdata.reverify.samples import iter_rows_jsonl, iter_rows_parquet

    from kvdata.hub import built_configs

    path = Path(path)
    if path.is_dir() and (path / "data").is_dir():             # a built folder: one of its configs
        configs = built_configs(path)
        if subset not in configs:
            what = f"has no config {subset!r}" if subset else "is a built folder: say which config with --subset"
            raise ValueError(f"--corpus {path} {what} (configs there: {', '.join(configs) or 'none'})")
        path = path / "data" / subset
    elif subset:
        raise ValueError(f"--subset {subset} reads a config of a built folder; --corpus {path} is not one")
    rows = iter_rows_jsonl(path) if path.suffix in (".jsonl", ".json") else iter_rows_parquet(path)
    return [row for _, row in rows]


def plot(rows: list[dict], out_dir: Path) -> list[str]:
    """status.png (counts by status) and speedup.png (speedup histogram, GPU runs only)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    status = Counter(r["status"] for r in rows)
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar(list(status), list(status.values()), color="#4c72b0")
    ax.set_ylabel("samples")
    ax.set_title("re-verification status")
    fig.autofmt_xdate(rotation=30)
    fig.tight_layout()
    fig.savefig(out_dir / "status.png", dpi=100)
    plt.close(fig)
    written.append("status.png")
    speedups = [r["speedup"] for r in rows if r.get("speedup")]
    if speedups:
        fig, ax = plt.subplots(figsize=(6, 3))
        ax.hist(speedups, bins=30, color="#55a868")
        ax.axvline(1.0, color="k", lw=0.8)
        ax.set_xlabel("speedup over the PyTorch reference")
        ax.set_ylabel("samples")
        fig.tight_layout()
        fig.savefig(out_dir / "speedup.png", dpi=100)
        plt.close(fig)
        written.append("speedup.png")
    return written


def write_report(results: str | Path, out_dir: str | Path, corpus_rows: Optional[Iterable[dict]] = None) -> Path:
    import jinja2

    from kvdata.outdir import OutputFolder

    rows = read_results(results)
    if not rows:
        raise ValueError(f"{results} holds no results; give the --out file of `kvdata reverify`")
    if not all(isinstance(r, dict) and "status" in r and "id" in r for r in rows):
        raise ValueError(f"{results} is not a `kvdata reverify` results file (its rows have no id/status); "
                         "give the file `kvdata reverify --out` wrote")
    summary = summarize(rows)
    report = drift(rows, corpus_rows) if corpus_rows is not None else None
    out = OutputFolder(out_dir, "reverify-report", option="--out-dir")
    with out.staged() as stage:
        plots = plot(rows, stage)
        (stage / "summary.json").write_text(json.dumps(dict(
            summary, drift_compared=report.compared if report else None,
            drift=[d.__dict__ for d in report.drifts] if report else None), indent=1))
        text = jinja2.Template(_template()).render(results=Path(results).name, s=summary, drift=report,
                                                   plots=plots, failures=[r for r in rows if not r.get("correct")][:50])
        (stage / "report.md").write_text(text)
    return Path(out_dir) / "report.md"


def _template() -> str:
    from importlib import resources

    try:
        return resources.files("kvdata.cards").joinpath("reverify_report.md.j2").read_text()
    except (ModuleNotFoundError, FileNotFoundError):
        return (Path(__file__).resolve().parents[2] / "cards" / "reverify_report.md.j2").read_text()
