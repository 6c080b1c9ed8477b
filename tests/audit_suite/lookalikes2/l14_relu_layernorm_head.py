import torch
import torch.nn as nn


class Model(nn.Module):
    """Post-activation head: ReLU, LayerNorm, then a square linear projection."""

    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        return self.out(self.norm(torch.relu(x)))


batch_size = 256
dim = 64


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [dim]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
