import json

import pyarrow.parquet as pq
from click.testing import CliRunner

from kvdata.cli import main


def test_audit_overlap_writes_all_outputs(shared_data, tmp_path):
    rows = [json.loads(line) for line in (shared_data / "kernelbench" / "kernelbench_v0.jsonl").read_text().splitlines()]
    train = tmp_path / "train.jsonl"
    train.write_text("".join(json.dumps({"id": f"v0/{r['name']}", "code": r["code"]}) + "\n"
                             for r in rows if r["level"] == 4))
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["audit-overlap", "--bench", "kernelbench", "--bench-path",
                                    str(shared_data / "kernelbench" / "kernelbench_v0.1.jsonl"),
                                    "--levels", "3,4", "--train", str(train), "--out", str(out),
                                    "--measures", "lexical"])
    assert res.exit_code == 0, res.output
    for name in ("pairs.parquet", "summary.parquet", "report.md", "report.html", "train_decontaminated.parquet",
                 "clean_tasks.txt"):
        assert (out / name).is_file(), name
    pairs = pq.read_table(out / "pairs.parquet").to_pylist()
    flagged = [p for p in pairs if p["flagged"]]
    assert flagged and all(p["bench_id"].startswith("kernelbench/v0.1/level") for p in flagged)
    html = (out / "report.html").read_text()
    assert flagged[0]["bench_id"] in html and "data:image/png;base64," in html
    assert len(pq.read_table(out / "summary.parquet")) == 70


def test_audit_overlap_bad_input_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"name": "x"}\n')
    res = CliRunner().invoke(main, ["audit-overlap", "--bench", "tritonbench-g", "--train", str(bad),
                                    "--out", str(tmp_path / "o")])
    assert res.exit_code != 0 and "bench-path" in res.output
