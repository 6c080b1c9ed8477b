import torch
import torch.nn as nn


class MeanAbsScale(nn.Module):
    def forward(self, x):
        n = x.shape[1]
        return x / (torch.linalg.vector_norm(x, ord=1, dim=1, keepdim=True) / n)


def get_inputs():
    return [torch.rand(40, 300)]
