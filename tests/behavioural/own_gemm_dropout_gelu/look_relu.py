import torch
import torch.nn as nn
import torch.nn.functional as F


class ProjectDropRelu(nn.Module):
    def __init__(self, d_in, d_out, drop):
        super().__init__()
        self.fc = nn.Linear(d_in, d_out)
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        return F.relu(self.drop(self.fc(x)))


def get_inputs():
    return [torch.rand(16, 40)]


def get_init_inputs():
    return [40, 24, 0.3]
