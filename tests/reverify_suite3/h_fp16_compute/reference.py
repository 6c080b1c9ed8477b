import torch, torch.nn as nn

M = 64
K = 64
N = 64


class Model(nn.Module):
    """fp32 matmul."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
