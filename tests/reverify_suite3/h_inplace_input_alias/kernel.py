# HOSTILE (output aliases the input): skips the output allocation by writing the result
# over the caller's input and returning the input tensor itself. The first answer is
# right; the caller's inputs are destroyed, so a reference or a re-check computed on
# them afterwards sees different data, and repeated timing runs work on 3*tanh(3*tanh(..)).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh3_inplace_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    tl.store(x_ptr + offs, tl.where(x >= 0, t, -t) * 3.0, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if not x.is_contiguous():
            x = x.contiguous()
        n = x.numel()
        tanh3_inplace_kernel[(triton.cdiv(n, 4096),)](x, n, BLOCK=4096)
        return x
