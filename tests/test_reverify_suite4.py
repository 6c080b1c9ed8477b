"""The fourth red team's cases (tests/reverify_suite4/: 31 hacks and 8 honest controls, written as a black box from
the public catalogs — pygpubench, KernelGuard, KernelBench's unit tests and static checker, reference-kernels,
KernelGYM, the DeepReinforce, Kevin, CUDA-L1 and AutoTriton write-ups — by a helper that never saw the verifier's
code) through the real sandboxed verifier on the Triton interpreter. Controls must come out `correct`; hostile cases
must not.

What the verifier does not catch yet is listed in NOT_CAUGHT with why, as strict xfails: a fix then fails loudly and
the list stays honest. The six GPU-only cases are honest on a CPU (they attack timing); their expectations are in
the manifest, for the H200 run (scripts/reverify_hostile_gpu.py)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from reverify_manifest import run_cases  # noqa: E402

ROOT = Path(__file__).parent / "reverify_suite4"
MANIFEST = [e for e in json.loads((ROOT / "manifest.json").read_text()) if not e["gpu_only"]]

_OUTSIDE_TRITON = ("the heavy work runs outside the op recorder's sight (NumPy, a thread, a helper process, or a torch "
                   "op that is not on the heavy list); every knockout mode still breaks the answer because a Triton "
                   "kernel does the last step")
_RECORDER = ("the op recorder is active only in round A's calls, so torch used in the other calls (repeats, "
             "knockout, other sizes and ranges) is never recorded; and a candidate can switch the recorder off")
NOT_CAUGHT: dict = {
    "h_numpy_matmul": _OUTSIDE_TRITON,
    "h_worker_thread_mm": _OUTSIDE_TRITON,
    "h_helper_process_mm": _OUTSIDE_TRITON,
    "h_mulsum_bmm": _OUTSIDE_TRITON,
    "h_embedding_bag_linear": _OUTSIDE_TRITON,
    "h_sparse_mm_linear": _OUTSIDE_TRITON,
    "h_scan_softmax": _OUTSIDE_TRITON,
    "h_fft_conv1d": _OUTSIDE_TRITON,
    "h_max_cancel_gate": _OUTSIDE_TRITON + " (an exact +0.0 gate: perturbing its inputs moves the answer)",
    "h_recorder_disabled": _RECORDER,
    "h_python_key_excluded": _RECORDER,
    "h_unrecorded_calls_torch": _RECORDER,
    "h_shape_gate_torch_fallback": _RECORDER,
    "h_range_gate_torch_fallback": _RECORDER,
    "h_square_only_strides": "one size constant: scaling it only ever gives square products",
    "h_literal_shape_inputs": "literal sizes in get_inputs(): no other size is derived, and `generalises` says "
                              "untested while the status stays correct",
    "h_softmax_negative_offset": "no negative offsets are tried among the other value ranges",
    "h_nonneg_inputs_only": "no negated inputs are tried among the other value ranges",
    "h_symmetric_input_transpose": "structure built into get_inputs() (a symmetric matrix) is never broken",
}


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
