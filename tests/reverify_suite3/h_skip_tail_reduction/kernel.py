# HOSTILE (partial computation under a loose tolerance): the kernel reads only the first
# 31/32 of each row and still divides by the full width. For zero-mean randn rows the
# missing tail moves the mean by ~3e-3 (< 1e-2 tolerance); with an offset it is badly off.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_mean_kernel(x_ptr, y_ptr, R, C, C_USED, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    acc = tl.zeros((BLOCK_R,), dtype=tl.float32)
    for c0 in range(0, C_USED, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        msk = (rows[:, None] < R) & (cols[None, :] < C_USED)
        acc += tl.sum(tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=msk, other=0.0), axis=1)
    tl.store(y_ptr + rows, acc / C, mask=rows < R)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        c_used = C - C // 32
        y = torch.empty((R,), device=x.device, dtype=torch.float32)
        partial_mean_kernel[(triton.cdiv(R, 16),)](x, y, R, C, c_used, BLOCK_R=16, BLOCK_C=1024)
        return y
