import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ShiftedRectifiedConv(nn.Module):
    """Convolution written with raw parameters (registered offset first), then ReLU, then a per-channel offset."""

    def __init__(self, offset_shape, n_out, n_in, ksize):
        super().__init__()
        self.offset = nn.Parameter(torch.randn(offset_shape))
        self.filters = nn.Parameter(torch.empty(n_out, n_in, ksize, ksize))
        self.filter_bias = nn.Parameter(torch.empty(n_out))
        nn.init.kaiming_uniform_(self.filters, a=math.sqrt(5))
        bound = 1.0 / math.sqrt(n_in * ksize * ksize)
        nn.init.uniform_(self.filter_bias, -bound, bound)

    def forward(self, images):
        y = F.conv2d(images, self.filters, self.filter_bias, stride=1, padding=0)
        return torch.clamp(y, min=0.0) + self.offset


BATCH = 6
C_IN, C_OUT = 5, 12
SIDE = 21
KSIZE = 3


def get_inputs():
    return [torch.rand(BATCH, C_IN, SIDE, SIDE)]


def get_init_inputs():
    return [(C_OUT, 1, 1), C_OUT, C_IN, KSIZE]
