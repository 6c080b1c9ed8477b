import torch
import torch.nn as nn


class Model(nn.Module):
    """Linear layer and GELU, then a softmax over the batch axis (each feature's
    weights across samples sum to one)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = self.linear(x)
        x = torch.nn.functional.gelu(x)
        x = torch.nn.functional.softmax(x, dim=0)
        return x


batch_size = 256
in_features = 512
out_features = 384


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
