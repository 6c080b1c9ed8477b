import torch, torch.nn as nn

BATCH = 4
M = 32
K = 64
N = 32


class Model(nn.Module):
    """Batched matmul."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(BATCH, M, K), torch.randn(BATCH, K, N)]


def get_init_inputs():
    return []
