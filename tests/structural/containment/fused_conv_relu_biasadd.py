"""A small image classifier whose second stage is KernelBench 2/1 (conv -> ReLU -> per-channel bias add)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ShiftedRectifier(nn.Module):
    def __init__(self, channels_in, channels_out, k):
        super().__init__()
        self.filt = nn.Conv2d(channels_in, channels_out, k, padding=1)
        self.offset = nn.Parameter(torch.zeros(channels_out, 1, 1))

    def forward(self, t):
        return F.relu(self.filt(t)) + self.offset


class TinyClassifier(nn.Module):
    def __init__(self, num_classes=10, width=24):
        super().__init__()
        self.stem = nn.Conv2d(3, width, 5, stride=2, bias=False)
        self.stem_bn = nn.BatchNorm2d(width)
        self.stage = ShiftedRectifier(width, 2 * width, 3)
        self.head = nn.Linear(2 * width, num_classes)

    def forward(self, images):
        h = F.max_pool2d(torch.relu(self.stem_bn(self.stem(images))), 2)
        h = self.stage(h)
        h = torch.tanh(h)
        h = F.adaptive_avg_pool2d(h, 1).flatten(1)
        return torch.log_softmax(self.head(h), dim=-1)


def get_inputs():
    return [torch.rand(4, 3, 64, 64)]


def get_init_inputs():
    return [10, 24]
