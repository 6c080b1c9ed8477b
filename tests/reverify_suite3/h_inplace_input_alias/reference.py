import torch, torch.nn as nn

ROWS = 64
COLS = 256


class Model(nn.Module):
    """3 * tanh(x)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.tanh(x) * 3.0


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
