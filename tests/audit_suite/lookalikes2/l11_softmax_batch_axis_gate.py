import torch
import torch.nn as nn


class Model(nn.Module):
    """Cross-sample gating: a linear score per feature is normalised with a softmax
    over the batch axis and used to re-weight the inputs (mean weight 1)."""

    def __init__(self, dim: int):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        w = torch.softmax(self.gate(x), dim=0)
        return w * x * x.size(0)


batch = 32
features = 256


def get_inputs():
    return [torch.rand(batch, features)]


def get_init_inputs():
    return [features]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
