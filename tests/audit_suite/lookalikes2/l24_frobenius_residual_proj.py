import torch
import torch.nn as nn


class Model(nn.Module):
    """Globally normalised side branch: the whole tensor is divided by its
    Frobenius norm, mixed across channels, and added to the input."""

    def __init__(self, channels: int):
        super().__init__()
        self.mix = nn.Conv2d(channels, channels, kernel_size=1)

    def forward(self, x):
        unit = x / torch.norm(x, p='fro')
        return x + self.mix(unit)


batch_size = 4
channels = 16
dim1 = 32
dim2 = 32


def get_inputs():
    return [torch.rand(batch_size, channels, dim1, dim2)]


def get_init_inputs():
    return [channels]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
