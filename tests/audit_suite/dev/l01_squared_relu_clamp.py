import torch
import torch.nn as nn


class Model(nn.Module):
    """Squared ReLU (Primer): lower clamp at zero, then square."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.clamp(min=0.0).square()


def get_inputs():
    return [torch.randn(128, 1024)]


def get_init_inputs():
    return []
