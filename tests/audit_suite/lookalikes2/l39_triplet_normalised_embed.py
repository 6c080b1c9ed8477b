import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Metric-learning objective on a shared bias-free embedding whose outputs are
    projected onto the unit sphere before the triplet margin loss."""

    def __init__(self, dim, margin=1.0):
        super().__init__()
        self.embed = nn.Linear(dim, dim, bias=False)
        self.loss_fn = nn.TripletMarginLoss(margin=margin)

    def _embed(self, t):
        return F.normalize(self.embed(t), dim=1)

    def forward(self, anchor, positive, negative):
        return self.loss_fn(self._embed(anchor), self._embed(positive), self._embed(negative))


batch_size = 256
dim = 128


def get_inputs():
    return [torch.rand(batch_size, dim), torch.rand(batch_size, dim), torch.rand(batch_size, dim)]


def get_init_inputs():
    return [dim]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()))
