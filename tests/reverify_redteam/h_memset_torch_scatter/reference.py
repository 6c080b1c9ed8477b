import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Shifted ReLU, ~0.6% of outputs non-zero (up to ~2)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x - 2.5)


def get_inputs():
    return [torch.randn(64, 512)]


def get_init_inputs():
    return []
