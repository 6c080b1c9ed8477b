import torch, torch.nn as nn

ROWS = 64
COLS = 256


class Model(nn.Module):
    """relu(x) * 0.5 + y."""

    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.relu(x) * 0.5 + y


def get_inputs():
    return [torch.randn(ROWS, COLS), torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
