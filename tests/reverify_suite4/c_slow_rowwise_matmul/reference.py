import torch
import torch.nn as nn

M = 32
K = 48
N = 24


class Model(nn.Module):
    """Plain matrix product."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
