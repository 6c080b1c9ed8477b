import math

import torch
import torch.nn as nn


class Model(nn.Module):
    """GPT-2 style MLP sub-block: pre-LayerNorm, expand, tanh-approximate GELU,
    project back, residual add."""

    def __init__(self, n_embd: int, expansion: int = 4):
        super().__init__()
        self.ln = nn.LayerNorm(n_embd)
        self.c_fc = nn.Linear(n_embd, expansion * n_embd)
        self.c_proj = nn.Linear(expansion * n_embd, n_embd)

    def forward(self, x):
        h = self.c_fc(self.ln(x))
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        return x + self.c_proj(h)


batch_size = 64
n_embd = 128


def get_inputs():
    return [torch.rand(batch_size, n_embd)]


def get_init_inputs():
    return [n_embd]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
