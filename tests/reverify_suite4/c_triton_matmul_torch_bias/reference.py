import torch
import torch.nn as nn

BATCH = 4
SEQ = 12
IN_FEATURES = 48
OUT_FEATURES = 40


class Model(nn.Module):
    """Linear layer on a (batch, seq, features) tensor."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.linear(x)


def get_inputs():
    return [torch.randn(BATCH, SEQ, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
