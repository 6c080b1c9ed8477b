import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Valid 2-D convolution -> ReLU -> learned per-channel offset, written with
    torch.nn.functional and explicitly allocated parameters.
    """

    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.shift = nn.Parameter(torch.randn(bias_shape))
        self.kernel = nn.Parameter(torch.empty(out_channels, in_channels, kernel_size, kernel_size))
        self.kernel_bias = nn.Parameter(torch.empty(out_channels))
        nn.init.kaiming_uniform_(self.kernel, a=math.sqrt(5))
        fan_in = in_channels * kernel_size * kernel_size
        bound = 1.0 / math.sqrt(fan_in)
        nn.init.uniform_(self.kernel_bias, -bound, bound)

    def forward(self, x):
        y = F.conv2d(x, self.kernel, self.kernel_bias)
        y = F.relu(y)
        return y + self.shift


batch_size = 2
in_channels = 4
out_channels = 8
height = width = 16
kernel_size = 3
bias_shape = (out_channels, 1, 1)


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, bias_shape]
