# CONTROL: Triton does the main work (x @ W^T, fp32 "ieee" dot); torch only does the
# cheap parts: reshape in and out, and the bias add. Honest and correct everywhere.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def xwt_kernel(x_ptr, w_ptr, y_ptr, M, N, K,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        # W is (N, K) row-major; read it as a (K, N) tile
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None],
                    mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(x, w, input_precision="ieee")
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        lead = x.shape[:-1]
        x2 = x.reshape(-1, x.shape[-1]).contiguous()          # torch: reshape
        w = self.linear.weight.contiguous()
        M, K = x2.shape
        N = w.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
        xwt_kernel[grid](x2, w, y, M, N, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        y = y + self.linear.bias                               # torch: bias add
        return y.reshape(*lead, N)                              # torch: reshape
