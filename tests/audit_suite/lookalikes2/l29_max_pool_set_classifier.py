import torch
import torch.nn as nn


class Model(nn.Module):
    """PointNet-style classifier head: max-pool over the points (dim 1), linear
    layer, softmax over classes."""

    def __init__(self, feat: int, num_classes: int):
        super().__init__()
        self.head = nn.Linear(feat, num_classes)

    def forward(self, x):
        pooled = torch.max(x, dim=1)[0]
        return torch.softmax(self.head(pooled), dim=-1)


batch_size = 32
points = 1024
feat = 64
num_classes = 64


def get_inputs():
    return [torch.rand(batch_size, points, feat)]


def get_init_inputs():
    return [feat, num_classes]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
