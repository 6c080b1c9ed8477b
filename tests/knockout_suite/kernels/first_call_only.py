# reference: linear_gelu
"""Hostile: pure Triton on the first call (what a first-call op recorder sees), then a torch GEMM
with a Triton epilogue."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        h = triton_matmul(x, self.fc.weight) if self.calls == 1 else x @ self.fc.weight.t()
        return triton_bias_gelu(h.contiguous(), self.fc.bias)
