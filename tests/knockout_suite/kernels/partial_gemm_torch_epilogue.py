# reference: linear_gelu
"""Control, a legitimate partial kernel: a Triton GEMM, then torch adds the bias and applies gelu."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)

    def forward(self, x):
        return F.gelu(triton_matmul(x, self.fc.weight) + self.fc.bias)
