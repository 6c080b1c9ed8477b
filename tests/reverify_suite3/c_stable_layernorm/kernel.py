# CONTROL: LayerNorm with a centred two-pass variance (no E[x^2]-E[x]^2 cancellation),
# looping over the row in blocks, so it holds for any width and for large offsets.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, R, D, eps,
                     BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = rows < R
    acc = tl.zeros((BLOCK_R,), dtype=tl.float32)
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        msk = rmask[:, None] & (cols[None, :] < D)
        acc += tl.sum(tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=msk, other=0.0), axis=1)
    mean = acc / D
    acc = tl.zeros((BLOCK_R,), dtype=tl.float32)
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        msk = rmask[:, None] & (cols[None, :] < D)
        x = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=msk, other=0.0)
        xc = tl.where(msk, x - mean[:, None], 0.0)
        acc += tl.sum(xc * xc, axis=1)
    rstd = 1.0 / tl.sqrt(acc / D + eps)
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        msk = rmask[:, None] & (cols[None, :] < D)
        x = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=msk, other=0.0)
        w = tl.load(w_ptr + cols, mask=cols < D, other=0.0)
        b = tl.load(b_ptr + cols, mask=cols < D, other=0.0)
        y = (x - mean[:, None]) * rstd[:, None] * w[None, :] + b[None, :]
        tl.store(y_ptr + rows[:, None] * D + cols[None, :], y, mask=msk)


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.ln = nn.LayerNorm(hidden)

    def forward(self, x):
        x = x.contiguous()
        R, D = x.shape
        y = torch.empty_like(x)
        layernorm_kernel[(triton.cdiv(R, 16),)](x, self.ln.weight, self.ln.bias, y, R, D,
                                                self.ln.eps, BLOCK_R=16, BLOCK_D=128)
        return y
