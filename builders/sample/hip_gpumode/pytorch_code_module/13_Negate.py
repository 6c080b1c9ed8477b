import torch
import torch.nn as nn


class Model(nn.Module):
    """Negates a tensor. (This reference forgot get_inputs.)"""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return -x


def get_init_inputs():
    return []
