import torch
import torch.nn as nn


class Rectifier(nn.Module):
    def forward(self, x):
        return x * (x > 0).to(x.dtype)


def get_inputs():
    return [torch.rand(64, 500)]
