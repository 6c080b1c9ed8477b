# CONTROL: online softmax (running max and rescaled running sum) over column blocks:
# any width, and any value range, including rows far below zero.
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def softmax_kernel(x_ptr, o_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m_run = tl.full((BLOCK,), float("-inf"), tl.float32)
    s_run = tl.zeros((BLOCK,), tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf"))
        m_new = tl.maximum(m_run, v)
        s_run = s_run * tl.exp(m_run - m_new) + tl.exp(v - m_new)
        s_run = tl.where(m_new == float("-inf"), 0.0, s_run)
        m_run = m_new
    mx = tl.max(m_run, axis=0)
    tot = tl.sum(tl.where(m_run == float("-inf"), 0.0, s_run * tl.exp(m_run - mx)), axis=0)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        msk = cols < n_cols
        v = tl.load(x_ptr + row * n_cols + cols, mask=msk, other=float("-inf"))
        tl.store(o_ptr + row * n_cols + cols, tl.exp(v - mx) / tot, mask=msk)


def triton_softmax(x):
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    out = torch.empty_like(x2)
    softmax_kernel[(x2.shape[0],)](x2, out, x2.shape[1], BLOCK=128)
    return out.reshape(x.shape)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return triton_softmax(x)
