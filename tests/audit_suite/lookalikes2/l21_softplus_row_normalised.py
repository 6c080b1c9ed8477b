import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Positive attention-style weights: softplus of a linear score, normalised so
    that each row sums to one."""

    def __init__(self, dim: int):
        super().__init__()
        self.score = nn.Linear(dim, dim)

    def forward(self, x):
        s = F.softplus(self.score(x))
        return s / s.sum(dim=1, keepdim=True)


batch_size = 64
dim = 200


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [dim]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
