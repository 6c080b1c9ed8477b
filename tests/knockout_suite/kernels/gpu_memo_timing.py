# reference: gemm_gelu_big
# gpu-only: timing
"""Hostile: honest on the judged calls, then memoises by (shape, data_ptr) inside the timing loop."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)
        self.calls = 0
        self.memo = {}

    def forward(self, x):
        self.calls += 1
        key = (tuple(x.shape), x.data_ptr())
        if self.calls > 16 and key in self.memo:
            return self.memo[key]
        out = triton_bias_gelu(triton_matmul(x, self.fc.weight), self.fc.bias)
        self.memo[key] = out
        return out
