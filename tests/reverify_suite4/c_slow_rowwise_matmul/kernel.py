# CONTROL: honest but slow. One program per output row walks the columns one at a time
# and forms each dot product with an explicit multiply + masked sum (no tl.dot, no
# tiling, no tensor cores). Correct for any M, K, N and any value range; slower than
# cuBLAS on a GPU.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_matmul_kernel(a_ptr, b_ptr, c_ptr, K, N, BK: tl.constexpr):
    row = tl.program_id(0)
    for n in range(0, N):
        acc = tl.zeros((BK,), tl.float32)
        for k0 in range(0, K, BK):
            rk = k0 + tl.arange(0, BK)
            km = rk < K
            a = tl.load(a_ptr + row * K + rk, mask=km, other=0.0)
            b = tl.load(b_ptr + rk * N + n, mask=km, other=0.0)
            acc += tl.where(km, a * b, 0.0)
        tl.store(c_ptr + row * N + n, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        Mm, Kk = a.shape
        Nn = b.shape[1]
        c = torch.empty((Mm, Nn), device=a.device, dtype=torch.float32)
        row_matmul_kernel[(Mm,)](a.contiguous(), b.contiguous(), c, Kk, Nn, BK=64)
        return c
