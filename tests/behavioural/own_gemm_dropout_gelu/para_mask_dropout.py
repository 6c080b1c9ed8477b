import torch
import torch.nn as nn
import torch.nn.functional as F


class ProjectDropGelu(nn.Module):
    """The same layer with a hand-made dropout mask (so train-mode outputs depend on the random draws)."""

    def __init__(self, d_in, d_out, drop):
        super().__init__()
        self.w = nn.Parameter(torch.randn(d_out, d_in) * d_in ** -0.5)
        self.b = nn.Parameter(torch.zeros(d_out))
        self.drop = drop

    def forward(self, x):
        h = F.linear(x, self.w, self.b)
        if self.training and self.drop > 0:
            keep = (torch.rand_like(h) >= self.drop).to(h.dtype)
            h = h * keep / (1.0 - self.drop)
        return 0.5 * h * (1.0 + torch.erf(h / 2 ** 0.5))


def get_inputs():
    return [torch.rand(16, 40)]


def get_init_inputs():
    return [40, 24, 0.3]
