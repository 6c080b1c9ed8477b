# Softmax that subtracts max(row_max, 0) instead of row_max: it never overflows (inputs
# x40, +1000 are fine) but underflows to 0/0 = NaN once a whole row is far below zero.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, o_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=float("-inf"))
    shift = tl.maximum(tl.max(x, axis=0), 0.0)
    e = tl.where(m, tl.exp(x - shift), 0.0)
    tl.store(o_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        out = torch.empty_like(x2)
        softmax_kernel[(x2.shape[0],)](x2, out, x2.shape[1], BLOCK=triton.next_power_of_2(x2.shape[1]))
        return out.reshape(x.shape)
