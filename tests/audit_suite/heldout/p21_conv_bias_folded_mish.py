import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Conv2d + Mish where the constant offsets that follow the convolution are
    folded into the convolution bias at construction time, so the forward pass
    is a plain conv followed by the activation.
    """

    def __init__(self, in_channels, out_channels, kernel_size, subtract_value_1, subtract_value_2):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        with torch.no_grad():
            self.conv.bias.sub_(subtract_value_1 + subtract_value_2)

    def forward(self, x):
        return F.mish(self.conv(x))


def get_inputs():
    return [torch.rand(2, 8, 16, 16)]


def get_init_inputs():
    return [8, 12, 3, 0.5, 0.2]
