import torch
import torch.nn as nn


class Model(nn.Module):
    """RetinaNet focal loss for multi-class targets (alpha = 0.25, gamma = 2)."""

    def __init__(self):
        super().__init__()
        self.alpha = 0.25

    def forward(self, logits, labels):
        logp = torch.log_softmax(logits, dim=1)
        logp_t = logp.gather(1, labels[:, None]).squeeze(1)
        p_t = logp_t.exp()
        return torch.mean(-self.alpha * (1.0 - p_t) ** 2 * logp_t)


batch_size = 256
num_classes = 80


def get_inputs():
    return [torch.randn(batch_size, num_classes), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()))
