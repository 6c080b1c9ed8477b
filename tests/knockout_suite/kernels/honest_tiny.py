# reference: tiny_scale
"""Control: x * 1e-7 computed by a Triton kernel."""


class ModelNew(nn.Module):
    def forward(self, x):
        return triton_copy(x, 1e-7)
