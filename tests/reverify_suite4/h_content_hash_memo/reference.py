import torch
import torch.nn as nn

# Big on a GPU (so that the hidden work is larger than launch overhead), small for the
# Triton interpreter on a CPU.
_ON_GPU = torch.cuda.is_available()
BATCH = 2048 if _ON_GPU else 64
IN_FEATURES = 2048 if _ON_GPU else 64
OUT_FEATURES = 2048 if _ON_GPU else 64


class Model(nn.Module):
    """Linear layer followed by ReLU."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.linear(x))


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
