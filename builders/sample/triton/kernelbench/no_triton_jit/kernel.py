import torch
import torch.nn as nn
import triton
import triton.language as tl


def square(x):
    return x * x


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return square(x)
