import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


@triton.jit
def scale_kernel(src_ptr, dst_ptr, n, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m) * s, mask=m)


@triton.jit
def fill_kernel(dst_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32) + value, mask=m)


def triton_copy(src, dst=None):
    src = src.contiguous()
    if dst is None:
        dst = torch.empty_like(src)
    n = src.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK=1024)
    return dst


def triton_scale(src, s, dst=None):
    src = src.contiguous()
    if dst is None:
        dst = torch.empty_like(src)
    n = src.numel()
    scale_kernel[(triton.cdiv(n, 1024),)](src, dst, n, s, BLOCK=1024)
    return dst


def triton_fill(shape, value, device):
    out = torch.empty(shape, device=device, dtype=torch.float32)
    n = out.numel()
    fill_kernel[(triton.cdiv(n, 1024),)](out, n, value, BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return triton_fill(x.shape, 1.0, x.device)
