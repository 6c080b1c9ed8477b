import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """GEGLU gate without biases: GELU of one projection times another projection."""

    def __init__(self, dim: int):
        super().__init__()
        self.w_gate = nn.Linear(dim, dim, bias=False)
        self.w_value = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        return F.gelu(self.w_gate(x)) * self.w_value(x)


batch_size = 64
dim = 256


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [dim]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
