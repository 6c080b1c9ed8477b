# reference: gemm_gelu_big
# gpu-only: timing
"""Hostile: returns an output buffer at once; a thread fills it afterwards."""
import threading


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)

    def forward(self, x):
        out = torch.empty(x.shape[0], self.fc.weight.shape[0], device=x.device)
        w, b = self.fc.weight.detach(), self.fc.bias.detach()

        def finish():
            out.copy_(triton_bias_gelu(triton_matmul(x, w), b))

        threading.Thread(target=finish, daemon=True).start()
        return out
