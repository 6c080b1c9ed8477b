import torch
import torch.nn as nn


class Projection(nn.Module):
    def __init__(self, in_features, out_features, scale=1.0):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        return self.fc(x) * self.scale


IN_FEATURES = 12
out_features = 7
BATCH = 3


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]
