import torch
import torch.nn as nn


class Model(nn.Module):
    """LLaMA-style SwiGLU feed-forward (swish written out as g * sigmoid(g))."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.w_gate = nn.Linear(dim, hidden, bias=False)
        self.w_up = nn.Linear(dim, hidden, bias=False)
        self.w_down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        g = self.w_gate(x)
        return self.w_down(g * torch.sigmoid(g) * self.w_up(x))


batch_size = 32
dim = 128
hidden = 344


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [dim, hidden]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
