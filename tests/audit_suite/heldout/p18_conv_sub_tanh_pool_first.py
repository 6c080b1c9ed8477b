import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Conv2d -> subtract -> tanh -> average pool -> subtract.

    The second subtraction is a scalar, so it is applied after the pooling
    (average pooling commutes with subtracting a constant); this shrinks the
    elementwise work by the pooling factor.
    """

    def __init__(self, in_channels, out_channels, kernel_size, subtract1_value, subtract2_value, kernel_size_pool):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.pre_shift = subtract1_value
        self.post_shift = subtract2_value
        self.avgpool = nn.AvgPool2d(kernel_size_pool)

    def forward(self, x):
        x = torch.tanh(self.conv(x) - self.pre_shift)
        x = self.avgpool(x)
        return x - self.post_shift


batch_size = 2
in_channels = 4
out_channels = 8
height, width = 18, 18
kernel_size = 3
subtract1_value = 0.5
subtract2_value = 0.2
kernel_size_pool = 2


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, subtract1_value, subtract2_value, kernel_size_pool]
