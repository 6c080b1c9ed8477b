import torch
import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.fc(x)


class Tower(nn.Module):
    """Uses Residual: Residual is part of Tower, not a reference of its own."""

    def __init__(self, dim, depth=2):
        super().__init__()
        self.blocks = nn.Sequential(*[Residual(dim) for _ in range(depth)])

    def forward(self, x):
        return self.blocks(x)


class Gate(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return x * torch.sigmoid(self.proj(x))


dim = 16


def get_inputs():
    return [torch.randn(2, dim)]
