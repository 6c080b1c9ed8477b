import torch
import torch.nn as nn


class Model(nn.Module):
    """Feature-matching loss: project predictions and targets with two separate
    linear maps, layer-normalise both, and take the mean squared difference."""

    def __init__(self, dim: int):
        super().__init__()
        self.student = nn.Linear(dim, dim, bias=False)
        self.teacher = nn.Linear(dim, dim, bias=False)
        self.norm_s = nn.LayerNorm(dim)
        self.norm_t = nn.LayerNorm(dim)

    def forward(self, predictions, targets):
        s = self.norm_s(self.student(predictions))
        t = self.norm_t(self.teacher(targets))
        return torch.mean((s - t) ** 2)


batch_size = 128
dim = 256


def get_inputs():
    return [torch.rand(batch_size, dim), torch.rand(batch_size, dim)]


def get_init_inputs():
    return [dim]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()))
