# adapted from the Triton fused-attention tutorial; decode-only variant
import torch
import triton
import triton.language as tl


@triton.jit
def _splitk_decode_kernel(Q, K, V, Out, Lse, stride_kn, stride_vn, N_CTX,
                          BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
                          SPLITS: tl.constexpr):
    pid_s = tl.program_id(0)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + offs_d)
    chunk = tl.cdiv(N_CTX, SPLITS)
    start = pid_s * chunk
    m_i = -float("inf")
    l_i = 0.0
    acc = tl.zeros([HEAD_DIM], dtype=tl.float32)
    for n0 in range(start, tl.minimum(start + chunk, N_CTX), BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        mask = offs_n < N_CTX
        k = tl.load(K + offs_n[:, None] * stride_kn + offs_d[None, :], mask=mask[:, None], other=0.0)
        s = tl.sum(k * q[None, :], axis=1)
        s = tl.where(mask, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, 0))
        p = tl.exp(s - m_new)
        v = tl.load(V + offs_n[:, None] * stride_vn + offs_d[None, :], mask=mask[:, None], other=0.0)
        acc = acc * tl.exp(m_i - m_new) + tl.sum(p[:, None] * v, axis=0)
        l_i = l_i * tl.exp(m_i - m_new) + tl.sum(p, 0)
        m_i = m_new
    tl.store(Out + pid_s * HEAD_DIM + offs_d, acc / l_i)
    tl.store(Lse + pid_s, m_i + tl.log(l_i))
