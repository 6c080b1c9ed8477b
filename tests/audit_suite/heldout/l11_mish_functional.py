import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Self-regularised non-monotonic activation (Mish) applied elementwise."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.mish(x)


batch_size = 128
dim = 2048


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
