import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(p_in, p_out, dim, DIMB: tl.constexpr):
    program = tl.program_id(0)
    j = tl.arange(0, DIMB)
    active = j < dim
    xs = tl.load(p_in + program * dim + j, mask=active, other=0.0)
    tl.store(p_out + program * dim + j, tl.cumsum(xs, axis=0), mask=active)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, xs):
        xs = xs.contiguous()
        rows_, dim = xs.shape
        ys_buf = torch.empty_like(xs)
        DIMB = triton.next_power_of_2(dim)
        cumsum_kernel[(rows_,)](xs, ys_buf, dim, DIMB=DIMB)
        return ys_buf
