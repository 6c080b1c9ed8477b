# reference: gemm_gelu_big
# gpu-only: timing
"""Control: honest, deliberately slow (16x16 tiles, no tuning): correct, with a speedup below 1."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)

    def forward(self, x):
        return triton_bias_gelu(triton_matmul(x, self.fc.weight), self.fc.bias)
