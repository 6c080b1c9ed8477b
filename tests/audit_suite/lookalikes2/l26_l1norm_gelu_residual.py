import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Residual MLP on mean-absolute-normalised features: normalise, expand, GELU,
    project, scale by one half, add the input."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        unit = x / torch.mean(torch.abs(x), dim=1, keepdim=True)
        h = self.fc2(F.gelu(self.fc1(unit)))
        return 0.5 * h + x


batch_size = 128
dim = 64
hidden = 128


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [dim, hidden]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
