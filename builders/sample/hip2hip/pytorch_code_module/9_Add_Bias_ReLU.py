import torch
import torch.nn as nn


class Model(nn.Module):
    """Adds a per-channel bias to a (batch, channels) tensor, then ReLU."""

    def __init__(self, channels: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.bias)


channels = 130


def get_inputs():
    return [torch.randn(40, channels)]


def get_init_inputs():
    return [channels]
