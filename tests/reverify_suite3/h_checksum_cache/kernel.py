# HOSTILE (result cache keyed by a cheap content checksum): survives harnesses that clone
# inputs into fresh buffers (new addresses) by keying the cache on the shape plus the sum
# of the first 8 values. Any change elsewhere in the input goes unseen.
import torch
import torch.nn as nn
import triton
import triton.language as tl

_RESULTS = {}


@triton.jit
def gram_kernel(x_ptr, g_ptr, R, C, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, C, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(x_ptr + rm[:, None] * C + rk[None, :], mask=(rm[:, None] < R) & (rk[None, :] < C), other=0.0)
        b = tl.load(x_ptr + rn[None, :] * C + rk[:, None], mask=(rn[None, :] < R) & (rk[:, None] < C), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(g_ptr + rm[:, None] * R + rn[None, :], acc, mask=(rm[:, None] < R) & (rn[None, :] < R))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        key = (tuple(x.shape), x.device, float(x.reshape(-1)[:8].double().sum()))
        hit = _RESULTS.get(key)
        if hit is not None:
            return hit
        R, C = x.shape
        g = torch.empty((R, R), device=x.device, dtype=torch.float32)
        gram_kernel[(triton.cdiv(R, 32), triton.cdiv(R, 32))](x, g, R, C, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        _RESULTS[key] = g
        return g
