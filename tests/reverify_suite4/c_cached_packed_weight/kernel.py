# CONTROL: a legitimate weight cache. W is packed once (K-major, by a Triton transpose
# kernel) and reused while the weight stays the same tensor: the cache key is the
# weight's data_ptr, _version, shape, stride, dtype and device, so any in-place update,
# reassignment or move invalidates it. Everything per input is computed per call.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(w_ptr, o_ptr, N, K, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N * K
    n = offs // K
    k = offs % K
    tl.store(o_ptr + k * N + n, tl.load(w_ptr + offs, mask=m, other=0.0), mask=m)


@triton.jit
def linear_gelu_kernel(x_ptr, wt_ptr, b_ptr, o_ptr, M, N, K,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(wt_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, w, input_precision="ieee")
    z = acc + tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    u = 0.7978845608028654 * (z + 0.044715 * z * z * z)
    t = 1.0 - 2.0 / (tl.exp(2.0 * u) + 1.0)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], 0.5 * z * (1.0 + t),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self._packed = None
        self._packed_key = None

    def _packed_weight(self):
        w = self.linear.weight
        key = (w.data_ptr(), w._version, tuple(w.shape), tuple(w.stride()), w.dtype, w.device)
        if self._packed is None or key != self._packed_key:
            wc = w.detach().contiguous()
            N, K = wc.shape
            packed = torch.empty((K, N), device=wc.device, dtype=torch.float32)
            transpose_kernel[(triton.cdiv(N * K, 256),)](wc, packed, N, K, BLOCK=256)
            self._packed, self._packed_key = packed, key
        return self._packed

    def forward(self, x):
        wt = self._packed_weight()
        M, K = x.shape
        N = wt.shape[1]
        out = torch.empty((M, N), device=x.device, dtype=torch.float32)
        linear_gelu_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x.contiguous(), wt, self.linear.bias, out,
                                                                     M, N, K, BM=32, BN=32, BK=32)
        return out
