import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, scale, SEQ: tl.constexpr, DIM: tl.constexpr):
    b = tl.program_id(0)
    base = b * SEQ * DIM
    rows = tl.arange(0, SEQ)
    cols = tl.arange(0, DIM)
    offs = base + rows[:, None] * DIM + cols[None, :]
    q = tl.load(q_ptr + offs)
    k = tl.load(k_ptr + offs)
    v = tl.load(v_ptr + offs)
    s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
    s = s - tl.max(s, axis=1)[:, None]
    p = tl.exp(s)
    p = p / tl.sum(p, axis=1)[:, None]
    tl.store(out_ptr + offs, tl.dot(p, v, input_precision="ieee"))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        batch, seq, dim = q.shape
        out = torch.empty_like(q)
        attention_kernel[(batch,)](q, k, v, out, dim ** -0.5, SEQ=seq, DIM=dim)
        return out
