# CONTROL: keeps the clamp, so it is right for inputs of either sign (counterpart of
# h_nonneg_inputs_only).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def clamp_sqrt_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(o_ptr + offs, tl.sqrt(tl.maximum(x, 0.0)), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        xc = x.contiguous()
        out = torch.empty_like(xc)
        clamp_sqrt_kernel[(triton.cdiv(xc.numel(), 512),)](xc, out, xc.numel(), BLOCK=512)
        return out
