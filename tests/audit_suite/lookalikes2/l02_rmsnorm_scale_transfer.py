import torch
import torch.nn as nn


class Model(nn.Module):
    """Normalises the feature map by its per-position channel RMS and then
    re-scales it to the mean absolute magnitude of a learned channel probe."""

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.probe = nn.Conv2d(num_features, num_features, kernel_size=1, bias=False)
        self.gain = nn.Parameter(torch.ones(num_features))

    def forward(self, x):
        inv_rms = torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + self.eps)
        normed = x * inv_rms
        target_scale = self.probe(x).abs().mean(dim=1, keepdim=True)
        return normed * target_scale * self.gain.view(1, -1, 1, 1)


batch = 4
num_features = 32
h = 16
w = 8


def get_inputs():
    return [torch.rand(batch, num_features, h, w)]


def get_init_inputs():
    return [num_features]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
