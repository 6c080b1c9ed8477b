"""The ledger: counts per source, reconcile checks, rejects streamed to parquet."""
from __future__ import annotations

import json

import pyarrow.parquet as pq

from kvdata.ledger import Ledger, read_accounting
from kvdata.schema import REJECT_SCHEMA, Reject, RejectReason


def test_counts_reconcile_and_rejects_are_written(tmp_path):
    ledger = Ledger(tmp_path, flush_every=3)  # small flush: several parquet row groups
    ledger.open_source("a", kind="triton_table", config="triton", path="/x")
    ledger.count_input("a", 10)
    ledger.count_kept("a", 4)
    for i in range(3):
        ledger.reject(Reject("a", f"/x:{i}", RejectReason.BAD_JSON, "bad", "triton"))
    ledger.reject(Reject("a", "/x:5", RejectReason.EMPTY_CODE, "empty", "triton"))
    ledger.reject(Reject("a", "/x:6", RejectReason.DUPLICATE_EXACT, "dup of a-1", "triton", id="a-2"))
    ledger.reject(Reject("a", "/x:7", RejectReason.DUPLICATE_NEAR, "near a-1", "triton", id="a-3"))
    summary = ledger.close()

    acc = summary["sources"]["a"]
    assert acc["input"] == 10 and acc["kept"] == 4
    assert acc["rejected"] == {"bad_json": 3, "empty_code": 1}
    assert acc["duplicates"] == {"duplicate_exact": 1, "duplicate_near": 1}
    assert acc["reconciles"] is True and summary["reconciles"] is True
    assert summary["configs"]["triton"] == {"input": 10, "kept": 4, "rejected": 4, "duplicates": 2}
    assert read_accounting(tmp_path) == json.loads(json.dumps(summary))

    table = pq.read_table(tmp_path / "rejects.parquet")
    assert table.schema.equals(REJECT_SCHEMA)
    assert table.num_rows == 6
    assert sorted(table.column("reason").to_pylist()) == sorted(
        ["bad_json"] * 3 + ["empty_code", "duplicate_exact", "duplicate_near"])


def test_unbalanced_source_does_not_reconcile(tmp_path):
    ledger = Ledger(tmp_path)
    ledger.open_source("a", config="qa")
    ledger.open_source("b", config="qa")
    ledger.count_input("a", 2)
    ledger.count_kept("a", 2)
    ledger.count_input("b", 3)          # one record of b vanished
    ledger.count_kept("b", 2)
    summary = ledger.close()
    assert summary["sources"]["a"]["reconciles"] is True
    assert summary["sources"]["b"]["reconciles"] is False
    assert summary["reconciles"] is False


def test_no_rejects_still_writes_an_empty_rejects_file(tmp_path):
    ledger = Ledger(tmp_path)
    ledger.open_source("a", config="qa")
    ledger.close()
    table = pq.read_table(tmp_path / "rejects.parquet")
    assert table.num_rows == 0 and table.schema.equals(REJECT_SCHEMA)


def test_same_name_sources_share_an_account(tmp_path):
    ledger = Ledger(tmp_path)
    ledger.open_source("t", kind="triton_table", config="triton", path="one")
    ledger.open_source("t", kind="triton_table", config="triton", path="two")
    ledger.count_input("t", 2)
    ledger.count_kept("t", 2)
    summary = ledger.close()
    assert summary["sources"]["t"]["path"] == "one;two"
    assert summary["sources"]["t"]["reconciles"]


def test_what_the_ledger_publishes_names_no_path_of_this_machine(tmp_path, monkeypatch):
    """accounting.json and rejects.parquet are pushed with the data: a source's absolute path is published
    relative to the working directory (or by its last components), in the account and in reject messages."""
    from kvdata.ledger import SourceOrigin

    tree = tmp_path / "checkouts" / "triton-kernels"
    (tree / "sub").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    ledger = Ledger(out)
    ledger.open_source("t", config="triton", path=str(tree))
    ledger.set_origin("t", SourceOrigin(repo=str(tree), commit="abc"))
    ledger.count_input("t", 1)
    ledger.reject(Reject(source="t", ref=f"{tree}/sub/k.py:3", reason=RejectReason.BAD_JSON,
                         message=f"{tree}/sub/k.py does not parse"))
    summary = ledger.close()
    account = summary["sources"]["t"]
    assert account["path"] == "checkouts/triton-kernels" and account["origin"]["repo"] == "checkouts/triton-kernels"
    published = (out / "accounting.json").read_text() + json.dumps(pq.read_table(out / "rejects.parquet").to_pylist())
    assert str(tmp_path) not in published and "checkouts/triton-kernels/sub/k.py" in published
