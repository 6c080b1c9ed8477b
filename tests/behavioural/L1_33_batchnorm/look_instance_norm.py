import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int):
        super(Model, self).__init__()
        self.norm = nn.InstanceNorm2d(num_features=num_features, affine=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


batch_size = 64
features = 64
dim1 = 512
dim2 = 512


def get_inputs():
    return [torch.rand(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]
