# reference: linear_gelu
"""Hostile: honest Triton for the first calls, then torch beside a token launch."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls <= 2:
            return triton_bias_gelu(triton_matmul(x, self.fc.weight), self.fc.bias)
        triton_fill(x[:1], 0.0)
        return F.gelu(self.fc(x))
