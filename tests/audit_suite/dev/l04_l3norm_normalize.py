import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Projects each row onto the unit L3 sphere."""

    def __init__(self):
        super().__init__()

    def forward(self, embeddings: torch.Tensor) -> torch.Tensor:
        return F.normalize(embeddings, p=3.0, dim=1)


def get_inputs():
    return [torch.rand(64, 768)]


def get_init_inputs():
    return []
