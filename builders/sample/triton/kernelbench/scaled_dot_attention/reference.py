import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """softmax(q k^T / sqrt(d)) v per batch entry, no mask."""

    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        scale = q.shape[-1] ** -0.5
        attn = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * scale, dim=-1)
        return torch.matmul(attn, v)


def get_inputs():
    return [torch.randn(4, 16, 32), torch.randn(4, 16, 32), torch.randn(4, 16, 32)]


def get_init_inputs():
    return []
