import torch
import torch.nn as nn


class Model(nn.Module):
    """Residual block: LayerNorm over (C, H, W), a SiLU non-linearity, and a skip
    connection from the block input."""

    def __init__(self, normalized_shape):
        super().__init__()
        self.norm = nn.LayerNorm(normalized_shape)

    def forward(self, x):
        h = self.norm(x)
        return x + h * torch.sigmoid(h)


batch_size = 8
features = 16
dim1 = 32
dim2 = 32


def get_inputs():
    return [torch.rand(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [(features, dim1, dim2)]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
