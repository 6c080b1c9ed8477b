import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Bias-add + ReLU fused into the GEMM epilogue via torch.addmm."""

    def __init__(self, in_features, out_features, bias_shape):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))

    def forward(self, x):
        return F.relu(torch.addmm(self.bias, x, self.weight.t()))


batch_size = 16
in_features = 96
out_features = 64
bias_shape = (out_features,)


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, bias_shape]
