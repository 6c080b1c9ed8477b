"""relu(-|x|) is zero everywhere: no tolerance can tell a kernel that writes nothing from a right one."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(-torch.abs(x))


def get_inputs():
    return [torch.randn(256)]


def get_init_inputs():
    return []
