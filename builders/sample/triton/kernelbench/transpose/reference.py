import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Materialised transpose of a matrix."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.t().contiguous()


def get_inputs():
    return [torch.randn(40, 56)]


def get_init_inputs():
    return []
