import torch
import torch.nn as nn


class Model(nn.Module):
    """Hinge loss with an extra worst-violation term: the mean hinge plus half the
    average (over rows) of the largest hinge in each row."""

    def __init__(self):
        super().__init__()
        self.worst_weight = 0.5

    def forward(self, predictions, targets):
        hinge = torch.clamp(1 - predictions * targets, min=0)
        return torch.mean(hinge) + self.worst_weight * hinge.amax(dim=1).mean()


batch_size = 512
num_scores = 512


def get_inputs():
    return [torch.randn(batch_size, num_scores), torch.randint(0, 2, (batch_size,)).float() * 2 - 1]


def get_init_inputs():
    return []


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()))
