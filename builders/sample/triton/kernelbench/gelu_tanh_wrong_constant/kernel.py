import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_tanh_wrong_constant_kernel(input_ptr, output_ptr, num_elements, BLOCK: tl.constexpr, NUM_PROGRAMS: tl.constexpr):
    block_id = tl.program_id(0)
    for start in range(block_id * BLOCK, num_elements, NUM_PROGRAMS * BLOCK):
        positions = start + tl.arange(0, BLOCK)
        in_bounds = positions < num_elements
        val = tl.load(input_ptr + positions, mask=in_bounds, other=0.0)
        res = 0.5 * val * (1.0 + (2.0 * tl.sigmoid(2.0 * (0.7978845608028654 * (val + 0.44715 * val * val * val)))) - 1.0)
        tl.store(output_ptr + positions, res, mask=in_bounds)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, val):
        val = val.contiguous()
        output = torch.empty_like(val)
        size = val.numel()
        BLOCK = 256
        NUM_PROGRAMS = 4
        gelu_tanh_wrong_constant_kernel[(NUM_PROGRAMS,)](val, output, size, BLOCK=BLOCK, NUM_PROGRAMS=NUM_PROGRAMS)
        return output
