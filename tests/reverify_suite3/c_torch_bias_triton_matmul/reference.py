import torch, torch.nn as nn

BATCH = 4
SEQ = 16
IN_FEATURES = 64
OUT_FEATURES = 48


class Model(nn.Module):
    """A linear layer applied to a (batch, seq, features) tensor."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.linear(x)


def get_inputs():
    return [torch.randn(BATCH, SEQ, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
