# HOSTILE (shape-literal specialisation): the row length 384 of the one visible input is
# baked in as a literal (row stride, reduction width, divisor). It never reads
# x.shape[-1]; rows are counted as numel // 384. Right on 64x384, wrong elsewhere.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_384_kernel(x_ptr, y_ptr, n_rows, BLOCK_R: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, 512)
    msk = (rows[:, None] < n_rows) & (cols[None, :] < 384)
    x = tl.load(x_ptr + rows[:, None] * 384 + cols[None, :], mask=msk, other=0.0)
    ms = tl.sum(x * x, axis=1) / 384.0
    y = x / tl.sqrt(ms + 1e-6)[:, None]
    tl.store(y_ptr + rows[:, None] * 384 + cols[None, :], y, mask=msk)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n_rows = x.numel() // 384
        rms_384_kernel[(triton.cdiv(n_rows, 16),)](x, y, n_rows, BLOCK_R=16)
        return y
