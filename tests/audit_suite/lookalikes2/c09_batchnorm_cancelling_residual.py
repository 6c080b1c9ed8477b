import torch
import torch.nn as nn


class Model(nn.Module):
    """BatchNorm2d inside a residual wrapper whose skip path is added and then
    subtracted again (the wrapper is an exact no-op)."""

    def __init__(self, num_features):
        super().__init__()
        self.norm = nn.BatchNorm2d(num_features)

    def forward(self, x):
        skip = x
        y = skip + self.norm(x)
        return y - skip


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
