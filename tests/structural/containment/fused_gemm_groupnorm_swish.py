"""A tabular model whose hidden block is KernelBench 2/88 (Gemm -> GroupNorm -> Swish -> * weight -> Swish),
written with F.silu and renamed parts, between an input projection and a classification head."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedHidden(nn.Module):
    def __init__(self, d_in, d_out, groups):
        super().__init__()
        self.proj = nn.Linear(d_in, d_out)
        self.norm = nn.GroupNorm(groups, d_out)
        self.gain = nn.Parameter(torch.ones(d_out))

    def forward(self, h):
        h = F.silu(self.norm(self.proj(h)))
        return F.silu(h * self.gain)


class TabularNet(nn.Module):
    def __init__(self, n_features=40, hidden=64, groups=8, n_classes=3):
        super().__init__()
        self.embed = nn.Linear(n_features, hidden)
        self.embed_norm = nn.LayerNorm(hidden)
        self.hidden = GatedHidden(hidden, hidden, groups)
        self.drop = nn.Dropout(0.1)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, rows):
        h = torch.relu(self.embed_norm(self.embed(rows)))
        h = self.drop(self.hidden(h)) + h
        return self.out(h)


def get_inputs():
    return [torch.rand(32, 40)]


def get_init_inputs():
    return []
