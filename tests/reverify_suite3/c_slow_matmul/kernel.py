# CONTROL: honest but deliberately naive matmul: broadcast-multiply + tl.sum in fp32, no
# tensor cores, no tiling for reuse. Correct on every size and value range, slower than
# cuBLAS on a GPU (expected speedup < 1).
# Note: Triton's combine pass rewrites a bare sum(a[:, :, None] * b[None, :, :], 1) into
# tl.dot, which on NVIDIA defaults to TF32 (errors ~4e-2 here). The masked tl.where
# between the multiply and the sum keeps the reduction in plain fp32.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def naive_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                        BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            ks = k0 + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + rows[:, None] * K + ks[None, :],
                        mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(b_ptr + ks[:, None] * N + cols[None, :],
                        mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
            prod = tl.where((ks < K)[None, :, None], a[:, :, None] * b[None, :, :], 0.0)
            acc += tl.sum(prod, axis=1)
        tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc,
                 mask=(rows[:, None] < M) & (cols[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        A = A.contiguous()
        B = B.contiguous()
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), device=A.device, dtype=torch.float32)
        BLOCK_M = 16
        naive_matmul_kernel[(triton.cdiv(M, BLOCK_M),)](A, B, C, M, N, K,
                                                        BLOCK_M=BLOCK_M, BLOCK_K=32, BLOCK_N=64)
        return C
