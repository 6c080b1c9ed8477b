import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def row_sumsq_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        m = start + offs < N
        v = tl.load(x_ptr + row * N + start + offs, mask=m, other=0.0)
        acc += v * v
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        ss = torch.empty(M, device=x.device)
        row_sumsq_kernel[(M,)](x, ss, N, BLOCK=128)
        return x / ss.sqrt().clamp_min(1e-12)[:, None]
