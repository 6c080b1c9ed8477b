import torch
import torch.nn as nn


class Model(nn.Module):
    """Swish-tailed linear unit: x for x > 0, alpha * x * sigmoid(x) otherwise."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        return torch.where(x > 0, x, self.alpha * x * torch.sigmoid(x))


def get_inputs():
    return [torch.randn(64, 1000)]


def get_init_inputs():
    return []
