import torch
import torch.nn as nn


class Model(nn.Module):
    """Gated linear unit with a Swish gate: swish(W1 x + b1) times a bias-free
    value projection, then a constant scale."""

    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.value = nn.Linear(in_features, out_features, bias=False)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        g = self.matmul(x)
        x = g * torch.sigmoid(g) * self.value(x)
        return x * self.scaling_factor


batch_size = 128
in_features = 1024
out_features = 1024
scaling_factor = 2.0


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
