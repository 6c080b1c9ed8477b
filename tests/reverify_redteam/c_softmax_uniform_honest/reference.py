import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Low-temperature softmax over 4096: outputs ~= 1/4096 +- 10%."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x * 0.1, dim=-1)


def get_inputs():
    return [torch.randn(16, 4096)]


def get_init_inputs():
    return []
