import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Dense layer, constant gain, leaky rectifier."""

    def __init__(self, negative_slope, in_features, out_features, multiplier=2.0):
        super().__init__()
        self.negative_slope = negative_slope
        self.multiplier = multiplier
        self.gemm = nn.Linear(in_features, out_features)

    def forward(self, x):
        return F.leaky_relu(self.gemm(x) * self.multiplier, negative_slope=self.negative_slope)


def get_inputs():
    return [torch.randn(16, 72)]


def get_init_inputs():
    return [0.1, 72, 56]
