import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Online hard-example mining for regression: per-sample smooth-L1 loss, keep
    the hardest half of the batch, average it."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        per_sample = F.smooth_l1_loss(predictions, targets, reduction='none').mean(dim=1)
        k = max(1, per_sample.numel() // 2)
        return per_sample.topk(k).values.mean()


batch_size = 1024
dim = 256


def get_inputs():
    return [torch.rand(batch_size, dim), torch.rand(batch_size, dim)]


def get_init_inputs():
    return []


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()))
