import torch
import torch.nn as nn

BATCH = 4
M = 16
K = 32
N = 24


class Model(nn.Module):
    """relu(bmm(a, b))."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.relu(torch.bmm(a, b))


def get_inputs():
    return [torch.randn(BATCH, M, K), torch.randn(BATCH, K, N)]


def get_init_inputs():
    return []
