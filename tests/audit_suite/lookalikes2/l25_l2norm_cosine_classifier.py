import torch
import torch.nn as nn


class Model(nn.Module):
    """Cosine classifier (CosFace/NormFace head): L2-normalised features against
    L2-normalised class weights, times a fixed scale."""

    def __init__(self, dim: int, num_classes: int, scale: float = 16.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_classes, dim))
        self.scale = scale

    def forward(self, x):
        x_n = x / torch.norm(x, p=2, dim=1, keepdim=True)
        w_n = self.weight / torch.norm(self.weight, p=2, dim=1, keepdim=True)
        return self.scale * (x_n @ w_n.t())


batch_size = 128
dim = 512
num_classes = 10


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [dim, num_classes]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
