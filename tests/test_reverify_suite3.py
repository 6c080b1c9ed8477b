"""The third red team's cases (tests/reverify_suite3/: 26 hacks and 9 honest controls written from the public
exploit catalogs — pygpubench, KernelGuard, KernelBench's unit tests and static checker, reference-kernels,
KernelGYM — by a helper that never saw the verifier's code) through the real sandboxed verifier on the Triton
interpreter. Hostile cases must not come out `correct`, controls must.

A hack the verifier does not catch yet is listed in NOT_CAUGHT with why, as a strict xfail: a fix then fails
loudly, so the list stays honest. Timing tricks compute the right answer and are judged on a GPU only
(scripts/reverify_hostile_gpu.py); their self-check is tests/reverify_suite3/check_cases.py."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kvdata.reverify import reverify
from kvdata.reverify.config import ReverifyConfig
from kvdata.reverify.samples import Sample
from kvdata.reverify.store import read_results

sys.path.insert(0, str(Path(__file__).parent))
from reverify_manifest import run_cases  # noqa: E402

ROOT = Path(__file__).parent / "reverify_suite3"
MANIFEST = [e for e in json.loads((ROOT / "manifest.json").read_text()) if not e["gpu_only"]]
NOT_CAUGHT: dict = {}     # none on the CPU: the last three (a hard-coded row length, a subsample past width 1024,
# a one-pass variance) fall to the other sizes and value ranges (kvdata/reverify/configs.py)
# Right answers, wrong timing: the interpreter does not time. h_data_ptr_cache's memo hits on judged calls only
# when malloc hands back the same addresses, so it comes out either way here.
TIMING_ONLY = {"h_identity_version_cache", "h_init_precompute", "h_data_ptr_cache"}


@pytest.fixture(scope="module")
def suite_run(tmp_path_factory):
    return run_cases(ROOT, MANIFEST, tmp_path_factory.mktemp("suite3"))


def _param(e):
    if e["case"] in NOT_CAUGHT:
        return pytest.param(e, id=e["case"], marks=pytest.mark.xfail(strict=True, reason=NOT_CAUGHT[e["case"]]))
    return pytest.param(e, id=e["case"])


@pytest.mark.parametrize("entry", [_param(e) for e in MANIFEST if e["case"] not in TIMING_ONLY])
def test_suite3_case(suite_run, entry):
    row = suite_run[entry["case"]]
    if entry["kind"] == "control":
        assert row["status"] == "correct", (row["status"], row["message"], row["flags"])
    else:
        assert not row["correct"], (entry["trick"], row["status"], row["flags"])


def test_timer_patches_are_named(suite_run):
    """A replaced clock fails the sample as `timer_tampered`, and the message names what was replaced."""
    for case in ("h_perf_counter_patch", "h_event_record_redirect"):
        row = suite_run[case]
        assert "timer_tampered" in row["flags"] and row["speedup"] is None, row
        assert "replaced:" in row["message"], row["message"]


def test_torch_share_spares_an_honest_torch_epilogue(suite_run):
    """Torch doing the matmul fails (`torch_did_the_work`); torch doing only the bias add does not."""
    assert "torch_did_the_work" in suite_run["h_kernel_does_bias_only"]["flags"]
    assert "torch_did_the_work" not in suite_run["c_torch_bias_triton_matmul"]["flags"]


def test_other_configurations_say_what_they_showed(suite_run, tmp_path):
    """A kernel right only at the visible size is `shape_specialised`, one right only on the visible values
    `range_specialised`; an honest one `generalises`. `other_configs=False` (`--visible-only`) judges the visible
    configuration alone, as before."""
    assert suite_run["h_shape_literal"]["status"] == "shape_specialised"
    assert suite_run["h_shape_literal"]["generalises"].startswith("false: ")
    assert suite_run["h_onepass_variance"]["status"] == "range_specialised"
    assert suite_run["c_any_size_softmax"]["generalises"].startswith("true")
    entry = next(e for e in MANIFEST if e["case"] == "h_shape_literal")
    sample = Sample(id="visible_only", language="triton",
                    pytorch_code=(ROOT / entry["case"] / "reference.py").read_text(),
                    kernel_code=(ROOT / entry["case"] / "kernel.py").read_text())
    out = tmp_path / "visible.jsonl"
    reverify([sample], out, ReverifyConfig(backend="triton-interpreter", seeds=2, timeout_s=120, memory_mb=3000,
                                           other_configs=False), workers=1, cache_root=tmp_path / "cache",
             progress=False)
    (row,) = read_results(out)
    assert row["status"] == "correct" and row["generalises"] is None, row
