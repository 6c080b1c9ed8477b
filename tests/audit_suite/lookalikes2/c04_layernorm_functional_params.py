import torch
import torch.nn as nn


class Model(nn.Module):
    """Layer normalisation over (C, H, W) written out with raw parameters."""

    def __init__(self, shape, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(*shape))
        self.beta = nn.Parameter(torch.zeros(*shape))

    def forward(self, x):
        dims = (1, 2, 3)
        mu = x.mean(dim=dims, keepdim=True)
        var = ((x - mu) ** 2).mean(dim=dims, keepdim=True)
        return (x - mu) / torch.sqrt(var + self.eps) * self.gamma + self.beta


batch_size = 4
C = 16
H = 32
W = 32


def get_inputs():
    return [torch.rand(batch_size, C, H, W)]


def get_init_inputs():
    return [(C, H, W)]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
