import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Row-wise softmax with the usual max-subtraction trick for numerical
    stability, written with primitive ops so it maps 1:1 onto a fused kernel.
    """

    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        row_max = logits.amax(dim=1, keepdim=True)
        e = torch.exp(logits - row_max)
        return e / e.sum(dim=1, keepdim=True)


batch_size = 128
num_classes = 128


def get_inputs():
    return [torch.rand(batch_size, num_classes)]


def get_init_inputs():
    return []
