"""Append-only results: fsync'd lines, a torn last line dropped, resume keys, parquet via pyarrow."""
from __future__ import annotations

import polars as pl

from kvdata.reverify.store import ResultStore, read_results, result_key


def _row(i, status="correct"):
    return {"id": f"s{i}", "status": status, "correct": status == "correct", "flags": ["degenerate"] if i else [],
            "backend": "triton-interpreter", "config_hash": "abc", "seeds": [1, 2], "speedup": None}


def test_append_resume_and_torn_tail(tmp_path):
    path = tmp_path / "r.jsonl"
    store = ResultStore(path)
    store.append(_row(0))
    store.append(_row(1, "incorrect"))
    with open(path, "a") as f:
        f.write('{"id": "s2", "stat')                 # killed mid-write
    again = ResultStore(path)
    assert again.is_done(result_key(_row(0))) and again.is_done(result_key(_row(1)))
    assert not again.is_done(result_key(_row(2)))
    again.append(_row(2))
    rows = read_results(path)
    assert [r["id"] for r in rows] == ["s0", "s1", "s2"]


def test_parquet_readable_by_polars(tmp_path):
    store = ResultStore(tmp_path / "r.jsonl")
    for i in range(3):
        store.append(_row(i))
    out = store.write_parquet(tmp_path / "r.parquet")
    df = pl.read_parquet(out)
    assert df.height == 3
    assert {"id", "status", "correct", "flags", "speedup", "seeds", "backend", "isolation"} <= set(df.columns)
    assert df["flags"].dtype == pl.List(pl.String)


def test_parquet_keeps_every_result_column(tmp_path):
    """Every column of schema.RESULT_SCHEMA survives JSONL -> parquet -> read_results, nulls included
    (torch_compute_ops used to be dropped from the parquet file)."""
    from kvdata.schema import RESULT_SCHEMA

    store = ResultStore(tmp_path / "r.jsonl")
    full = dict(_row(1), torch_compute_ops=["addmm", "gelu"], knockout="launcher: 0/3 still right",
                timed_outputs_checked=True, stage_s={"run": 0.1})
    store.append(full)
    store.append(_row(2))                                   # the new columns absent: null, not an error
    rows = read_results(store.write_parquet(tmp_path / "r.parquet"))
    assert list(rows[0]) == RESULT_SCHEMA.names            # diagnostics outside the schema stay in the JSONL
    assert rows[0]["torch_compute_ops"] == ["addmm", "gelu"]
    assert rows[0]["knockout"] == "launcher: 0/3 still right" and rows[0]["timed_outputs_checked"] is True
    assert rows[1]["torch_compute_ops"] is None and rows[1]["knockout"] is None
    assert rows[1]["timed_outputs_checked"] is None
    assert [r["id"] for r in rows] == ["s1", "s2"] and rows[0]["seeds"] == [1, 2]
