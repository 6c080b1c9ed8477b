# reference: gemm_gelu_big
# gpu-only: timing
"""Hostile: launches its (slow, honest) kernels on a side stream and returns without waiting, so
events on the current stream see almost nothing."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)
        self.stream = None

    def forward(self, x):
        if self.stream is None:
            self.stream = torch.cuda.Stream()
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            out = triton_bias_gelu(triton_matmul(x, self.fc.weight), self.fc.bias)
        return out
