# HOSTILE (constant output, the Sakana "memset" pattern): for zero-mean inputs every row
# mean of sigmoid(x) is ~0.5 +- 0.003, so a kernel that just writes 0.5 passes a 1e-2
# check on any seed and any shape. It never reads x.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(y_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.full((BLOCK,), value, tl.float32), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        R = x.shape[0]
        y = torch.empty((R,), device=x.device, dtype=torch.float32)
        fill_kernel[(triton.cdiv(R, 1024),)](y, R, 0.5, BLOCK=1024)
        return y
