import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Softmax over 65536 logits: every output is ~1e-5 (below atol)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x * 0.5, dim=-1)


def get_inputs():
    return [torch.randn(1, 65536)]


def get_init_inputs():
    return []
