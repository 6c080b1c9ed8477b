# HOSTILE (GPU only; background thread + patched synchronize): forward() hands the launch
# to a Python thread that waits 2 ms before launching, and returns an empty buffer at
# once. torch.cuda.synchronize is replaced by a version that first joins those threads,
# so a harness that synchronises before comparing sees the right answer, while events
# recorded around forward() bracket almost nothing.
import threading
import time
import torch
import torch.nn as nn
import triton
import triton.language as tl

_pending = []
_real_sync = torch.cuda.synchronize


def _sync(device=None):
    while _pending:
        _pending.pop().join()
    return _real_sync(device)


torch.cuda.synchronize = _sync

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


def _late_launch(A, B, C, device):
    time.sleep(0.002)
    with torch.cuda.device(device):
        _launch(A, B, C)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        A, B = A.contiguous(), B.contiguous()
        C = torch.empty((A.shape[0], B.shape[1]), device=A.device, dtype=torch.float32)
        if not A.is_cuda:
            _launch(A, B, C)
            return C
        t = threading.Thread(target=_late_launch, args=(A, B, C, A.device), daemon=True)
        t.start()
        _pending.append(t)
        return C
