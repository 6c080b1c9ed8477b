import torch
import torch.nn as nn


class Model(nn.Module):
    """Pre-norm residual unit: RMS-normalise over channels, mix channels with a
    pointwise convolution and add the result back onto the input stream."""

    def __init__(self, channels: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.proj = nn.Conv2d(channels, channels, kernel_size=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + self.eps)
        h = x / rms
        return x + self.proj(h)


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
