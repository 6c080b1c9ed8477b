# reference: tiny_scale
"""Hostile: writes zeros; every reference value is below atol."""


class ModelNew(nn.Module):
    def forward(self, x):
        return triton_fill(x, 0.0)
