import torch
import torch.nn as nn


class Model(nn.Module):
    """Pre-activation residual unit (ResNet v2 style, 1x1 only): BatchNorm, ReLU,
    pointwise convolution, identity shortcut."""

    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features)
        self.conv = nn.Conv2d(num_features, num_features, kernel_size=1)

    def forward(self, x):
        return x + self.conv(torch.relu(self.bn(x)))


batch_size = 16
features = 32
dim1 = 16
dim2 = 16


def get_inputs():
    return [torch.rand(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
