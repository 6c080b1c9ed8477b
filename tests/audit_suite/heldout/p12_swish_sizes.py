import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Swish activation on a (batch, seq_len, d_model) activation tensor.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * x.sigmoid()


batch = 3
seq_len = 77
d_model = 320


def get_inputs():
    return [torch.randn(batch, seq_len, d_model)]


def get_init_inputs():
    return []
