import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Tiny scale: outputs ~1e-7."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 1e-7


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return []
