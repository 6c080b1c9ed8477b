import torch
import torch.nn as nn


class Model(nn.Module):
    """Linear, dropout, GELU: a benchmark-style task with a dropout that is not zero."""

    def __init__(self, in_features, out_features, p):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.drop = nn.Dropout(p)
        self.act = nn.GELU()

    def forward(self, x):
        return self.act(self.drop(self.fc(x)))


batch_size = 512
in_features = 2048
out_features = 1024
p = 0.3


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, p]
