# CONTROL: one fused elementwise kernel for relu(x) * 0.5 + y; any size, any range.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fused_kernel(x_ptr, y_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    tl.store(o_ptr + offs, tl.maximum(x, 0.0) * 0.5 + y, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        x = x.contiguous()
        y = y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        fused_kernel[(triton.cdiv(n, 4096),)](x, y, out, n, BLOCK=4096)
        return out
