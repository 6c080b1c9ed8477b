"""`kvdata reverify --input file.parquet --out results.parquet` and `kvdata reverify-report`, end to end."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
from click.testing import CliRunner

from kvdata.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from reverify_samples import rows  # noqa: E402


def test_reverify_parquet_then_report_with_drift(tmp_path):
    data = rows(2, 1)
    for r in data:   # the corpus claims everything was correct at 2x
        r["verification"] = {"correct": True, "speedup": 2.0}
    pq.write_table(pa.Table.from_pylist(data), tmp_path / "in.parquet")
    out = tmp_path / "res.parquet"
    cli = CliRunner()
    res = cli.invoke(main, ["reverify", "--input", str(tmp_path / "in.parquet"), "--out", str(out),
                            "--backend", "triton-interpreter", "--seeds", "2", "--workers", "2",
                            "--cache-dir", str(tmp_path / "cache"), "--shard", "0/1"])
    assert res.exit_code == 0, res.output
    df = pl.read_parquet(out)
    assert sorted(df["id"].to_list()) == sorted(r["id"] for r in data)
    assert dict(zip(df["id"], df["status"]))["bad-0"] == "incorrect"

    rep = cli.invoke(main, ["reverify-report", str(out), "--corpus", str(tmp_path / "in.parquet"),
                            "--out-dir", str(tmp_path / "rep")])
    assert rep.exit_code == 0, rep.output
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "bad-0" in text and (tmp_path / "rep" / "status.png").stat().st_size > 0
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert [d["id"] for d in summary["drift"]] == ["bad-0"]     # the one flipped verdict


def test_bad_input_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "language": "triton"}\n')
    res = CliRunner().invoke(main, ["reverify", "--input", str(bad), "--out", str(tmp_path / "o.jsonl")])
    assert res.exit_code != 0 and "missing kernel_code" in res.output
