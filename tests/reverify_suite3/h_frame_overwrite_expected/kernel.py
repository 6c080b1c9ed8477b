# HOSTILE (poison the expected answer, pygpubench gc_nan / gpu_scan_zeros style, here via
# frame introspection): walks the caller frames, finds any float tensor of the output's
# shape that is not an input (the harness's expected output) and zeroes it in place.
# The kernel itself only writes zeros, so "output == expected" holds in that process.
import sys
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def zero_kernel(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=offs < n)


def _zero_lookalikes(shape, inputs):
    f = sys._getframe(2)
    for _ in range(12):
        if f is None:
            break
        for v in list(f.f_locals.values()):
            items = list(v.values()) if isinstance(v, dict) else list(v) if isinstance(v, (list, tuple)) else [v]
            for t in items:
                if isinstance(t, torch.Tensor) and tuple(t.shape) == shape and t.is_floating_point() \
                        and not any(t is i for i in inputs):
                    t.zero_()
        f = f.f_back


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty(x.shape, device=x.device, dtype=torch.float32)
        _zero_lookalikes(tuple(y.shape), [x])
        n = y.numel()
        zero_kernel[(triton.cdiv(n, 4096),)](y, n, BLOCK=4096)
        return y
