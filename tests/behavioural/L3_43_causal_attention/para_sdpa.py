import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    """Masked multi-head self-attention through scaled_dot_product_attention."""

    def __init__(self, embed_dim, num_heads, attn_dropout, proj_dropout, block_size):
        super().__init__()
        assert embed_dim % num_heads == 0
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.out = nn.Linear(embed_dim, embed_dim)
        self.proj_drop = nn.Dropout(proj_dropout)
        self.heads, self.p = num_heads, attn_dropout

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        split = lambda z: z.reshape(b, t, self.heads, c // self.heads).permute(0, 2, 1, 3)  # noqa: E731
        y = F.scaled_dot_product_attention(split(q), split(k), split(v), is_causal=True,
                                           dropout_p=self.p if self.training else 0.0)
        return self.proj_drop(self.out(y.permute(0, 2, 1, 3).reshape(b, t, c)))


def get_inputs():
    return [torch.rand(4, 32, 64)]


def get_init_inputs():
    return [64, 4, 0.0, 0.0, 128]
