import torch
import a_package_that_is_not_installed  # noqa: F401


class Model(torch.nn.Module):
    def forward(self, x):
        return x
