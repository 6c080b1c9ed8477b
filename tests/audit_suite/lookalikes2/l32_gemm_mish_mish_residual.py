import torch
import torch.nn as nn


class Model(nn.Module):
    """Residual layer: Linear, Mish, Mish, and a skip connection from the input."""

    def __init__(self, features):
        super().__init__()
        self.linear = nn.Linear(features, features)

    def forward(self, x):
        y = self.linear(x)
        y = torch.nn.functional.mish(y)
        y = torch.nn.functional.mish(y)
        return x + y


batch_size = 128
features = 512


def get_inputs():
    return [torch.rand(batch_size, features)]


def get_init_inputs():
    return [features]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
