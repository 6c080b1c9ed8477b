import torch
import torch.nn as nn


class Model(nn.Module):
    """BERT-style pooler with a LayerNorm in front: LayerNorm, dense layer, tanh."""

    def __init__(self, hidden_size: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_size)
        self.dense = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states):
        return torch.tanh(self.dense(self.norm(hidden_states)))


batch_size = 32
hidden_size = 768


def get_inputs():
    return [torch.rand(batch_size, hidden_size)]


def get_init_inputs():
    return [hidden_size]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
