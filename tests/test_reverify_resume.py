"""Killing `kvdata reverify` with SIGKILL midway and rerunning it gives exactly one result per sample."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
import time

from kvdata.reverify.store import read_results

sys.path.insert(0, str(Path(__file__).parent))
from reverify_samples import rows


def test_sigkill_midway_then_resume(tmp_path):
    data = rows(6, 1)
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in data))
    out = tmp_path / "results.jsonl"
    cmd = [sys.executable, "-c", "from kvdata.cli import main; main()", "reverify", "--input", str(inp), "--out", str(out),
           "--backend", "triton-interpreter", "--seeds", "2", "--workers", "1",
           "--cache-dir", str(tmp_path / "cache")]
    env = dict(os.environ, KVDATA_CACHE=str(tmp_path / "cache"))
    proc = subprocess.Popen(cmd, start_new_session=True, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if out.exists() and out.read_text().count("\n") >= 2:
            break
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = read_results(out)
    assert 2 <= len(first) < len(data), "the kill did not land midway"
    # simulate a torn last line as a SIGKILL mid-write would leave it
    with open(out, "a") as f:
        f.write('{"id": "ok-torn", "status": "corr')

    done = subprocess.run(cmd, env=env, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    final = read_results(out)
    ids = [r["id"] for r in final]
    assert sorted(ids) == sorted(r["id"] for r in data)            # exactly one result per sample
    before = {r["id"]: r["verified_at"] for r in first}
    assert all(r["verified_at"] == before[r["id"]] for r in final if r["id"] in before)  # not redone
    assert {r["id"]: r["status"] for r in final}["bad-0"] == "incorrect"
