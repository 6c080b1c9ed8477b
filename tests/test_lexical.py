"""Lexical measures against exact definitions, on real KernelBench text."""
import json

import numpy as np
import pytest

from kvdata.audit.lexical import (ContainmentIndex, LexicalScanner, LSHIndex, MinHasher, containment,
                                  estimate_jaccard, jaccard, ngram_hashes, set_jaccard, token_hashes)
from kvdata.audit.normalize import normalize_code, strip_comments, tokens


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


TRICKY = ["x = torch.nn.functional.relu(y)", "self.weight.data = self.w.t()", "a..b . c", ". x", "_v.attr + __x__.y",
          "é.relu(q) + nn.\u00e9t\u00e9", "F . softmax ( z ) . sum", "tl.load(p + offs)", ""]


def test_token_level_renaming_equals_text_renaming(kb):
    raw = [r["code"] for r in kb[2]] + TRICKY
    from_text = token_hashes([normalize_code(t, rename_identifiers=True) for t in raw])
    in_scan = token_hashes([strip_comments(t) for t in raw], rename_identifiers=True)
    assert np.array_equal(from_text.offsets, in_scan.offsets) and np.array_equal(from_text.values, in_scan.values)


def test_scanner_renaming_in_scan_equals_renamed_texts(kb_renamed, kb):
    v0_raw, v1_raw = [r["code"] for r in kb[2]], [r["code"] for r in kb[3]]
    a, b = kb_renamed[0], kb_renamed[1]
    on_text = LexicalScanner(b).scan(a)
    in_scan = LexicalScanner([strip_comments(t) for t in v1_raw], rename_identifiers=True).scan(
        [strip_comments(t) for t in v0_raw])
    assert len(on_text.train_index) > 100
    for f in ("train_index", "bench_index", "jaccard", "containment"):
        assert np.array_equal(getattr(on_text, f), getattr(in_scan, f), equal_nan=True), f


def test_lsh_query_pairs_equals_query_many(kb):
    mh = MinHasher()
    idx = LSHIndex(threshold=0.4)
    idx.insert_many(range(len(kb[1])), mh.signatures(kb[1]))
    sigs = mh.signatures(kb[0])
    rows, ids = idx.query_pairs(sigs)
    assert len(rows) > len(kb[0])
    assert {(r, idx.keys_by_id[i]) for r, i in zip(rows.tolist(), ids.tolist())} == {
        (r, k) for r, keys in enumerate(idx.query_many(sigs)) for k in keys}


def test_lexical_pairs_forked_workers_equal_one_process(kb):
    from kvdata.audit.pipeline import lexical_pairs

    raw0 = [r["code"] for r in kb[2]]
    ids0, ids1 = [f"t{i}" for i in range(len(raw0))], [f"b{i}" for i in range(len(kb[1]))]
    args = (ids1, [normalize_code(r["code"], rename_identifiers=True) for r in kb[3]], ids0, raw0)
    one = lexical_pairs(*args, progress=False, rename_identifiers=True, raw_train=True, workers=1)
    two = lexical_pairs(*args, progress=False, rename_identifiers=True, raw_train=True, workers=2, chunk_rows=60)
    assert len(one) > 100 and one.keys() == two.keys()
    same = lambda x, y: x == y or (np.isnan(x) and np.isnan(y))  # noqa: E731
    assert all(same(one[k].jaccard, two[k].jaccard) and same(one[k].containment, two[k].containment) for k in one)
