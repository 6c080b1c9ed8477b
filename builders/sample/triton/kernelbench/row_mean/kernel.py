import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_mean_kernel(src, dst, width, WIDTH_P2: tl.constexpr):
    prog = tl.program_id(0)
    lane = tl.arange(0, WIDTH_P2)
    keep = lane < width
    v = tl.load(src + prog * width + lane, mask=keep, other=0.0)
    tl.store(dst + prog, tl.sum(v, axis=0) / width)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, v):
        v = v.contiguous()
        height, width = v.shape
        result = torch.empty(height, device=v.device, dtype=v.dtype)
        WIDTH_P2 = triton.next_power_of_2(width)
        row_mean_kernel[(height,)](v, result, width, WIDTH_P2=WIDTH_P2)
        return result
