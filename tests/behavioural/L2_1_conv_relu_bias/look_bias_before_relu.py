import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBiasReLU(nn.Module):
    """Same three steps, bias added before the rectifier."""

    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return F.relu(self.conv(x) + self.bias)


def get_inputs():
    return [torch.rand(8, 3, 16, 16)]


def get_init_inputs():
    return [3, 16, 3, (16, 1, 1)]
