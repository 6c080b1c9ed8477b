import torch
import torch.nn as nn


class Model(nn.Module):
    """Fully connected layer, then offset, scale and sigmoid squashing."""

    def __init__(self, in_features: int, out_features: int, scale: float = 1.5, offset: float = 2.0):
        super().__init__()
        self.offset = offset
        self.scale = scale
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.sigmoid((self.fc(x) - self.offset) * self.scale)


batch_size = 8
in_features = 40
out_features = 40


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    # scale and offset are left at their defaults
    return [in_features, out_features]
