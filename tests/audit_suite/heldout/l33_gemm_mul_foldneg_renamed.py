import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Amplified leaky projection.

    A learned affine map lifts the inputs into the hidden space; the result is
    amplified by a fixed gain and passed through a rectifier that folds negative
    signal back as a small positive response.

    Args:
        d_in: width of the incoming features.
        d_hidden: width of the hidden representation.
        gain: fixed amplification factor.
        leak: fold-back factor for negative pre-activations.
    """

    def __init__(self, d_in, d_hidden, gain, leak):
        super().__init__()
        self.proj = nn.Linear(d_in, d_hidden)
        self.gain = gain
        self.leak = leak

    def forward(self, features):
        h = self.proj(features) * self.gain
        return torch.where(h > 0, h, -h * self.leak)


def get_inputs():
    return [torch.randn(12, 50)]


def get_init_inputs():
    return [50, 70, 2.0, 0.1]
