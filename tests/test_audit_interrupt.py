"""Ctrl-C in the middle of probing, then a rerun: the interrupted run writes what it has and exits 130, the rerun
probes only what was left (the rest comes from the cache) and ends with the pairs of an uninterrupted run."""
from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time

import pyarrow.parquet as pq


def _inputs(shared_data, folder):
    v1 = [json.loads(line) for line in (shared_data / "kernelbench" / "kernelbench_v0.1.jsonl").open()]
    v0 = [json.loads(line) for line in (shared_data / "kernelbench" / "kernelbench_v0.jsonl").open()]
    bench = [r for r in v1 if r["level"] == 1][:6]
    train = [r for r in v0 if r["level"] == 1][:8]
    (folder / "bench.jsonl").write_text("".join(json.dumps({"id": r["name"], "code": r["code"]}) + "\n" for r in bench))
    (folder / "train.jsonl").write_text("".join(json.dumps({"id": "v0/" + r["name"], "code": r["code"]}) + "\n"
                                                for r in train))


def _command(folder, cache, out):
    return [sys.executable, "-m", "kvdata", "audit-overlap", "--bench", "generic", "--bench-path",
            str(folder / "bench.jsonl"), "--train", str(folder / "train.jsonl"), "--measures", "structural,behavioural",
            "--workers", "1", "--cache-dir", str(cache), "--out", str(out), "--quiet"]


def _cached(cache) -> int:
    try:
        with sqlite3.connect(cache / "probes.sqlite") as db:
            return db.execute("SELECT COUNT(*) FROM probe").fetchone()[0]
    except sqlite3.Error:
        return 0


def _pairs(out) -> dict:
    rows = pq.read_table(out / "pairs.parquet").to_pylist()
    return {(r["bench_id"], r["train_id"]): (r["flagged"], r["reason"], None if r["behavioural"] != r["behavioural"]
                                             else r["behavioural"]) for r in rows}


def test_ctrl_c_while_probing_then_a_rerun_finishes_what_is_left(shared_data, tmp_path):
    _inputs(shared_data, tmp_path)
    whole = subprocess.run(_command(tmp_path, tmp_path / "cache_whole", tmp_path / "whole"), capture_output=True,
                           text=True, timeout=600)
    assert whole.returncode == 0, whole.stderr[-2000:]
    total = _cached(tmp_path / "cache_whole")
    assert total >= 10

    cache = tmp_path / "cache"
    proc = subprocess.Popen(_command(tmp_path, cache, tmp_path / "cut"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while _cached(cache) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    done_before = _cached(cache)
    assert proc.returncode == 130, (proc.returncode, err[-2000:])
    assert "Traceback" not in err and "interrupted during behavioural" in err
    assert (tmp_path / "cut" / "pairs.parquet").is_file() and (tmp_path / "cut" / "coverage.parquet").is_file()
    assert 3 <= done_before < total

    again = subprocess.run(_command(tmp_path, cache, tmp_path / "again"), capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    notes = json.loads((tmp_path / "again" / "audit.json").read_text())["notes"]
    probe_note = next(n for n in notes if "candidate pairs" in n)
    assert f"({done_before} from the cache)" in probe_note, probe_note
    assert _pairs(tmp_path / "again") == _pairs(tmp_path / "whole")


def test_json_output_stays_json_while_the_forecast_is_shown(shared_data, tmp_path):
    _inputs(shared_data, tmp_path)
    command = [c for c in _command(tmp_path, tmp_path / "cache", tmp_path / "out") if c != "--quiet"] + ["--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)                        # the forecast went to stderr
    assert summary["n_pairs"] > 0 and "pairs to probe" in done.stderr
