# CONTROL: logsumexp with an online running max, so it neither overflows for large
# inputs (x40) nor loses the small ones; any row width.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def lse_kernel(x_ptr, y_ptr, R, C, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = rows < R
    m = tl.full((BLOCK_R,), float("-inf"), dtype=tl.float32)
    s = tl.zeros((BLOCK_R,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        msk = rmask[:, None] & (cols[None, :] < C)
        x = tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=msk, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[:, None]), axis=1)
        m = m_new
    tl.store(y_ptr + rows, m + tl.log(s), mask=rmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty((R,), device=x.device, dtype=torch.float32)
        lse_kernel[(triton.cdiv(R, 16),)](x, y, R, C, BLOCK_R=16, BLOCK_C=256)
        return y
