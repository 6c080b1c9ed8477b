import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Dense layer with a raw (in, out) weight, GELU, softmax over the last axis.
    Constructor arguments are (out_features, in_features)."""

    def __init__(self, out_features, in_features):
        super().__init__()
        self.W = nn.Parameter(torch.randn(in_features, out_features) * in_features ** -0.5)
        self.b = nn.Parameter(torch.zeros(out_features))

    def forward(self, x):
        h = F.gelu(torch.addmm(self.b, x, self.W))
        return torch.softmax(h, dim=-1)


batch_size = 128
in_features = 256
out_features = 192


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [out_features, in_features]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
