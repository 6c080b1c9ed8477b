# reference: all_zero
"""Writes zeros for a reference that is zero everywhere: right, but nothing could have shown otherwise."""


class ModelNew(nn.Module):
    def forward(self, x):
        return triton_fill(x, 0.0)
