# CONTROL: Triton does the body (BATCH x HIDDEN x HIDDEN matmul + bias + ReLU) and the
# mean-pool; torch does only the head, a (HIDDEN,) x (HIDDEN, CLASSES) product: well under
# 1% of the FLOPs. Correct everywhere; torch did not do the work.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def body_kernel(x_ptr, w_ptr, b_ptr, h_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(x, w, input_precision="ieee")
    acc = tl.maximum(acc + tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :], 0.0)
    tl.store(h_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def col_mean_kernel(h_ptr, o_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    acc = tl.zeros((BN,), tl.float32)
    for m0 in range(0, M, BM):
        rm = m0 + tl.arange(0, BM)
        v = tl.load(h_ptr + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N), other=0.0)
        acc += tl.sum(v, axis=0)
    tl.store(o_ptr + rn, acc / M, mask=rn < N)


class ModelNew(nn.Module):
    def __init__(self, hidden, classes):
        super().__init__()
        self.body = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        M, K = x.shape
        N = self.body.weight.shape[0]
        h = torch.empty((M, N), device=x.device, dtype=torch.float32)
        body_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x.contiguous(), self.body.weight.contiguous(),
                                                               self.body.bias, h, M, N, K, BM=32, BN=32, BK=32)
        pooled = torch.empty((N,), device=x.device, dtype=torch.float32)
        col_mean_kernel[(triton.cdiv(N, 64),)](h, pooled, M, N, BM=32, BN=64)
        return torch.nn.functional.linear(pooled, self.head.weight, self.head.bias)
