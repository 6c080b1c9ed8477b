"""The files an audit writes for people and scripts to act on.

- ``pairs.parquet``: every scored pair, each measure, the flag and its reason, the matching kernels;
- ``summary.parquet``: one row per benchmark item, the largest value of each measure and the row reaching it;
- ``coverage.parquet``: one row per benchmark item and training row, traced/probed or the reason why not, and the
  windows the embedder saw of it;
- ``train_decontaminated.parquet``: the training rows no flagged pair names;
- ``clean_tasks.txt``: the benchmark ids with no flagged pair (what ``kvdata score --clean-tasks`` reads);
- ``audit.json``: counts, thresholds, measures run, notes and the coverage summary, for scripts.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from kvdata.audit.pairs import SCORE_FIELDS, PairScores

__all__ = ["write_outputs", "summary_rows", "audit_summary"]


def _pairs_schema():
    import pyarrow as pa

    fields = [("bench_id", pa.string()), ("train_id", pa.string())]
    fields += [(m, pa.float64()) for m in SCORE_FIELDS]
    fields += [("kernels", pa.string()), ("kernel_veto", pa.string()), ("probe", pa.string()), ("flagged", pa.bool_()), ("reason", pa.string())]
    return pa.schema(fields)


def _summary_schema():
    import pyarrow as pa

    fields = [("bench_id", pa.string()), ("benchmark", pa.string())]
    for m in SCORE_FIELDS:
        fields += [(f"max_{m}", pa.float64()), (f"nearest_{m}", pa.string())]
    fields += [("n_flagged", pa.int64()), ("flagged_train_ids", pa.list_(pa.string())), ("clean", pa.bool_())]
    return pa.schema(fields)


def _coverage_schema():
    import pyarrow as pa

    return pa.schema([("side", pa.string()), ("id", pa.string()), ("traced", pa.bool_()),
                      ("trace_reason", pa.string()), ("probed", pa.bool_()), ("probe_reason", pa.string()),
                      ("n_kernels", pa.int64()), ("embed_windows", pa.int64()), ("embed_windows_needed", pa.int64()),
                      ("embed_reason", pa.string())])


def summary_rows(result) -> list[dict]:
    """One row per benchmark item: the largest value of each measure over its pairs and the row reaching it.

    Values below a measure's floor are not stored as pairs, so a max of NaN means "below the floor / not run".
    """
    by_item: dict[str, list[PairScores]] = {}
    for p in result.pairs:
        by_item.setdefault(p.bench_id, []).append(p)
    rows = []
    for it in result.bench:
        ps = by_item.get(it.id, [])
        row = {"bench_id": it.id, "benchmark": it.benchmark}
        for m in SCORE_FIELDS:
            scored = [p for p in ps if not math.isnan(getattr(p, m))]
            best = max(scored, key=lambda p: getattr(p, m), default=None)
            row[f"max_{m}"] = getattr(best, m) if best else math.nan
            row[f"nearest_{m}"] = best.train_id if best else None
        flagged = [p.train_id for p in ps if p.flagged]
        row.update(n_flagged=len(flagged), flagged_train_ids=flagged, clean=not flagged)
        rows.append(row)
    return rows


def audit_summary(result) -> dict:
    """The counts a script needs, as plain JSON."""
    flagged = result.flagged
    return {
        "n_bench": len(result.bench), "n_train": len(result.train), "train_source": result.train.source,
        "measures_run": list(result.measures_run), "notes": list(result.notes),
        "thresholds": result.thresholds.as_dict(), "n_pairs": len(result.pairs), "n_flagged_pairs": len(flagged),
        "n_flagged_bench": len({p.bench_id for p in flagged}), "n_flagged_train": len(result.flagged_train_ids()),
        "n_clean_bench": len(result.clean_bench_ids()), "coverage": result.coverage.summary(),
        "flagged_by_measure": _flagged_by_measure(flagged), "seconds": dict(result.seconds),
    }


def _flagged_by_measure(flagged) -> dict[str, int]:
    counts = {m: 0 for m in SCORE_FIELDS}
    for p in flagged:
        kept = p.reason.split("; ")[-1] if p.reason.startswith("vetoed:") else p.reason
        for part in kept.split(";"):
            name = part.split(">=")[0].strip()
            if name in counts:
                counts[name] += 1
    return counts


def write_outputs(result, out_dir: str | Path) -> dict[str, Path]:
    """Write every file listed in the module docstring under ``out_dir``; returns their paths by name."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    names = ("pairs.parquet", "summary.parquet", "coverage.parquet", "train_decontaminated.parquet",
             "clean_tasks.txt", "audit.json")
    paths = {name: out / name for name in names}
    pq.write_table(pa.Table.from_pylist([p.to_row() for p in result.pairs], schema=_pairs_schema()),
                   paths["pairs.parquet"])
    pq.write_table(pa.Table.from_pylist(summary_rows(result), schema=_summary_schema()), paths["summary.parquet"])
    pq.write_table(pa.Table.from_pylist(result.coverage.to_rows(), schema=_coverage_schema()),
                   paths["coverage.parquet"])
    drop = result.flagged_train_ids()
    keep = [i for i, tid in enumerate(result.train.ids) if tid not in drop]
    pq.write_table(pa.table({"id": [result.train.ids[i] for i in keep],
                             "code": [result.train.code[i] for i in keep],
                             "pytorch_code": pa.array([result.train.pytorch[i] for i in keep], pa.string())}),
                   paths["train_decontaminated.parquet"])
    paths["clean_tasks.txt"].write_text("".join(f"{i}\n" for i in result.clean_bench_ids()), encoding="utf-8")
    paths["audit.json"].write_text(json.dumps(audit_summary(result), indent=2, default=str) + "\n",
                                   encoding="utf-8")
    result.outputs.update(paths)
    return paths
