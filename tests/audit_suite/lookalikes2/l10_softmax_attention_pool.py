import torch
import torch.nn as nn


class Model(nn.Module):
    """Single-head self-attention across the rows of a batch of feature vectors;
    values are the raw inputs."""

    def __init__(self, dim: int):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.scale = dim ** -0.5

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(0, 1) * self.scale
        attn = torch.softmax(scores, dim=1)
        return attn @ x


batch_size = 64
dim = 128


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [dim]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
