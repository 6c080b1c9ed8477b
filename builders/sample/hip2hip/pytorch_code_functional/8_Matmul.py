import torch
import torch.nn as nn


def module_fn(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """Matrix product of A (M, K) and B (K, N)."""
    return torch.matmul(A, B)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B, fn=module_fn):
        return fn(A, B)


M, K, N = 70, 45, 33


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
