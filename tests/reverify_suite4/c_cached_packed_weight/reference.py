import torch
import torch.nn as nn

BATCH = 24
IN_FEATURES = 56
OUT_FEATURES = 40


class Model(nn.Module):
    """GELU(tanh approximation) of a Linear layer."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.nn.functional.gelu(self.linear(x), approximate="tanh")


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
