import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def exp_kernel(p_in, p_out, count_, VEC: tl.constexpr, NUM_PROGRAMS: tl.constexpr):
    program = tl.program_id(0)
    for start in range(program * VEC, count_, NUM_PROGRAMS * VEC):
        lanes = start + tl.arange(0, VEC)
        active = lanes < count_
        xs = tl.load(p_in + lanes, mask=active, other=0.0)
        ys = tl.exp(xs)
        tl.store(p_out + lanes, ys, mask=active)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, xs):
        xs = xs.contiguous()
        ys_buf = torch.empty(xs.shape, device=xs.device, dtype=xs.dtype)
        cnt = xs.numel()
        VEC = 256
        NUM_PROGRAMS = 4
        exp_kernel[(NUM_PROGRAMS,)](xs, ys_buf, cnt, VEC=VEC, NUM_PROGRAMS=NUM_PROGRAMS)
        return ys_buf
