import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    """Named causal, but attends to the whole sequence."""

    def __init__(self, embed_dim, num_heads, attn_dropout, proj_dropout, block_size):
        super().__init__()
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.out = nn.Linear(embed_dim, embed_dim)
        self.heads = num_heads

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        split = lambda z: z.reshape(b, t, self.heads, c // self.heads).permute(0, 2, 1, 3)  # noqa: E731
        y = F.scaled_dot_product_attention(split(q), split(k), split(v), is_causal=False)
        return self.out(y.permute(0, 2, 1, 3).reshape(b, t, c))


def get_inputs():
    return [torch.rand(4, 32, 64)]


def get_init_inputs():
    return [64, 4, 0.0, 0.0, 128]
