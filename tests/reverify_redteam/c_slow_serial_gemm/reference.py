import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Plain linear 64x128 -> 128."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.linear(x)


def get_inputs():
    return [torch.randn(64, 128)]


def get_init_inputs():
    return [128, 128]
