import torch
import torch.nn as nn


class Model(nn.Module):
    """Logistic sigmoid computed through the identity sigma(2x) = (1 + tanh(x)) / 2."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return 0.5 * (torch.tanh(x) + 1.0)


def get_inputs():
    return [torch.randn(64, 2000)]


def get_init_inputs():
    return []
