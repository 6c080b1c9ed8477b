import torch
import torch.nn as nn


class Model(nn.Module):
    """x-vector statistics pooling: mean and standard deviation over the time axis
    (dim 1), concatenated, layer-normalised and projected."""

    def __init__(self, feat_dim: int, out_dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(2 * feat_dim)
        self.proj = nn.Linear(2 * feat_dim, out_dim)

    def forward(self, x):
        mu = torch.mean(x, dim=1)
        sd = torch.sqrt(torch.mean((x - mu.unsqueeze(1)) ** 2, dim=1) + 1e-5)
        return self.proj(self.norm(torch.cat([mu, sd], dim=-1)))


batch_size = 16
frames = 200
feat_dim = 40
out_dim = 40


def get_inputs():
    return [torch.rand(batch_size, frames, feat_dim)]


def get_init_inputs():
    return [feat_dim, out_dim]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
