"""
text_pipeline.py

Small helpers for the text encoder experiments: tokenisation stubs,
masking, a scaled projection head and some pooling utilities.
"""
import math
import re
from collections import Counter
from typing import Dict, List, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

_WORD = re.compile(r"\w+|[^\w\s]")


def simple_tokenize(text: str, lower: bool = True) -> List[str]:
    if lower:
        text = text.lower()
    return _WORD.findall(text)


def build_vocab(corpus: List[str], min_freq: int = 2, specials=("<pad>", "<unk>", "<bos>", "<eos>")) -> Dict[str, int]:
    counts = Counter(tok for line in corpus for tok in simple_tokenize(line))
    vocab = {s: i for i, s in enumerate(specials)}
    for tok, c in counts.most_common():
        if c >= min_freq and tok not in vocab:
            vocab[tok] = len(vocab)
    return vocab


def encode(text: str, vocab: Dict[str, int], max_len: int = 128) -> torch.Tensor:
    unk = vocab.get("<unk>", 1)
    ids = [vocab.get("<bos>", 2)] + [vocab.get(t, unk) for t in simple_tokenize(text)][: max_len - 2]
    ids.append(vocab.get("<eos>", 3))
    return torch.tensor(ids, dtype=torch.long)


def random_token_mask(ids: torch.Tensor, p: float = 0.15, mask_id: int = 4, pad_id: int = 0) -> Tuple[torch.Tensor, torch.Tensor]:
    probs = torch.full(ids.shape, p)
    probs[ids == pad_id] = 0.0
    chosen = torch.bernoulli(probs).bool()
    masked = ids.clone()
    masked[chosen] = mask_id
    return masked, chosen


def causal_mask(n: int, device=None) -> torch.Tensor:
    return torch.triu(torch.full((n, n), float("-inf"), device=device), diagonal=1)


def sinusoidal_positions(n: int, d: int) -> torch.Tensor:
    pos = torch.arange(n, dtype=torch.float32)[:, None]
    div = torch.exp(torch.arange(0, d, 2, dtype=torch.float32) * (-math.log(10000.0) / d))
    pe = torch.zeros(n, d)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, padding_idx: int = 0):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, d_model, padding_idx=padding_idx)
        self.scale = math.sqrt(d_model)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.emb(ids) * self.scale


class ScaledGeluHead(nn.Module):
    """
    Projection head of the encoder: a dense layer whose pre-activations are
    attenuated by a constant temperature before the GELU non-linearity.
    """

    def __init__(self, input_size: int, output_size: int, divisor: float):
        super().__init__()
        self.dense = nn.Linear(input_size, output_size)
        self.inv_temp = 1.0 / divisor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.dense(x) * self.inv_temp)


def masked_mean_pool(h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(h.dtype)
    return (h * m).sum(dim=1) / m.sum(dim=1).clamp_min(1.0)


def cls_pool(h: torch.Tensor) -> torch.Tensor:
    return h[:, 0]


def last_token_pool(h: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    idx = (lengths - 1).clamp_min(0)
    return h[torch.arange(h.shape[0]), idx]


def cosine_similarity_matrix(a: torch.Tensor, b: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    a = a / a.norm(dim=-1, keepdim=True).clamp_min(eps)
    b = b / b.norm(dim=-1, keepdim=True).clamp_min(eps)
    return a @ b.t()


def info_nce(q: torch.Tensor, k: torch.Tensor, temperature: float = 0.07) -> torch.Tensor:
    logits = cosine_similarity_matrix(q, k) / temperature
    labels = torch.arange(q.shape[0], device=q.device)
    return F.cross_entropy(logits, labels)


def pad_batch(seqs: List[torch.Tensor], pad_id: int = 0) -> Tuple[torch.Tensor, torch.Tensor]:
    n = max(s.numel() for s in seqs)
    out = torch.full((len(seqs), n), pad_id, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, : s.numel()] = s
    return out, out != pad_id


def truncate_or_pad(ids: torch.Tensor, n: int, pad_id: int = 0) -> torch.Tensor:
    if ids.numel() >= n:
        return ids[:n]
    return torch.cat([ids, ids.new_full((n - ids.numel(),), pad_id)])


def decode(ids: torch.Tensor, inv_vocab: Dict[int, str]) -> str:
    return " ".join(inv_vocab.get(int(i), "<unk>") for i in ids)


def invert_vocab(vocab: Dict[str, int]) -> Dict[int, str]:
    return {i: t for t, i in vocab.items()}


def ngram_overlap(a: List[str], b: List[str], n: int = 2) -> float:
    ga = Counter(tuple(a[i : i + n]) for i in range(len(a) - n + 1))
    gb = Counter(tuple(b[i : i + n]) for i in range(len(b) - n + 1))
    inter = sum((ga & gb).values())
    return inter / max(1, sum(ga.values()))


input_size = 96
output_size = 64
divisor = 10.0


def get_inputs():
    return [torch.rand(16, input_size)]


def get_init_inputs():
    return [input_size, output_size, divisor]
