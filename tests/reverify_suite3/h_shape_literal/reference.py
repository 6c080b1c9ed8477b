import torch, torch.nn as nn

ROWS = 64
COLS = 384


class Model(nn.Module):
    """RMS normalisation over the last dimension."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
