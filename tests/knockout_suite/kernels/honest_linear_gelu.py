# reference: linear_gelu
"""Control: the GEMM and the bias+gelu epilogue both in Triton."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)

    def forward(self, x):
        return triton_bias_gelu(triton_matmul(x, self.fc.weight), self.fc.bias)
