import torch
import torch.nn as nn

BATCH = 24
IN_FEATURES = 80
OUT_FEATURES = 40


class Model(nn.Module):
    """tanh(Linear(x))."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.tanh(self.fc(x))


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
