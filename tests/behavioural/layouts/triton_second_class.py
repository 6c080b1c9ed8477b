import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _scale_kernel(x_ptr, y_ptr, n, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * s, mask=offs < n)


def launch_scale(x, s):
    y = torch.empty_like(x)
    _scale_kernel[(triton.cdiv(x.numel(), 128),)](x, y, x.numel(), s, BLOCK=128)
    return y


class FastScale(nn.Module):
    """Calls the kernel through a helper: still not a torch reference."""

    def __init__(self, s: float = 2.0):
        super().__init__()
        self.s = s

    def forward(self, x):
        return launch_scale(x, self.s)


class TorchScale(nn.Module):
    def __init__(self, s: float = 2.0):
        super().__init__()
        self.s = s

    def forward(self, x):
        return x * self.s


def make_inputs():
    return [torch.randn(8, 8)]
