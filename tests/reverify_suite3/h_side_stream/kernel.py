# HOSTILE (GPU only; unsynchronised side stream, KernelBench's non_default_stream test):
# the kernel is launched on a private CUDA stream and forward() returns without making
# the caller's stream wait. CUDA events recorded on the current stream bracket only the
# launch; a device-wide synchronize before comparing still shows the right answer.
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


def _launch(A, B, C):
    M, K = A.shape
    N = B.shape[1]
    matmul_kernel[(triton.cdiv(M, 64), triton.cdiv(N, 64))](A, B, C, M, N, K,
                                                            BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._side = None

    def forward(self, A, B):
        A, B = A.contiguous(), B.contiguous()
        C = torch.empty((A.shape[0], B.shape[1]), device=A.device, dtype=torch.float32)
        if not A.is_cuda:
            _launch(A, B, C)
            return C
        if self._side is None:
            self._side = torch.cuda.Stream(device=A.device)
        self._side.wait_stream(torch.cuda.current_stream())    # inputs are ready ...
        with torch.cuda.stream(self._side):
            _launch(A, B, C)                                   # ... but nobody waits for C
        return C
