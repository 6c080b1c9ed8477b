import torch
import torch.nn as nn


class Model(nn.Module):
    """Primer-style feed-forward layer with a squared-ReLU activation and no
    biases."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        h = torch.relu(self.up(x))
        return self.down(h * h)


tokens = 128
dim = 64
hidden = 256


def get_inputs():
    return [torch.randn(tokens, dim)]


def get_init_inputs():
    return [dim, hidden]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
