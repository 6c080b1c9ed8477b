import torch
import torch.nn as nn

BATCH = 24
IN_FEATURES = 40
OUT_FEATURES = 56


class Model(nn.Module):
    """sigmoid(Linear(x))."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.sigmoid(self.proj(x))


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
