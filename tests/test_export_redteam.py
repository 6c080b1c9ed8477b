"""The red team's cases for `kvdata export` (tests/export_redteam, written by a helper that never read
kvdata.export): hostile corpora made from the bundled sample by its ``make_cases.py``, every case run through
the installed `kvdata export` CLI by its ``run_cases.py``, which checks the outputs with pyarrow and datasets
only (splits, accounting, DPO preferences, veRL types, filters, card, refusals). Every case must pass.

One expectation differs from the red team's first one, documented in the case's rationale:
``stab_add_row_to_group_by_ref`` names the earlier export with ``--keep-splits``. Since ``--format dpo``
became TRL's conversational form by default, the two DPO cases that check LLaMA-Factory's entries
(``dpo_hip2hip_bad_speedups``, ``dpo_verified_triton``) pass ``--dpo-form standard`` (the form LLaMA-Factory
reads), the other DPO cases run the default, and the checker reads a message-list side as its text."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kvdata.cli import main

HERE = Path(__file__).parent / "export_redteam"


def test_every_red_team_case_passes(tmp_path):
    res = CliRunner().invoke(main, ["build", "--sample", "--out", str(tmp_path / "base"), "--quiet", "--workers", "0"])
    assert res.exit_code == 0, res.output
    made = subprocess.run([sys.executable, str(HERE / "make_cases.py"), str(tmp_path / "base"),
                           str(tmp_path / "cases"), str(tmp_path / "manifest.json")], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr[-3000:]
    kvdata = str(Path(sys.executable).with_name("kvdata"))
    ran = subprocess.run([sys.executable, str(HERE / "run_cases.py"), "--cases", str(tmp_path / "cases"),
                          "--runs", str(tmp_path / "runs"), "--manifest", str(tmp_path / "manifest.json"),
                          "--json", str(tmp_path / "results.json"), "--kvdata", kvdata],
                         capture_output=True, text=True, timeout=1500)
    results = json.loads((tmp_path / "results.json").read_text())
    failed = {r["name"]: r["problems"] for r in results if not r["pass"]}
    assert len(results) >= 60 and not failed, (failed, ran.stdout[-2000:])
