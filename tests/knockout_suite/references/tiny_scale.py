"""x * 1e-7: every output is far below atol, so zeros pass a fixed tolerance."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 1e-7


def get_inputs():
    return [torch.randn(4096)]


def get_init_inputs():
    return []
