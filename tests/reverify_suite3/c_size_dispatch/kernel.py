# CONTROL: legitimate size-based dispatch. Small tensors take a small-block kernel, large
# ones a different kernel with bigger blocks and another (equivalent, overflow-safe)
# formula. Every path is exact, so shape dispatch alone must not be flagged.
import torch
import torch.nn as nn
import triton
import triton.language as tl

SMALL_LIMIT = 1 << 16


@triton.jit
def silu_small_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + offs, x * tl.sigmoid(x), mask=offs < n)


@triton.jit
def silu_large_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    e = tl.exp(-tl.abs(x))                       # never overflows
    sig = tl.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    tl.store(y_ptr + offs, x * sig, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n <= SMALL_LIMIT:
            silu_small_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096)
        else:
            silu_large_kernel[(triton.cdiv(n, 16384),)](x, y, n, BLOCK=16384)
        return y
