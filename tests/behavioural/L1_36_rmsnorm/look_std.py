import torch
import torch.nn as nn


class Model(nn.Module):
    """Divides by the standard deviation (mean removed), not by the root mean square."""

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return x / torch.sqrt(x.var(dim=1, keepdim=True, unbiased=False) + self.eps)


def get_inputs():
    return [torch.rand(8, 32, 16, 16)]


def get_init_inputs():
    return [32]
