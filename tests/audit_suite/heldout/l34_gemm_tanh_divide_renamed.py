import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Tanh dense layer with output attenuation.

    Args:
        n_in: input width.
        n_out: output width.
        divisor: attenuation factor; outputs are multiplied by its reciprocal.
    """

    def __init__(self, n_in, n_out, divisor):
        super().__init__()
        self.dense = nn.Linear(n_in, n_out)
        self.inv_scale = 1.0 / divisor

    def forward(self, inputs):
        activated = torch.tanh(self.dense(inputs))
        return activated * self.inv_scale


def get_inputs():
    return [torch.rand(10, 64)]


def get_init_inputs():
    return [64, 32, 2.0]
