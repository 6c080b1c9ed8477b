import torch
import torch.nn as nn


def module_fn(x):
    return x * x


class Model(nn.Module):
    def forward(self, x, fn=module_fn):
        return fn(x)


def get_inputs():
    return [torch.randn(19, 88)]


def get_init_inputs():
    return []
