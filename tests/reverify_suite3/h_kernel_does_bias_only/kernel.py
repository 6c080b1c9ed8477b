# HOSTILE (kernel does the trivial part): the mirror image of an honest "torch for the
# bias" control. torch does the matmul (all the FLOPs); Triton only adds the bias. The
# knockout breaks the answer (bias missing) although the kernel did ~1% of the work.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_add_kernel(y_ptr, b_ptr, o_ptr, R, N, BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_N)
    msk = (rows[:, None] < R) & (cols[None, :] < N)
    y = tl.load(y_ptr + rows[:, None] * N + cols[None, :], mask=msk, other=0.0)
    b = tl.load(b_ptr + cols, mask=cols < N, other=0.0)
    tl.store(o_ptr + rows[:, None] * N + cols[None, :], y + b[None, :], mask=msk)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        y = torch.matmul(x, self.linear.weight.t()).contiguous()   # all the FLOPs
        R, N = y.shape
        out = torch.empty_like(y)
        bias_add_kernel[(triton.cdiv(R, 16),)](y, self.linear.bias, out, R, N,
                                               BLOCK_R=16, BLOCK_N=triton.next_power_of_2(N))
        return out
