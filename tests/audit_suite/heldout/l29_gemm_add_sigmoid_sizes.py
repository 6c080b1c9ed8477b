import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Token-wise projection without built-in bias, then an explicit learnable
    bias and a sigmoid. Works on (batch, tokens, features) inputs.
    """

    def __init__(self, in_features, out_features, bias_shape):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = self.gemm(x)
        x = x + self.bias
        return torch.sigmoid(x)


batch_size = 4
tokens = 10
in_features = 48
out_features = 80
bias_shape = (out_features,)


def get_inputs():
    return [torch.rand(batch_size, tokens, in_features)]


def get_init_inputs():
    return [in_features, out_features, bias_shape]
