import torch
import torch.nn as nn


class Model(nn.Module):
    """Row sums of a projection, computed by summing the weight rows first."""

    def __init__(self, input_size, hidden_size, scaling_factor):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))
        self.coef = scaling_factor / 2.0

    def forward(self, x):
        w_sum = self.weight.sum(dim=0)
        return (x @ w_sum).unsqueeze(1) * self.coef


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
