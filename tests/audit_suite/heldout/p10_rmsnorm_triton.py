import torch
import torch.nn as nn
import triton
import triton.language as tl


class Model(nn.Module):
    """PyTorch reference: RMS normalisation over dim=1 of an (N, C, H, W) tensor."""

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x):
        ms = x.pow(2).mean(1, keepdim=True)
        return x * ms.add(self.eps).rsqrt()


@triton.jit
def _rmsnorm_channels_kernel(x_ptr, y_ptr, C, HW, eps, BLOCK_C: tl.constexpr):
    # one program per (n, spatial position); the C values are HW apart
    pid = tl.program_id(0)
    n = pid // HW
    s = pid % HW
    base = n * C * HW + s
    c = tl.arange(0, BLOCK_C)
    mask = c < C
    x = tl.load(x_ptr + base + c * HW, mask=mask, other=0.0)
    mean_sq = tl.sum(x * x, axis=0) / C
    inv = 1.0 / tl.sqrt(mean_sq + eps)
    tl.store(y_ptr + base + c * HW, x * inv, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        N, C, H, W = x.shape
        y = torch.empty_like(x)
        BLOCK_C = triton.next_power_of_2(C)
        _rmsnorm_channels_kernel[(N * H * W,)](x, y, C, H * W, self.eps, BLOCK_C=BLOCK_C)
        return y


batch_size = 2
features = 32
dim1 = 8
dim2 = 8


def get_inputs():
    return [torch.rand(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]
