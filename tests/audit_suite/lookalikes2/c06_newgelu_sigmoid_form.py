import math

import torch
import torch.nn as nn


class Model(nn.Module):
    """Tanh-approximate GELU written with a sigmoid: 0.5 * (1 + tanh(u)) == sigmoid(2u)."""

    def __init__(self):
        super().__init__()
        self.k = 2.0 * math.sqrt(2.0 / math.pi)

    def forward(self, x):
        return x * torch.sigmoid(self.k * (x + 0.044715 * x * x * x))


batch_size = 256
dim = 1024


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
