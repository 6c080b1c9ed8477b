import torch
import torch.nn as nn


class Model(nn.Module):
    """Tiny classifier head: LayerNorm over the whole feature map, global average
    pooling, GELU and a linear layer producing class logits."""

    def __init__(self, normalized_shape, num_classes: int):
        super().__init__()
        self.norm = nn.LayerNorm(normalized_shape)
        self.act = nn.GELU()
        self.head = nn.Linear(normalized_shape[0], num_classes)

    def forward(self, x):
        h = self.norm(x)
        pooled = h.mean(dim=(2, 3))
        return self.head(self.act(pooled))


batch_size = 16
features = 32
dim1 = 16
dim2 = 16
num_classes = 10


def get_inputs():
    return [torch.rand(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [(features, dim1, dim2), num_classes]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
