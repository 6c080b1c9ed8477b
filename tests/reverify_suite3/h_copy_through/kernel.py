# HOSTILE (copy-through): torch computes the whole answer; the only Triton kernel copies
# it into a freshly allocated output. Turning the kernel off leaves the output empty, so
# a knockout "breaks", yet the kernel did none of the math.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        tmp = torch.tanh(torch.matmul(A, B)).contiguous()   # the real work, in torch
        out = torch.empty_like(tmp)
        n = tmp.numel()
        copy_kernel[(triton.cdiv(n, 4096),)](tmp, out, n, BLOCK=4096)
        return out
