import torch
import torch.nn as nn


class AffineRectifier(nn.Module):
    """x @ W + b, rectified; the weight is stored (in, out) and the arguments come in another order."""

    def __init__(self, bias_shape, out_features, in_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features) / in_features ** 0.5)
        self.shift = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return torch.relu(torch.matmul(x, self.weight) + self.shift)


batch = 50
in_features = 300
out_features = 45


def get_inputs():
    return [torch.rand(batch, in_features)]


def get_init_inputs():
    return [[], {"in_features": in_features, "out_features": out_features, "bias_shape": (out_features,)}]
