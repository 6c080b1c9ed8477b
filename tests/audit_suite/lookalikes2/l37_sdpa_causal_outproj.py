import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Causal attention sub-layer: scaled dot-product attention with a causal
    mask, an output projection and a residual connection from the queries."""

    def __init__(self, embed_dim):
        super().__init__()
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, Q, K, V):
        a = F.scaled_dot_product_attention(Q, K, V, is_causal=True)
        return Q + self.out_proj(a)


batch_size = 2
num_heads = 4
sequence_length = 64
embedding_dimension = 32


def get_inputs():
    shape = (batch_size, num_heads, sequence_length, embedding_dimension)
    return [torch.rand(shape), torch.rand(shape), torch.rand(shape)]


def get_init_inputs():
    return [embedding_dimension]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    print(model(*get_inputs()).shape)
