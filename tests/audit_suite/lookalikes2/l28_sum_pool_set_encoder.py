import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Deep-sets style encoder: sum-pool the set elements (dim 1, kept), then
    LayerNorm, GELU and a linear read-out."""

    def __init__(self, feat: int):
        super().__init__()
        self.norm = nn.LayerNorm(feat)
        self.rho = nn.Linear(feat, feat)

    def forward(self, x):
        pooled = torch.sum(x, dim=1, keepdim=True)
        return self.rho(F.gelu(self.norm(pooled)))


batch_size = 32
set_size = 50
feat = 64


def get_inputs():
    return [torch.rand(batch_size, set_size, feat)]


def get_init_inputs():
    return [feat]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
