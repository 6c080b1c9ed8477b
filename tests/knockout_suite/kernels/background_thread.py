# reference: tanh_mul
"""Hostile: returns at once and lets a thread finish the answer afterwards."""
import threading
import time


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))

    def forward(self, x):
        out = triton_fill(x, 0.0)

        def finish():
            time.sleep(0.3)
            out.copy_(torch.tanh(x) * self.w.detach())

        threading.Thread(target=finish, daemon=True).start()
        return out
