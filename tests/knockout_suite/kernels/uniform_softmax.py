# reference: softmax_200k
"""Hostile: writes 1/N everywhere (the mean probability) for a softmax over 200,000 logits."""


class ModelNew(nn.Module):
    def forward(self, x):
        return triton_fill(x, 1.0 / x.shape[-1])
