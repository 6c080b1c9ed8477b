import torch
import torch.nn as nn


class Model(nn.Module):
    """Linear read-out of the predictions with the squared reconstruction error
    added as a (broadcast) regularisation term."""

    def __init__(self, dim: int, out_dim: int):
        super().__init__()
        self.readout = nn.Linear(dim, out_dim)
        self.penalty_weight = 0.1

    def forward(self, predictions, targets):
        penalty = torch.mean((predictions - targets) ** 2)
        return self.readout(predictions) + self.penalty_weight * penalty


batch_size = 64
dim = 128
out_dim = 32


def get_inputs():
    return [torch.rand(batch_size, dim), torch.rand(batch_size, dim)]


def get_init_inputs():
    return [dim, out_dim]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
