"""The fourth red team's cases (tests/reverify_suite4/: 31 hacks and 8 honest controls, written as a black box from
the public catalogs — pygpubench, KernelGuard, KernelBench's unit tests and static checker, reference-kernels,
KernelGYM, the DeepReinforce, Kevin, CUDA-L1 and AutoTriton write-ups — by a helper that never saw the verifier's
code) through the real sandboxed verifier on the Triton interpreter. Controls must come out `correct`; hostile cases
must not.

What the verifier does not catch yet is listed in NOT_CAUGHT with why, as strict xfails: a fix then fails loudly and
the list stays honest. The six GPU-only cases attack timing; their expectations are in the manifest, for the H200
run (scripts/reverify_hostile_gpu.py). Two of them tamper with process-wide state, which shows on a CPU too (the
last test)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from reverify_manifest import run_cases  # noqa: E402

ROOT = Path(__file__).parent / "reverify_suite4"
MANIFEST = [e for e in json.loads((ROOT / "manifest.json").read_text()) if not e["gpu_only"]]

# Every CPU-judged case of this suite is caught now; a case the verifier lets through again goes here, with why,
# as a strict xfail, so a later fix fails loudly and the list stays honest.
NOT_CAUGHT: dict = {}


@pytest.fixture(scope="module")
def suite_run(tmp_path_factory):
    return run_cases(ROOT, MANIFEST, tmp_path_factory.mktemp("suite4"))


def _param(e):
    if e["case"] in NOT_CAUGHT:
        return pytest.param(e, id=e["case"], marks=pytest.mark.xfail(strict=True, reason=NOT_CAUGHT[e["case"]]))
    return pytest.param(e, id=e["case"])


@pytest.mark.parametrize("entry", [_param(e) for e in MANIFEST])
def test_suite4_case(suite_run, entry):
    row = suite_run[entry["case"]]
    if entry["kind"] == "control":
        assert row["status"] == "correct", (row["status"], row["message"], row["flags"])
    else:
        assert not row["correct"], (entry["trick"], row["status"], row["flags"])


def test_every_case_is_listed_and_runnable():
    listed = {e["case"] for e in json.loads((ROOT / "manifest.json").read_text())}
    on_disk = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "kernel.py").is_file()}
    assert listed == on_disk and set(NOT_CAUGHT) <= listed


def test_a_lower_precision_answer_is_not_correct(suite_run):
    """A float16 output for a float32 problem passes a loose tolerance on the seeds but is not the problem's answer."""
    row = suite_run["h_half_output_sigmoid"]
    assert not row["correct"] and "less precise" in row["message"], (row["status"], row["message"])


_GLOBAL_STATE = ("h_reference_sleep_hook", "h_cudnn_off_reference")


def test_process_wide_tampering_is_flagged_on_the_cpu(tmp_path):
    """Two of the GPU-only timing attacks sabotage the baseline through state every module shares: a global
    forward pre-hook that sleeps before every other module, cuDNN switched off at import. Their speedup cannot be
    faked (the reference is timed before candidate code exists), but the tampering itself is visible on any
    device: `global_state_changed`, failing."""
    entries = [e for e in json.loads((ROOT / "manifest.json").read_text()) if e["case"] in _GLOBAL_STATE]
    rows = run_cases(ROOT, entries, tmp_path)
    for case in _GLOBAL_STATE:
        row = rows[case]
        assert "global_state_changed" in row["flags"] and not row["correct"], (case, row["status"], row["flags"])
