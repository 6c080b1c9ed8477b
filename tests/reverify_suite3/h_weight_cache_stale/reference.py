import torch, torch.nn as nn

ROWS = 32
IN_FEATURES = 96
OUT_FEATURES = 64


class Model(nn.Module):
    """y = x @ W^T, no bias."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features, bias=False)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(ROWS, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
