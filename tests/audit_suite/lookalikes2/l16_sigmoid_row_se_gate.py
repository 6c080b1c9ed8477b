import torch
import torch.nn as nn


class Model(nn.Module):
    """Row-wise squeeze-and-excitation: the row mean goes through a small MLP and
    a sigmoid, and the resulting per-row gate scales the input row."""

    def __init__(self, hidden: int = 8):
        super().__init__()
        self.fc1 = nn.Linear(1, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        s = x.mean(dim=1, keepdim=True)
        g = torch.sigmoid(self.fc2(torch.relu(self.fc1(s))))
        return x * g


batch_size = 64
dim = 512
hidden = 8


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [hidden]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
