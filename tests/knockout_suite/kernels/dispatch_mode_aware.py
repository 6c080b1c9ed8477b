# reference: linear_gelu
"""Hostile: Triton only while a TorchDispatchMode (what an op recorder is) is active; torch otherwise."""
from torch.utils._python_dispatch import _get_current_dispatch_mode


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)

    def forward(self, x):
        if _get_current_dispatch_mode() is not None:
            return triton_bias_gelu(triton_matmul(x, self.fc.weight), self.fc.bias)
        triton_fill(x[:1], 0.0)
        return F.gelu(self.fc(x))
