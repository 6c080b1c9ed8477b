"""Tokens and shingle hashes (kvdata.shingles) against their definitions, on real KernelBench and TritonBench-G
text."""
import json

import numpy as np
import pytest

from kvdata.normalize import normalize_code
from kvdata.shingles import (WHITESPACE, WORD_ASCII, hash_tokens, ngram_hashes, set_jaccard, token_hashes, tokenise,
                             tokens)


@pytest.fixture(scope="module")
def kb(shared_data):
    def read(version):
        path = shared_data / "kernelbench" / f"kernelbench_{version}.jsonl"
        return [normalize_code(json.loads(line)["code"]) for line in path.read_text().splitlines()]

    return read("v0"), read("v0.1")


@pytest.fixture(scope="module")
def tritonbench(shared_data):
    rows = json.loads((shared_data / "tritonbench" / "TritonBench_G_v1.json").read_text())
    return [normalize_code(r["output"]) for r in rows]


def shingle_set(text, n=5):
    """The definition of a text's shingles: its token n-grams, or all its tokens if it has fewer than n."""
    toks = tokens(text)
    if len(toks) < n:
        return {tuple(toks)} if toks else set()
    return {tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)}


def exact_jaccard(a, b):
    sa, sb = shingle_set(a), shingle_set(b)
    return len(sa & sb) / len(sa | sb) if sa and sb else 0.0


def test_token_regex_follows_the_token_definition():
    """Every character is a word character, whitespace or a one-character token, as WORD_ASCII/WHITESPACE say."""
    for cp in list(range(0x2100)) + [0xFEFF, 0x1F600, 0x10FFFF]:
        ch = chr(cp)
        if 0xD800 <= cp < 0xE000:
            continue
        word = ch in WORD_ASCII or cp >= 0x80
        got = tokens(f"a{ch}b")
        if word:
            assert got == [f"a{ch}b"], repr(ch)
        elif ch in WHITESPACE:
            assert got == ["a", "b"], repr(ch)
        else:
            assert got == ["a", ch, "b"], repr(ch)


def test_byte_tokeniser_equals_token_regex(kb, tritonbench):
    texts = kb[1][:80] + tritonbench[:80] + ["", " ", "x", "é.relu(q)\u00a0+ nn.\u00e9t\u00e9", "a\x1cb\x0bc\x7fd",
                                          "".join(map(chr, range(128))), "日本語 = 1;// \U0001f600"]
    spans = tokenise(texts)
    assert len(spans.offsets) == len(texts) + 1
    buf = spans.buf.tobytes()
    for i, t in enumerate(texts):
        lo, hi = spans.offsets[i], spans.offsets[i + 1]
        got = [buf[s:e].decode("utf-8") for s, e in zip(spans.starts[lo:hi], spans.ends[lo:hi])]
        assert got == tokens(t), t[:80]


def test_token_hash_depends_on_the_token_only(tritonbench):
    """Equal tokens hash equal wherever they stand; different tokens differ (on real text, no 64-bit collision)."""
    texts = tritonbench[:60]
    spans = tokenise(texts)
    values = hash_tokens(spans, seed=1)
    buf = spans.buf.tobytes()
    by_token = {}
    for s, e, v in zip(spans.starts.tolist(), spans.ends.tolist(), values.tolist()):
        by_token.setdefault(buf[s:e], set()).add(v)
    assert all(len(v) == 1 for v in by_token.values())
    assert len({next(iter(v)) for v in by_token.values()}) == len(by_token)
    assert not np.array_equal(hash_tokens(spans, seed=2), values)


def test_batches_do_not_change_hashes(kb, monkeypatch):
    """Texts hashed in many small byte batches give the same token and n-gram hashes as in one batch."""
    import kvdata.shingles as M

    texts = kb[0][:50]
    one_tok, one_5 = token_hashes(texts), ngram_hashes(texts, 5)
    monkeypatch.setattr(M, "_MAX_BATCH_BYTES", 3000)
    many_tok, many_5 = token_hashes(texts), ngram_hashes(texts, 5)
    for a, b in ((one_tok, many_tok), (one_5, many_5)):
        assert np.array_equal(a.values, b.values) and np.array_equal(a.offsets, b.offsets)


def test_ngram_hashes_are_the_token_ngrams(kb):
    a = kb[0][:60] + ["", "x", "a b c"]
    one = ngram_hashes(a, 1)
    assert [len(one.doc(i)) for i in range(len(a))] == [len(tokens(t)) for t in a]
    five = ngram_hashes(a, 5)
    for i, t in enumerate(a):
        assert len(set(five.doc(i).tolist())) == len(shingle_set(t))


def test_hash_set_jaccard_equalsexact_jaccard(kb):
    a, b = kb[0][:40], kb[1][:40]
    ha, hb = ngram_hashes(a, 5), ngram_hashes(b, 5)
    for i in range(0, 40, 3):
        for j in range(0, 40, 5):
            assert set_jaccard(ha.doc(i), hb.doc(j)) == pytest.approx(exact_jaccard(a[i], b[j]))
