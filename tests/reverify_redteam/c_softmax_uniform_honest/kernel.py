import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def softmax_onepass_kernel(x_ptr, out_ptr, N, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    v = tl.load(x_ptr + row * N + offs, mask=m, other=float("-inf")) * scale
    e = tl.where(m, tl.exp(v - tl.max(v, axis=0)), 0.0)
    tl.store(out_ptr + row * N + offs, e / tl.sum(e, axis=0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        out = torch.empty_like(x)
        softmax_onepass_kernel[(M,)](x, out, N, 0.1, BLOCK=triton.next_power_of_2(N))
        return out
