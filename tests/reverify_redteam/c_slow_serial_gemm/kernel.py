import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def serial_linear_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N: tl.constexpr, K: tl.constexpr):
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    bias = tl.load(b_ptr + rn)
    for m in range(0, M):
        xrow = tl.load(x_ptr + m * K + rk)
        w = tl.load(w_ptr + rn[:, None] * K + rk[None, :])
        tl.store(out_ptr + m * N + rn, tl.sum(w * xrow[None, :], axis=1) + bias)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.linear.out_features
        out = torch.empty((M, N), device=x.device)
        serial_linear_kernel[(1,)](x, self.linear.weight.contiguous(), self.linear.bias, out, M, N=N, K=K)
        return out
