"""The build red team's cases (tests/build_redteam/: hostile JSONL files, license headers and trees, written by
a helper that never saw kvdata's code), every one with 0 workers and again with 2, whose accounting, rejects,
row ids and licenses must be identical. Its runner checks accounting.json, rejects.parquet and the data files
against each case's expectations; here it runs the CLI in-process (the same command, no start-up per build)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent / "build_redteam"


def _runner():
    spec = importlib.util.spec_from_file_location("build_redteam_run_cases", HERE / "run_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_redteam_case_holds_with_0_and_2_workers(capsys):
    code = _runner().main(["--workers", "0", "--also-workers", "2", "--in-process"])
    out = capsys.readouterr().out
    failed = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert code == 0 and not failed, "\n".join(failed)
    assert out.strip().splitlines()[-1].startswith(f"{len(list((HERE / 'cases').glob('*/case.json')))} passed")
