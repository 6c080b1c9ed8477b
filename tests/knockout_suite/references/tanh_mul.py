"""The reference every hostile kernel in this folder pretends to implement: tanh(x) * w."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))

    def forward(self, x):
        return torch.tanh(x) * self.w


def get_inputs():
    return [torch.randn(4, 64)]


def get_init_inputs():
    return [64]
