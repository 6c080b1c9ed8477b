import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Classification loss with an auxiliary z-loss (PaLM style): cross-entropy
    plus a small penalty on the squared log-partition function."""

    def __init__(self):
        super().__init__()
        self.z_coef = 1e-2

    def forward(self, logits, labels):
        ce = F.cross_entropy(logits, labels)
        log_z = torch.logsumexp(logits, dim=-1)
        return ce + self.z_coef * torch.mean(log_z ** 2)


batch_size = 512
num_classes = 100


def get_inputs():
    return [torch.randn(batch_size, num_classes), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()))
