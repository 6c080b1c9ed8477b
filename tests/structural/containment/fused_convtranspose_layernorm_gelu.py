"""A volumetric decoder whose upsampling step is KernelBench 2/34 (ConvTranspose3d -> LayerNorm -> GELU ->
scaling), with the LayerNorm written out by hand, followed by a refining conv and a sigmoid mask."""
import math

import torch
import torch.nn as nn


class Upsample(nn.Module):
    def __init__(self, cin, cout, scale=0.5, eps=1e-5):
        super().__init__()
        self.up = nn.ConvTranspose3d(cin, cout, 4, stride=2, padding=1)
        self.gamma = nn.Parameter(torch.ones(cout))
        self.beta = nn.Parameter(torch.zeros(cout))
        self.scale, self.eps = scale, eps

    def forward(self, v):
        v = self.up(v)
        mu = v.mean(dim=-1, keepdim=True)
        var = ((v - mu) ** 2).mean(dim=-1, keepdim=True)
        v = (v - mu) / torch.sqrt(var + self.eps) * self.gamma + self.beta
        v = 0.5 * v * (1.0 + torch.erf(v / math.sqrt(2.0)))
        return v * self.scale


class VolumeDecoder(nn.Module):
    def __init__(self, latent=16, channels=8):
        super().__init__()
        self.channels = channels
        self.fc = nn.Linear(latent, channels * 4 * 4 * 4)
        self.up = Upsample(channels, channels)
        self.refine = nn.Conv3d(channels, 1, 3, padding=1)

    def forward(self, z):
        v = self.fc(z).view(z.size(0), self.channels, 4, 4, 4)
        v = self.up(v)
        return torch.sigmoid(self.refine(v))


def get_inputs():
    return [torch.rand(2, 16)]


def get_init_inputs():
    return []
