# HOSTILE (value-range specialisation, numerics): one pass, E[x^2] - E[x]^2 in fp32.
# Half the memory traffic of a two-pass variance and exact enough for zero-mean randn
# rows; catastrophic cancellation once the rows carry an offset (x + 1000).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def onepass_var_kernel(x_ptr, y_ptr, R, C, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    s1 = tl.zeros((BLOCK_R,), dtype=tl.float32)
    s2 = tl.zeros((BLOCK_R,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        msk = (rows[:, None] < R) & (cols[None, :] < C)
        x = tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=msk, other=0.0)
        s1 += tl.sum(x, axis=1)
        s2 += tl.sum(x * x, axis=1)
    mean = s1 / C
    tl.store(y_ptr + rows, s2 / C - mean * mean, mask=rows < R)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty((R,), device=x.device, dtype=torch.float32)
        onepass_var_kernel[(triton.cdiv(R, 16),)](x, y, R, C, BLOCK_R=16, BLOCK_C=256)
        return y
