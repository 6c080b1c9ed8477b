"""The release red team's cases (tests/release_redteam/: trees that follow docs/notes/layouts.md and vary what it
leaves open, written by a helper that saw only that note, never kvdata's code), built with 0 workers and again
with 2. Its runner (a process pool of its own, so it runs as a script) checks accounting.json, rejects.parquet,
the data files' pairings and `sources --inspect` against each case's expectations through the CLI alone."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "release_redteam"


@pytest.mark.parametrize("workers", [0, 2])
def test_every_release_redteam_case_holds(workers):
    proc = subprocess.run([sys.executable, str(HERE / "run_cases.py"), "--workers", str(workers)],
                          capture_output=True, text=True, timeout=600)
    failed = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
    assert proc.returncode == 0 and not failed, "\n".join(failed) + proc.stderr[-2000:]
    cases = len(list((HERE / "cases").glob("*/case.json")))
    assert proc.stdout.strip().splitlines()[-1].startswith(f"{cases} passed, 0 failed")
