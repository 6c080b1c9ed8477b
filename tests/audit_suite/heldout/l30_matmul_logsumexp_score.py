import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Projects each row and reduces it to a single score of shape (batch, 1).

    The score is a smooth maximum (log-sum-exp) over the projected features.
    """

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.logsumexp(self.linear(x), dim=1, keepdim=True)


batch_size = 32
in_features = 64
out_features = 128


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
