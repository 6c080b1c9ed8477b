import torch
import torch.nn as nn


class Model(nn.Module):
    """Two-layer sigmoid MLP classifier returning log-probabilities (the
    log-partition is subtracted explicitly)."""

    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.linear1 = nn.Linear(input_size, hidden_size)
        self.linear2 = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        x = self.linear1(x)
        x = torch.sigmoid(x)
        x = self.linear2(x)
        return x - torch.logsumexp(x, dim=1, keepdim=True)


batch_size = 256
input_size = 256
hidden_size = 512
output_size = 128


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, output_size]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
