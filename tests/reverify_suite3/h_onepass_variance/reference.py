import torch, torch.nn as nn

ROWS = 64
COLS = 1024


class Model(nn.Module):
    """Row-wise population variance."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.var(x, dim=-1, unbiased=False)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
