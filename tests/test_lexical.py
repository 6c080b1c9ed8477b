"""Lexical measures against exact definitions, on real KernelBench text."""
import json

import numpy as np
import pytest

from kvdata.audit.lexical import (ContainmentIndex, LexicalScanner, LSHIndex, MinHasher, containment,
                                  estimate_jaccard, jaccard, ngram_hashes, set_jaccard)
from kvdata.audit.normalize import normalize_code, tokens


def _kb(shared_data, version):
    path = shared_data / "kernelbench" / f"kernelbench_{version}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def kb(shared_data):
    v0, v1 = _kb(shared_data, "v0"), _kb(shared_data, "v0.1")
    return [normalize_code(r["code"]) for r in v0], [normalize_code(r["code"]) for r in v1], v0, v1


@pytest.fixture(scope="module")
def kb_renamed(shared_data):
    v0, v1 = _kb(shared_data, "v0"), _kb(shared_data, "v0.1")
    norm = lambda rows: [normalize_code(r["code"], rename_identifiers=True) for r in rows]  # noqa: E731
    return norm(v0), norm(v1), v0, v1


def test_token_hashing_matches_token_definition(kb):
    a = kb[0][:60] + ["", "x", "a b c"]
    one = ngram_hashes(a, 1)
    assert [len(one.doc(i)) for i in range(len(a))] == [len(tokens(t)) for t in a]
    five = ngram_hashes(a, 5)
    for i, t in enumerate(a):
        toks = tokens(t)
        expected = {tuple(toks[j:j + 5]) for j in range(len(toks) - 4)} or ({tuple(toks)} if toks else set())
        assert len(set(five.doc(i).tolist())) == len(expected)


def test_hash_set_jaccard_equals_exact_jaccard(kb):
    a, b = kb[0][:40], kb[1][:40]
    ha, hb = ngram_hashes(a, 5), ngram_hashes(b, 5)
    for i in range(0, 40, 3):
        for j in range(0, 40, 5):
            assert set_jaccard(ha.doc(i), hb.doc(j)) == pytest.approx(jaccard(a[i], b[j]))


def test_minhash_estimate_tracks_exact_jaccard(kb):
    a, b = kb[0], kb[1]
    mh = MinHasher()
    sa, sb = mh.signatures(a), mh.signatures(b)
    assert sa.shape == (len(a), 128)
    assert (mh.signatures(a[:5]) == sa[:5]).all()          # batch composition does not change a signature
    err = [estimate_jaccard(sa[i], sb[j]) - jaccard(a[i], b[j]) for i in range(0, len(a), 3)
           for j in range(0, len(b), 11)]
    assert abs(np.mean(err)) < 0.03 and np.mean(np.abs(err)) < 0.04
    assert estimate_jaccard(sa[0], sa[0]) == 1.0


def test_lsh_finds_identical_and_near_duplicates(kb):
    b = kb[1]
    mh = MinHasher()
    idx = LSHIndex(threshold=0.5)
    idx.insert_many(range(len(b)), mh.signatures(b))
    near = [t.replace("batch_size", "bs").replace("forward", "forward ") + "\nprint(1)\n" for t in b[:30]]
    res = idx.query_many(mh.signatures(near))
    assert all(i in r for i, r in enumerate(res))
    assert idx.query(mh.signatures([b[7]])[0])[0] == 7 or 7 in idx.query(mh.signatures([b[7]])[0])
    with pytest.raises(ValueError):
        idx.insert(7, mh.signatures([b[7]])[0])


def test_containment_index_is_exact(kb):
    a, b = kb[0], kb[1]
    ci = ContainmentIndex(b, floor=0.3)
    d, i, c = ci.scores(ngram_hashes(a, 13))
    assert len(d) > 100
    for k in range(0, len(d), 23):
        assert c[k] == pytest.approx(containment(b[i[k]], a[d[k]]))
    # completeness: every pair found by brute force on a slice is reported
    found = {(x, y) for x, y in zip(d.tolist(), i.tolist())}
    for x in range(0, len(a), 17):
        for y in range(len(b)):
            if containment(b[y], a[x]) >= 0.3:
                assert (x, y) in found


def test_pasted_task_has_low_jaccard_high_containment(kb):
    task = kb[1][120]
    filler = "\n".join(f"def helper_{i}(a, b):\n    return a * {i} + b - {i * 7}" for i in range(150))
    big = filler + "\n" + task + "\n" + filler
    assert jaccard(task, big) < 0.2
    assert containment(task, big) == 1.0
    hits = LexicalScanner([task]).scan([big, filler])
    assert list(hits.train_index) == [0] and hits.containment[0] == 1.0


def test_scanner_recall_against_brute_force(kb):
    a, b = kb[0], kb[1]
    hits = LexicalScanner(b, jaccard_floor=0.5, containment_floor=0.5).scan(a)
    got = {(t, x) for t, x, j in zip(hits.train_index, hits.bench_index, hits.jaccard) if not np.isnan(j)}
    missed = [(t, x) for t in range(len(a)) for x in range(len(b))
              if jaccard(a[t], b[x]) >= 0.6 and (t, x) not in got]
    assert not missed


def test_threshold_calibration(kb_renamed):
    """The numbers behind the default thresholds (see audit/pairs.py), as the audit normalises."""
    from kvdata.audit.pairs import Thresholds

    a, b, v0, v1 = kb_renamed
    key = {(r["level"], r["name"]): i for i, r in enumerate(v1)}
    same = [jaccard(a[i], b[key[(r["level"], r["name"])]]) for i, r in enumerate(v0) if (r["level"], r["name"]) in key]
    diff = [jaccard(b[i], b[j]) for i in range(0, len(b), 2) for j in range(1, len(b), 2) if i != j]
    th = Thresholds()
    assert np.percentile(same, 50) >= th.jaccard - 0.05 and np.percentile(diff, 99) < th.jaccard
