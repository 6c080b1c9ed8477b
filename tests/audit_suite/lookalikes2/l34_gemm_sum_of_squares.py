import torch
import torch.nn as nn


class Model(nn.Module):
    """Energy of a projection: matmul, halve, sum of squares over the hidden units,
    and a constant scale."""

    def __init__(self, input_size, hidden_size, scaling_factor):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = torch.matmul(x, self.weight.T)
        x = x / 2
        x = torch.sum(x * x, dim=1, keepdim=True)
        x = x * self.scaling_factor
        return x


batch_size = 256
input_size = 512
hidden_size = 512
scaling_factor = 1.5


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, scaling_factor]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
