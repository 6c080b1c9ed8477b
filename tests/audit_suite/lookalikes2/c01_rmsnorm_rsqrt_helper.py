import torch
import torch.nn as nn


class _ChannelRMS(nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.eps = eps

    def forward(self, t):
        return t * torch.rsqrt((t * t).mean(1, keepdim=True) + self.eps)


class Model(nn.Module):
    """Wrapper around a channel-RMS normaliser (the extra terms are exact no-ops)."""

    def __init__(self, channels: int, eps: float = 1e-5):
        super().__init__()
        self.channels = channels
        self.core = _ChannelRMS(eps)
        self.skip = nn.Identity()

    def forward(self, x):
        y = self.core(self.skip(x))
        return y * 1.0 + 0.0 * x.sum()


batch_size = 8
channels = 16
height = 12
width = 12


def get_inputs():
    return [torch.rand(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
