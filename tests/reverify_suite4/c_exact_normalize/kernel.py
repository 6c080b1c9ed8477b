# CONTROL: the row norm is accumulated after dividing by the row's max |x| (no overflow
# or underflow at any scale) and inverted with an exact sqrt and divide; eps as in
# F.normalize. Counterpart of h_approx_rsqrt_normalize.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def normalize_kernel(x_ptr, o_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    amax = tl.zeros((BLOCK,), tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        amax = tl.maximum(amax, tl.abs(v))
    scale = tl.max(amax, axis=0)
    safe = tl.where(scale > 0.0, scale, 1.0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0) / safe
        acc += v * v
    norm = tl.sqrt(tl.sum(acc, axis=0)) * safe
    denom = tl.maximum(norm, 1e-12)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        m = cols < n_cols
        v = tl.load(x_ptr + row * n_cols + cols, mask=m, other=0.0)
        tl.store(o_ptr + row * n_cols + cols, v / denom, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        out = torch.empty_like(x2)
        normalize_kernel[(x2.shape[0],)](x2, out, x2.shape[1], BLOCK=256)
        return out.reshape(x.shape)
