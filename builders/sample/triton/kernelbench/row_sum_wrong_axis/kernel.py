import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_wrong_axis_kernel(p_in, p_out, dim, DIMB: tl.constexpr):
    program = tl.program_id(0)
    j = tl.arange(0, DIMB)
    active = j < dim
    xs = tl.load(p_in + j * dim + program, mask=active, other=0.0)
    tl.store(p_out + program, tl.sum(xs, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, xs):
        xs = xs.contiguous()
        rows_, dim = xs.shape
        ys_buf = torch.empty(rows_, device=xs.device, dtype=xs.dtype)
        DIMB = triton.next_power_of_2(dim)
        row_sum_wrong_axis_kernel[(rows_,)](xs, ys_buf, dim, DIMB=DIMB)
        return ys_buf
