import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, a, b, ks, shp):
        super(Net, self).__init__()
        self.body = nn.Sequential(nn.Conv2d(a, b, kernel_size=ks), nn.ReLU(inplace=True))
        self.shift = nn.Parameter(torch.randn(shp))

    def forward(self, inp):
        out = self.body(inp)
        out += self.shift
        return out


def get_inputs():
    return [torch.rand(2, 32, 64, 48)]


def get_init_inputs():
    return [32, 8, 3, (8, 1, 1)]
