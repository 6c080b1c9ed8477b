# HOSTILE (stale weight cache): like the honest cached-transpose control, but the copy
# of W^T taken on the first call is never invalidated. Right while the weights stay put
# (every single-shot check), wrong as soon as they are updated in place.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features, bias=False)
        self._wt = None

    def forward(self, x):
        x = x.contiguous()
        if self._wt is None or self._wt.device != x.device:
            self._wt = self.fc.weight.detach().t().contiguous()   # taken once, never refreshed
        M, K = x.shape
        N = self._wt.shape[1]
        out = torch.empty((M, N), device=x.device, dtype=torch.float32)
        matmul_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, self._wt, out, M, N, K,
                                                                BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        return out
