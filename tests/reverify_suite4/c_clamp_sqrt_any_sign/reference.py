import torch
import torch.nn as nn

ROWS = 32
COLS = 128


class Model(nn.Module):
    """sqrt of the positive part."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sqrt(torch.clamp(x, min=0.0))


def get_inputs():
    return [torch.rand(ROWS, COLS)]


def get_init_inputs():
    return []
