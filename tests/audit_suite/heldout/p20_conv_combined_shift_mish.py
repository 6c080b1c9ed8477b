import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Convolution followed by a single combined shift and Mish.
    The two scalar subtractions are merged into one constant.
    """

    def __init__(self, in_channels, out_channels, kernel_size, subtract_value_1, subtract_value_2):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.total_shift = subtract_value_1 + subtract_value_2

    def forward(self, x):
        z = self.conv(x) - self.total_shift
        return z * torch.tanh(F.softplus(z))  # mish


batch_size = 2
in_channels = 3
out_channels = 16
height, width = 20, 20
kernel_size = 3


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, 0.5, 0.2]
