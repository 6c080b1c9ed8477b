"""A dress rehearsal of the harness's own GPU work, run by a spare before it gets its job.

Why: a process forked from the zygote starts with no GPU state. Creating the CUDA context is
the largest cost (~0.23 s on an H200), but each first use after that pays too: the first
elementwise kernel loads its module lazily (~40 ms), the first Triton launch sets up
Triton's launcher (~0.1 s), the first matmul creates a cuBLAS handle, the first convolution
initialises cuDNN. A spare waits for its job while another sample runs, so paying these
there takes them off the sample's clock (``worker._warm_device``).

The rehearsal runs only trusted code (this module and the harness's own steps) on a
built-in model, so the spare stays as clean as a fresh fork: what it leaves is the CUDA
context, loaded kernel modules, library handles and freed blocks in the caching allocator
(the harness poisons those before every candidate call anyway). Seeds are set per case by
the harness, so the random state it leaves does not matter either.
"""
from __future__ import annotations

import os
import types
from pathlib import Path

try:
    import triton
    import triton.language as tl

    @triton.jit
    def _scale_shift(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0 + 1.0, mask=m)
except ImportError:                                       # HIP-only installs: no Triton launch to warm
    triton = None


def _rehearsal_module() -> types.SimpleNamespace:
    """A KernelBench-shaped reference that touches the common libraries: cuBLAS, cuDNN, reductions."""
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self, n: int):
            super().__init__()
            self.linear = nn.Linear(n, n)
            self.conv = nn.Conv2d(4, 4, 3, padding=1)

        def forward(self, x, image):
            y = torch.relu(self.linear(x)) * 2.0 + 1.0
            pooled = torch.softmax(y, dim=-1).sum(-1) + y.mean() + y.amax()
            return pooled, torch.sigmoid(self.conv(image)), x @ x.T

    return types.SimpleNamespace(Model=Model, get_init_inputs=lambda: [64],
                                 get_inputs=lambda: [torch.randn(32, 64), torch.randn(2, 4, 16, 16)])


def rehearse(device: str, poison_mb: int = 64, flush_mb: int = 256) -> None:
    """Run the harness's steps once on the built-in model: reference case, fingerprints, the
    device-to-host copies of the blob writer, poisoning, event timing, one Triton launch."""
    from kvdata.reverify import defences, tensor_blob
    from kvdata.reverify.harness import build_reference_case
    from kvdata.reverify.calls import CallServer
    from kvdata.reverify.clocks import Clocks
    from kvdata.reverify.timing import time_gpu

    case = build_reference_case(_rehearsal_module(), 0, device)
    tensor_blob.dump({"outputs": [case["outputs"]], "inputs": [tensor_blob.fingerprint(case["inputs"])]},
                     lambda _chunk: None)
    defences.poison_allocator(device, [tuple(t.shape) for t in case["outputs"]],
                            [t.dtype for t in case["outputs"]], poison_mb)
    if device == "cpu":                                   # nothing to warm but the code path (tests)
        return
    model, inputs = case["model"], case["inputs"]
    with CallServer(Clocks.capture(), device) as calls:     # its thread ends here: the zygote forks after this
        time_gpu(model, inputs, {"warmup": 1, "reps": 2, "flush_mb": flush_mb, "max_seconds": 1.0}, device, seed=0,
                 calls=calls)
    if triton is not None:
        _launch_triton(inputs[0])


def _launch_triton(x) -> None:
    """One launch of a built-in kernel, compiled into a cache of its own (the shared compile
    cache counts new entries to tell a sample's cache hits)."""
    import torch

    saved = os.environ.get("TRITON_CACHE_DIR")
    os.environ["TRITON_CACHE_DIR"] = str(Path(os.environ.get("HOME") or "/tmp") / ".triton-rehearsal")
    try:
        out = torch.empty_like(x)
        _scale_shift[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        torch.cuda.synchronize()
    finally:
        if saved is None:
            os.environ.pop("TRITON_CACHE_DIR", None)
        else:
            os.environ["TRITON_CACHE_DIR"] = saved
