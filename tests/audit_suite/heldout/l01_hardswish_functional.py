import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Hard-swish activation, the piecewise-quadratic gate used by
    MobileNetV3 style feed-forward blocks.

    Uses PyTorch's built-in kernel instead of spelling relu6(x + 3) / 6 out
    by hand.
    """

    def __init__(self):
        super().__init__()

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        """
        Args:
            hidden_states: activations of shape (num_tokens, hidden_dim).

        Returns:
            Tensor of the same shape with the activation applied elementwise.
        """
        return F.hardswish(hidden_states)


num_tokens = 256
hidden_dim = 512


def get_inputs():
    return [torch.randn(num_tokens, hidden_dim)]


def get_init_inputs():
    return []
