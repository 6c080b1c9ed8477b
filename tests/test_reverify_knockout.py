"""Knockout, degenerate tests and dispatch consistency (issue #9), on the real sandboxed verifier
with the Triton interpreter.

Every sample in tests/knockout_suite/kernels/ runs through ``reverify``: the hostile ones
(token launches beside torch math, copy-through kernels, fallbacks by shape or call count,
recorder-aware dispatch, zero-writing kernels on degenerate references) must not come out
`correct`; every control (full kernels, a legitimate partial kernel, honest kernels on the same
degenerate references, an autotuned kernel, buffers kept between calls) must.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from kvdata.reverify import reverify
from kvdata.reverify.config import ReverifyConfig
from kvdata.reverify.samples import Sample
from kvdata.reverify.store import read_results

SUITE = Path(__file__).parent / "knockout_suite"
COMMON = (SUITE / "kernels" / "_common.py").read_text()

# case -> (statuses allowed, flags required)
EXPECTED = {
    "honest_linear_gelu": ({"correct"}, set()),
    "partial_gemm_torch_epilogue": ({"correct"}, {"torch_compute"}),
    "cached_output_buffer": ({"correct"}, set()),
    "honest_tiny": ({"correct"}, {"degenerate"}),
    "honest_softmax": ({"correct"}, {"degenerate"}),
    "token_scratch": ({"flagged"}, {"kernel_not_needed"}),
    "eager_copy": ({"flagged"}, {"kernel_not_needed"}),
    "scale_by_one": ({"flagged"}, {"kernel_not_needed"}),
    "first_call_only": ({"flagged"}, {"inconsistent_dispatch"}),
    "dispatch_mode_aware": ({"flagged"}, {"kernel_not_needed"}),
    "shape_fallback": ({"flagged"}, {"kernel_not_needed"}),
    "call_count_fallback": ({"flagged"}, {"kernel_not_needed"}),
    "zeros_tiny": ({"incorrect"}, {"degenerate"}),
    "zeros_softmax": ({"incorrect"}, {"degenerate"}),
    "uniform_softmax": ({"incorrect"}, {"degenerate"}),
    "zeros_all_zero": ({"inconclusive"}, {"degenerate"}),
    "background_thread": ({"incorrect", "flagged"}, set()),
}


def _sample(path: Path) -> Sample:
    text = path.read_text()
    reference = re.match(r"# reference: (\w+)", text).group(1)
    return Sample(id=path.stem, language="triton", pytorch_code=(SUITE / "references" / f"{reference}.py").read_text(),
                  kernel_code=COMMON + "\n\n" + text)


@pytest.fixture(scope="module")
def knockout_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("knockout")
    samples = [_sample(p) for p in sorted((SUITE / "kernels").glob("*.py"))
               if not p.name.startswith("_") and "# gpu-only" not in p.read_text()]
    assert {s.id for s in samples} == set(EXPECTED)
    out = tmp / "results.jsonl"
    reverify(samples, out, ReverifyConfig(backend="triton-interpreter", seeds=2, timeout_s=120, memory_mb=3000),
             workers=2, cache_root=tmp / "cache", progress=False)
    return {r["id"]: r for r in read_results(out)}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_case_ends_as_expected(knockout_run, name):
    row = knockout_run[name]
    statuses, flags = EXPECTED[name]
    assert row["status"] in statuses, (row["status"], row["message"], row["flags"], row.get("knockout"))
    assert flags <= set(row["flags"]), (row["flags"], row.get("knockout"))


def test_no_hostile_case_is_correct_and_every_control_is(knockout_run):
    controls = {n for n, (statuses, _) in EXPECTED.items() if statuses == {"correct"}}
    assert {n for n, r in knockout_run.items() if r["correct"]} == controls


def test_knockout_is_reported_for_every_judged_row(knockout_run):
    judged = [r for r in knockout_run.values() if r["status"] in ("correct", "flagged")]
    assert judged and all(r.get("knockout", "").startswith("skip:") for r in judged)
    assert "skip: 0/2 still right; poison: 0/2 still right; zero: 0/2 still right" in knockout_run["honest_linear_gelu"]["knockout"]
    assert "answer handed to a kernel on 2/2" in knockout_run["eager_copy"]["knockout"]


_RELU_REFERENCE = ("import torch, torch.nn as nn\nROWS = 64\nCOLS = 256\nclass Model(nn.Module):\n"
                   "    def forward(self, x):\n        return torch.relu(x)\n\ndef get_inputs():\n"
                   "    return [torch.randn(ROWS, COLS)]\n\ndef get_init_inputs():\n    return []\n")
_RELU_KERNEL = '''
import torch, torch.nn as nn, triton, triton.language as tl

@triton.jit
def relu_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)

class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        LAUNCH
'''


_LAUNCH = "relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)"
_PLAIN = _RELU_KERNEL.replace("LAUNCH", f"{_LAUNCH}\n        return out")
_FALLBACK = _RELU_KERNEL.replace("LAUNCH", f"try:\n            {_LAUNCH}\n            return out\n"
                                           "        except Exception:\n            return torch.relu(x)")
_GATE_KERNEL = '''
import torch, torch.nn as nn, triton, triton.language as tl

@triton.jit
def gate_kernel(x_ptr, g_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(g_ptr + offs, x * 0.0 + 1.0, mask=m)      # reads x, and writes 1.0 whatever x holds

class ModelNew(nn.Module):
    def forward(self, x):
        gate = torch.empty_like(x)
        gate_kernel[(triton.cdiv(x.numel(), 1024),)](x, gate, x.numel(), BLOCK=1024)
        return torch.relu(x) * gate
'''


_FRAME_SNIFF = _RELU_KERNEL.replace('''class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        LAUNCH
''', '''import sys

def _callers():
    f, names = sys._getframe(2), []
    while f is not None:
        names.append((f.f_code.co_filename, f.f_code.co_name))
        f = f.f_back
    return tuple(names)

class ModelNew(nn.Module):
    first = None

    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        callers = _callers()
        ModelNew.first = ModelNew.first or callers
        if callers == ModelNew.first:       # called the way the first (judged) call was: torch answers
            return torch.relu(x)
        return out                          # called some other way (a knockout?): the kernel answers
''')




@pytest.fixture(scope="module")
def relu_rows(tmp_path_factory):
    """The honest relu kernel and three hostile ones on the same reference, through the sandboxed verifier."""
    tmp = tmp_path_factory.mktemp("relu")
    samples = {"plain": _PLAIN, "fallback": _FALLBACK, "gate": _GATE_KERNEL, "sniff": _FRAME_SNIFF}
    out = tmp / "r.jsonl"
    reverify([Sample(id=k, language="triton", pytorch_code=_RELU_REFERENCE, kernel_code=v) for k, v in samples.items()],
             out, ReverifyConfig(backend="triton-interpreter", seeds=2, timeout_s=120, memory_mb=3000), workers=2,
             cache_root=tmp / "cache", progress=False)
    return {r["id"]: r for r in read_results(out)}


def test_the_honest_kernel_is_correct_and_its_answer_follows_its_inputs(relu_rows):
    assert relu_rows["plain"]["status"] == "correct", relu_rows["plain"]
    assert "perturb: 0/2 still right" in relu_rows["plain"]["knockout"]


def test_a_torch_fallback_behind_a_raising_launch_is_not_needed_kernels(relu_rows):
    """The knockout's `raise` mode: a launch that raises, caught by `except: return torch.relu(x)`, leaves the
    answer right, so the kernel is `kernel_not_needed` (the same kernel without the fallback stays `correct`)."""
    row = relu_rows["fallback"]
    assert row["status"] == "flagged" and "kernel_not_needed" in row["flags"]
    assert "raise: 2/2 still right" in row["knockout"]


def test_a_kernel_whose_inputs_do_not_reach_the_answer_is_not_needed(relu_rows):
    """The knockout's `perturb` mode (information flow): a "gate" kernel writes 1.0 that torch's answer is
    multiplied by. Skipped, poisoned, zeroed or raising, the gate breaks the answer; but with its inputs changed
    it still writes 1.0, the answer stays right, and the kernel did not compute it (relu has no FLOPs for the
    torch-share check to count)."""
    row = relu_rows["gate"]
    assert row["status"] == "flagged" and "kernel_not_needed" in row["flags"], row
    assert "perturb: 2/2 still right" in row["knockout"]
    for mode in ("skip", "poison", "zero", "raise"):
        assert f"{mode}: 0/2 still right" in row["knockout"]


def test_a_candidate_cannot_tell_the_knockout_calls_by_their_frames(relu_rows):
    """Every call runs through the same thread and function (``calls.py``): a candidate that compares its
    callers' frames with those of its first call, and lets its kernel answer only when they differ, finds no
    difference, so torch answers every call, the knockout sees it, and the kernel is not needed."""
    row = relu_rows["sniff"]
    assert row["status"] == "flagged" and "kernel_not_needed" in row["flags"], row


def test_perturbed_call_puts_back_what_the_launch_only_read():
    """Read-only tensors come back byte for byte (NaN included); a written tensor keeps what was written."""
    import torch

    from kvdata.reverify.knockout import perturbed_call

    x = torch.randn(4, 33)
    x[0, 0] = float("nan")
    weight = torch.randn(33).expand(4, 33)             # an expanded view: left alone
    out = torch.full((4, 33), float("nan"))
    before = x.clone()
    seen = {}

    def launch():
        seen["x"] = x.clone()
        out.copy_(x * 2)
        return "ran"

    assert perturbed_call(launch, [x, weight, out, torch.arange(5)]) == "ran"
    assert not torch.equal(torch.nan_to_num(seen["x"]), torch.nan_to_num(before))   # the launch saw other values
    assert torch.equal(torch.nan_to_num(x, 7.0), torch.nan_to_num(before, 7.0)) and torch.isnan(x[0, 0])
    assert torch.equal(torch.nan_to_num(out, 7.0), torch.nan_to_num(seen["x"] * 2, 7.0))
