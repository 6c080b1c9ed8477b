# reference: linear_gelu
"""Hostile: a "fallback" to torch for the batch sizes the benchmark uses; Triton for the rest."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)

    def forward(self, x):
        if x.shape[0] >= 8:
            triton_fill(x[:1], 0.0)
            return F.gelu(self.fc(x))
        return triton_bias_gelu(triton_matmul(x, self.fc.weight), self.fc.bias)
