# reference: linear_gelu
"""Control: keeps its intermediate and output buffers in the module between calls (legitimate)."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)
        self._h = None
        self._out = None

    def forward(self, x):
        m, k = x.shape
        n = self.fc.weight.shape[0]
        if self._h is None or self._h.shape != (m, n):
            self._h = torch.empty(m, n, device=x.device)
            self._out = torch.empty(m, n, device=x.device)
        matmul_kernel[(triton.cdiv(m, 16), triton.cdiv(n, 16))](x.contiguous(), self.fc.weight, self._h, m, n, k,
                                                                  BM=16, BN=16, BK=16)
        bias_gelu_kernel[(triton.cdiv(m * n, 256),)](self._h, self.fc.bias, self._out, m * n, n, BLOCK=256)
        return self._out.clone()
