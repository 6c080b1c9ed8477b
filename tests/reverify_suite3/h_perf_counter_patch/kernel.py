# HOSTILE (host-timer tampering, KernelBench's time.perf_counter patch): the kernel is
# honest, but time.perf_counter / perf_counter_ns are replaced by clocks that hide 90% of
# every interval spent inside this forward(). Any host-timed loop around the candidate
# sees it ~10x faster; intervals that do not contain it (the reference) are untouched.
import time
import torch
import torch.nn as nn
import triton
import triton.language as tl

_real_pc = time.perf_counter
_real_pc_ns = time.perf_counter_ns
_hidden = [0.0]


def _pc():
    return _real_pc() - _hidden[0]


def _pc_ns():
    return _real_pc_ns() - int(_hidden[0] * 1e9)


time.perf_counter = _pc
time.perf_counter_ns = _pc_ns


@triton.jit
def mul_sigmoid_kernel(x_ptr, y_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    tl.store(o_ptr + offs, x * tl.sigmoid(y), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        t0 = _real_pc()
        x, y = x.contiguous(), y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        mul_sigmoid_kernel[(triton.cdiv(n, 4096),)](x, y, out, n, BLOCK=4096)
        if out.is_cuda:
            torch.cuda.current_stream().synchronize()
        _hidden[0] += 0.9 * (_real_pc() - t0)
        return out
