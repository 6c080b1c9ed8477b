import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Near-constant output: 1 +- 1e-5 (large magnitude, tiny variation)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return 1.0 + 1e-5 * torch.tanh(x)


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return []
