import torch
import torch.nn as nn
import torch.nn.functional as F


def module_fn(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    """Layer normalisation over the last dimension, with affine weight and bias."""
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        ln = nn.LayerNorm(features)
        self.weight = nn.Parameter(ln.weight.detach().clone())
        self.bias = nn.Parameter(ln.bias.detach().clone())
        self.eps = ln.eps

    def forward(self, x, fn=module_fn):
        return fn(x, self.weight, self.bias, self.eps)


features = 300


def get_inputs():
    return [torch.randn(24, features)]


def get_init_inputs():
    return [features]
