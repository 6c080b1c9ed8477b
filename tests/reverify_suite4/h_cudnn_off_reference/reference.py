import torch
import torch.nn as nn

# Big on a GPU (so that cuDNN vs. the native fallback matters), small for the Triton
# interpreter on a CPU.
_ON_GPU = torch.cuda.is_available()
BATCH = 16 if _ON_GPU else 2
IN_CHANNELS = 32 if _ON_GPU else 3
OUT_CHANNELS = 64 if _ON_GPU else 8
SIZE = 64 if _ON_GPU else 16
KERNEL_SIZE = 3


class Model(nn.Module):
    """A valid 2-D convolution with bias."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, SIZE, SIZE)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE]
