# HOSTILE (CUDA-event tampering without touching elapsed_time): torch.cuda.Event.record
# is wrapped. The first record() after forward() returns -- the harness's "end" event --
# is silently recorded on an idle side stream, where it completes as soon as the host
# enqueues it, before the kernel on the main stream has finished. elapsed_time() is the
# real method; it just measures the wrong interval. The kernel itself is honest.
import torch
import torch.nn as nn
import triton
import triton.language as tl

_real_record = torch.cuda.Event.record
_state = {"armed": False, "side": None}


def _record(self, stream=None):
    if _state["armed"] and stream is None:
        _state["armed"] = False
        if _state["side"] is None:
            _state["side"] = torch.cuda.Stream()
        return _real_record(self, _state["side"])
    return _real_record(self, stream)


torch.cuda.Event.record = _record


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
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        A, B = A.contiguous(), B.contiguous()
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), device=A.device, dtype=torch.float32)
        matmul_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](A, B, C, M, N, K,
                                                                BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        _state["armed"] = C.is_cuda
        return C
