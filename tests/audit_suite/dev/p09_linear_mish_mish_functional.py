import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def _mish(t):
    return t * torch.tanh(F.softplus(t))


class Model(nn.Module):
    """Affine map with raw parameters followed by two Mish activations."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.w = nn.Parameter(torch.empty(out_features, in_features))
        self.b = nn.Parameter(torch.zeros(out_features))
        nn.init.kaiming_uniform_(self.w, a=math.sqrt(5))

    def forward(self, x):
        h = F.linear(x, self.w, self.b)
        return _mish(_mish(h))


def get_inputs():
    return [torch.rand(16, 64)]


def get_init_inputs():
    return [64, 40]
