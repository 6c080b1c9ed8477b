"""The other configurations (kvdata/reverify/configs.py) and the recorder's guard (recorder_guard.py), on real
torch modules and a real Triton interpreter launch, without the sandbox around them."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import torch

from kvdata.reverify.calls import flatten_outputs
from kvdata.reverify.configs import _one_dim_resized, _resampled, _rescaled


def _visible(model, inputs):
    return {"inputs": inputs, "model": model, "seed": 0, "init_inputs": [], "state_dict": {}}


def _run(model, inputs):
    return flatten_outputs(model(*inputs))


class _MatMul(torch.nn.Module):
    def forward(self, a, b):
        return a @ b


class _Attention(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.softmax(q @ k.transpose(-1, -2), -1) @ v


def test_a_square_product_gets_a_one_sided_size():
    """One size constant for a square product: the configurations must include a non-square one, and only sizes
    the reference accepts (never a mismatched inner dimension)."""
    cases = _one_dim_resized(_visible(_MatMul(), [torch.randn(48, 48), torch.randn(48, 48)]), _run)
    shapes = [[tuple(t.shape) for t in c.inputs] for c in cases]
    assert cases and all(not c.untested for c in cases)
    assert any(a != b for a, b in shapes), shapes
    assert all(a[1] == b[0] for a, b in shapes), shapes


def test_inputs_of_one_shape_are_resized_together():
    """q, k and v of one shape: a kernel written for self-attention is not asked for cross-attention."""
    qkv = [torch.randn(4, 16, 32) for _ in range(3)]
    cases = _one_dim_resized(_visible(_Attention(), qkv), _run)
    assert cases
    for c in cases:
        assert len({tuple(t.shape) for t in c.inputs}) == 1, [t.shape for t in c.inputs]
        assert c.inputs[0].shape != qkv[0].shape and c.ref_flops


def test_resampled_inputs_lose_their_structure():
    """A symmetric input built by get_inputs() is not symmetric in the resampled configuration, and keeps its
    scale."""
    r = torch.randn(64, 64)
    sym = (r + r.T) / 2
    case = _resampled(_visible(_MatMul(), [sym, torch.randn(64, 8)]), _run)
    a = case.inputs[0]
    assert not case.untested and not torch.allclose(a, a.T)
    assert 0.5 < float(a.std()) / float(sym.std()) < 2.0


def test_a_range_the_reference_cannot_take_is_untested():
    """sqrt of negated positive inputs is NaN in the reference: untested, with why, never a failure."""
    class Sqrt(torch.nn.Module):
        def forward(self, x):
            return torch.sqrt(x)

    case = _rescaled(_visible(Sqrt(), [torch.rand(8, 8) + 0.1]), "negated", -1.0, 0.0, _run)
    assert case.untested == "the reference is not finite on these values"


_GUARD_PROGRAM = textwrap.dedent("""
    import sys, os
    from kvdata.reverify import recorder_guard
    recorder_guard.install(sys.argv[1])
    import torch, triton, triton.language as tl

    @triton.jit
    def double(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
        i = tl.arange(0, BLOCK)
        tl.store(o_ptr + i, tl.load(x_ptr + i, mask=i < n) * 2, mask=i < n)

    x = torch.randn(10)
    o = torch.empty(10)
    double[(1,)](x, o, 10, BLOCK=16)          # the interpreter turns tensors into NumPy arrays itself
    assert torch.equal(o, x * 2)
    print("library:", recorder_guard.noted())
    sys.path.insert(0, sys.argv[1])
    import candidate
    candidate.forward(x)
    print("candidate:", recorder_guard.noted())
""")

_CANDIDATE = textwrap.dedent("""
    import subprocess, threading
    import numpy as np
    import torch
    from torch.utils._python_dispatch import _disable_current_modes

    def forward(x):
        np.asarray(x)
        t = threading.Thread(target=lambda: None)
        t.start()
        t.join()
        subprocess.run(["true"])
        with _disable_current_modes():
            pass
""")


def test_the_guard_notes_the_candidates_calls_and_not_the_libraries(tmp_path):
    """Triton's interpreter may call NumPy on tensors; the candidate's own NumPy, thread, process and
    recorder-switching calls are each noted, reached through the standard library or not."""
    (tmp_path / "candidate.py").write_text(_CANDIDATE)
    env = dict(os.environ, TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", _GUARD_PROGRAM, str(tmp_path)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = dict(line.split(": ", 1) for line in out.stdout.splitlines() if ": " in line)
    assert lines["library"] == "[]"
    for name in ("torch.Tensor.__array__", "threading.Thread.start", "subprocess.Popen.__init__",
                 "torch.utils._python_dispatch._disable_current_modes"):
        assert name in lines["candidate"], lines["candidate"]
