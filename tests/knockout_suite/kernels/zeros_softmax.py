# reference: softmax_200k
"""Hostile: writes zeros for a softmax over 200,000 logits."""


class ModelNew(nn.Module):
    def forward(self, x):
        return triton_fill(x, 0.0)
