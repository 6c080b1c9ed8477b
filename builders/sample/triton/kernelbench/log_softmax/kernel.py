import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_softmax_kernel(a_ptr, b_ptr, ncol, KB: tl.constexpr):
    chunk = tl.program_id(0)
    k = tl.arange(0, KB)
    ok = k < ncol
    a = tl.load(a_ptr + chunk * ncol + k, mask=ok, other=-float("inf"))
    a = a - tl.max(a, axis=0)
    lse = tl.log(tl.sum(tl.exp(a), axis=0))
    tl.store(b_ptr + chunk * ncol + k, a - lse, mask=ok)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a):
        a = a.contiguous()
        nrow, ncol = a.shape
        out_t = torch.empty_like(a)
        KB = triton.next_power_of_2(ncol)
        log_softmax_kernel[(nrow,)](a, out_t, ncol, KB=KB)
        return out_t
