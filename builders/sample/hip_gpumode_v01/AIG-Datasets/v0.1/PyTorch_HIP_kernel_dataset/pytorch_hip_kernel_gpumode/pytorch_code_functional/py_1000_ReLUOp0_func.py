import torch
import torch.nn as nn


def module_fn(x):
    return torch.relu(x)


class Model(nn.Module):
    def forward(self, x, fn=module_fn):
        return fn(x)


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
