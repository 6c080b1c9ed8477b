import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Projects each row and reduces it to a single score of shape (batch, 1).

    The feature-sum of a linear layer is itself a linear functional, so the
    weight matrix is reduced first: score = x @ W.sum(0) + b.sum().  This needs
    a GEMV instead of a full GEMM.
    """

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        w = self.linear.weight.sum(dim=0)        # (in_features,)
        b = self.linear.bias.sum()
        return (x @ w).unsqueeze(1) + b


batch_size = 32
in_features = 64
out_features = 128


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
