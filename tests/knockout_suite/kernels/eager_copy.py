# reference: linear_gelu
"""Hostile: an eager copy of the reference computes the answer; a Triton copy moves it into the output."""


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.fc = nn.Linear(k, n)

    def forward(self, x):
        return triton_copy(F.gelu(self.fc(x)))
