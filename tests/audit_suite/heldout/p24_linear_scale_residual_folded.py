import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer whose output is scaled and added back to itself.
    y * s + y is computed as a single multiply by (1 + s).
    """

    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        y = self.matmul(x)
        return y * (1.0 + self.scaling_factor)


def get_inputs():
    return [torch.rand(32, 64)]


def get_init_inputs():
    return [64, 96, 0.5]
