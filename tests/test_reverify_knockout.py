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


def test_a_torch_fallback_behind_a_raising_launch_is_not_needed_kernels(tmp_path):
    """The knockout's `raise` mode: a launch that raises, caught by `except: return torch.relu(x)`, leaves the
    answer right, so the kernel is `kernel_not_needed`; the same kernel without the fallback stays `correct`."""
    launch = "relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)"
    fallback = _RELU_KERNEL.replace("LAUNCH", f"try:\n            {launch}\n            return out\n"
                                              "        except Exception:\n            return torch.relu(x)")
    plain = _RELU_KERNEL.replace("LAUNCH", f"{launch}\n        return out")
    out = tmp_path / "r.jsonl"
    reverify([Sample(id="fallback", language="triton", pytorch_code=_RELU_REFERENCE, kernel_code=fallback),
              Sample(id="plain", language="triton", pytorch_code=_RELU_REFERENCE, kernel_code=plain)], out,
             ReverifyConfig(backend="triton-interpreter", seeds=2, timeout_s=120, memory_mb=3000), workers=2,
             cache_root=tmp_path / "cache", progress=False)
    rows = {r["id"]: r for r in read_results(out)}
    assert rows["fallback"]["status"] == "flagged" and "kernel_not_needed" in rows["fallback"]["flags"]
    assert "raise: 2/2 still right" in rows["fallback"]["knockout"]
    assert rows["plain"]["status"] == "correct", rows["plain"]
