import torch
import torch.nn as nn


class Model(nn.Module):
    """Max-shifted scores over the class axis: x - max(x) (unnormalised log-probabilities)."""

    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return scores - scores.amax(dim=self.dim, keepdim=True)


def get_inputs():
    return [torch.rand(96, 96)]


def get_init_inputs():
    return []
