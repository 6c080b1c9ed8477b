import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def clamp_kernel(src, dst, total, low, high, TILE: tl.constexpr, NUM_PROGRAMS: tl.constexpr):
    prog = tl.program_id(0)
    for start in range(prog * TILE, total, NUM_PROGRAMS * TILE):
        idx = start + tl.arange(0, TILE)
        keep = idx < total
        v = tl.load(src + idx, mask=keep, other=0.0)
        r = tl.minimum(tl.maximum(v, low), high)
        tl.store(dst + idx, r, mask=keep)


class ModelNew(nn.Module):
    def __init__(self, low, high):
        super().__init__()
        self.low = low
        self.high = high

    def forward(self, v):
        v = v.contiguous()
        result = torch.empty_like(v)
        count = v.numel()
        TILE = 256
        NUM_PROGRAMS = 4
        clamp_kernel[(NUM_PROGRAMS,)](v, result, count, self.low, self.high, TILE=TILE, NUM_PROGRAMS=NUM_PROGRAMS)
        return result
