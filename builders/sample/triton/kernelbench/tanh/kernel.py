import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_kernel(a_ptr, b_ptr, ncol, stride_row, KB: tl.constexpr):
    i_row = tl.program_id(0)
    k = tl.arange(0, KB)
    ok = k < ncol
    a = tl.load(a_ptr + i_row * stride_row + k, mask=ok, other=0.0)
    b = tl.where(a >= 0, 1.0, -1.0) * (1.0 - tl.exp(-2.0 * tl.abs(a))) / (1.0 + tl.exp(-2.0 * tl.abs(a)))
    tl.store(b_ptr + i_row * ncol + k, b, mask=ok)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a):
        x2 = a.reshape(-1, a.shape[-1])
        out_t = torch.empty_like(x2)
        nrow, ncol = x2.shape
        tanh_kernel[(nrow,)](x2, out_t, ncol, x2.stride(0), KB=triton.next_power_of_2(ncol))
        return out_t.reshape(a.shape)
