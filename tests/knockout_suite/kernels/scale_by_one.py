# reference: linear_gelu
"""Hostile: torch re-implements the layer by hand; a Triton kernel "scales" the result by 1."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)

    def forward(self, x):
        h = x @ self.fc.weight.t() + self.fc.bias
        y = 0.5 * h * (1.0 + torch.erf(h / 2 ** 0.5))
        return triton_copy(y, 1.0)
