import torch
import torch.nn as nn

BATCH = 8
CHANNELS = 4
LENGTH = 128


class Model(nn.Module):
    """Max over the channel dimension."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amax(x, dim=1)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, LENGTH)]


def get_init_inputs():
    return []
