"""The red team's cases (tests/reverify_redteam/, written by a helper that never saw the verifier's
code) through the real sandboxed verifier on the Triton interpreter. Hostile cases must not come out
`correct`, controls must. A case it cannot catch goes in NOT_CAUGHT, with why, as a strict xfail (a fix
then fails loudly, so the list stays honest); timing-loop tricks are judged on the GPU only
(scripts/reverify_hostile_gpu.py)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from reverify_manifest import run_cases  # noqa: E402

ROOT = Path(__file__).parent / "reverify_redteam"
MANIFEST = [e for e in json.loads((ROOT / "manifest.json").read_text()) if not e["gpu_only"]]
NOT_CAUGHT: dict = {}   # none left on the CPU (the knockout's zero mode catches the memset and canary cases)
# a timing-loop trick: the interpreter does not time; whether its memo hits on judged calls depends on
# which addresses malloc hands back, so it comes out either way (caught on the H200: see the README)
TIMING_ONLY = {"h_memo_checksum", "h_memo_data_ptr"}
# relu(x - 5) on randn inputs is zero everywhere: no run can tell a right kernel from one writing zeros
INCONCLUSIVE = {"c_mostly_zero_honest", "h_mostly_zero_relu_shift"}


@pytest.fixture(scope="module")
def redteam_run(tmp_path_factory):
    return run_cases(ROOT, MANIFEST, tmp_path_factory.mktemp("redteam"))


@pytest.mark.parametrize("entry", [pytest.param(e, id=e["case"], marks=pytest.mark.xfail(strict=True,
                                   reason=NOT_CAUGHT[e["case"]])) if e["case"] in NOT_CAUGHT else
                                   pytest.param(e, id=e["case"]) for e in MANIFEST if e["case"] not in TIMING_ONLY])
def test_redteam_case(redteam_run, entry):
    row = redteam_run[entry["case"]]
    if entry["case"] in INCONCLUSIVE and entry["kind"] == "honest":   # judged only if a seed draws an x > 5
        assert row["status"] in ("inconclusive", "correct"), (row["status"], row["message"])
    elif entry["kind"] == "honest":
        assert row["status"] == "correct", (row["status"], row["message"], row["flags"])
    else:
        assert not row["correct"], (entry["trick"], row["status"], row["flags"], row.get("knockout"))
