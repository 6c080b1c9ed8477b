import torch
import torch.nn as nn


def module_fn(x: torch.Tensor, scale: float) -> torch.Tensor:
    """Multiplies a tensor by a constant factor."""
    return x * scale


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x, fn=module_fn):
        return fn(x, self.scale)


def get_inputs():
    return [torch.randn(8, 513)]


def get_init_inputs():
    return [0.5]
