import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear -> (x - c) * m -> ReLU, with the positive scale m pulled outside the
    ReLU (relu(m * t) == m * relu(t) for m > 0).
    """

    def __init__(self, in_features, out_features, subtract_value, multiply_value):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.subtract_value = subtract_value
        self.multiply_value = multiply_value

    def forward(self, x):
        t = self.linear(x) - self.subtract_value
        return self.multiply_value * torch.clamp(t, min=0.0)


batch_size = 16
in_features = 64
out_features = 48


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, 2.0, 1.5]
