"""Tiny Triton samples (reference + kernels) shared by the reverify tests. Small shapes: the
interpreter is slow."""
from __future__ import annotations

REF_SCALE_ADD = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))

    def forward(self, x):
        return x * self.w + 1.0


def get_inputs():
    return [torch.randn(4, 32)]


def get_init_inputs():
    return [32]
'''

KERNEL_SCALE_ADD = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_add(x_ptr, w_ptr, o_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    w = tl.load(w_ptr + offs % cols, mask=m)
    tl.store(o_ptr + offs, x * w + OFFSET, mask=m)


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        scale_add[(triton.cdiv(x.numel(), 64),)](x, self.w, out, x.numel(), x.shape[-1], BLOCK=64)
        return out
'''


def kernel(offset: str = "1.0") -> str:
    return KERNEL_SCALE_ADD.replace("OFFSET", offset)


def rows(n_correct: int = 3, n_wrong: int = 1) -> list[dict]:
    out = []
    for i in range(n_correct):
        out.append({"id": f"ok-{i}", "language": "triton", "pytorch_code": REF_SCALE_ADD,
                    "kernel_code": kernel("1.0") + f"\n# variant {i}\n", "pytorch_functional_code": None})
    for i in range(n_wrong):
        out.append({"id": f"bad-{i}", "language": "triton", "pytorch_code": REF_SCALE_ADD,
                    "kernel_code": kernel("1.25"), "pytorch_functional_code": None})
    return out
