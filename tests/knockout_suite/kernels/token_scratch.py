# reference: linear_gelu
"""Hostile: a tiny kernel writes a scratch buffer nobody reads; torch computes the answer."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)

    def forward(self, x):
        triton_fill(x[:1], 1.0)
        return F.gelu(F.linear(x, self.fc.weight, self.fc.bias))
