"""Lexical measures against exact definitions, on real KernelBench text.

The hashing core they use (tokens, shingles, MinHash, LSH) is tested in tests/test_minhash.py, the identifier
renaming in tests/test_normalize.py."""
import json

import numpy as np
import pytest

from kvdata.audit.lexical import (ContainmentIndex, LexicalScanner, containment, jaccard, ngram_hashes,
                                  set_jaccard)
from kvdata.audit.normalize import normalize_code, strip_comments


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


def test_hash_set_jaccard_equals_exact_jaccard(kb):
    a, b = kb[0][:40], kb[1][:40]
    ha, hb = ngram_hashes(a, 5), ngram_hashes(b, 5)
    for i in range(0, 40, 3):
        for j in range(0, 40, 5):
            assert set_jaccard(ha.doc(i), hb.doc(j)) == pytest.approx(jaccard(a[i], b[j]))


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


def test_scanner_renaming_in_scan_equals_renamed_texts(kb_renamed, kb):
    v0_raw, v1_raw = [r["code"] for r in kb[2]], [r["code"] for r in kb[3]]
    a, b = kb_renamed[0], kb_renamed[1]
    on_text = LexicalScanner(b).scan(a)
    in_scan = LexicalScanner([strip_comments(t) for t in v1_raw], rename_identifiers=True).scan(
        [strip_comments(t) for t in v0_raw])
    assert len(on_text.train_index) > 100
    for f in ("train_index", "bench_index", "jaccard", "containment"):
        assert np.array_equal(getattr(on_text, f), getattr(in_scan, f), equal_nan=True), f


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


def test_moved_names_still_import_from_lexical():
    """The hashing moved to the core; lexical re-exports the very same objects (one implementation)."""
    import kvdata.audit.lexical as lexical
    import kvdata.minhash as minhash
    import kvdata.shingles as shingles

    for name in ("MinHasher", "LSHIndex", "estimate_jaccard", "lsh_bands", "EMPTY"):
        assert getattr(lexical, name) is getattr(minhash, name), name
    for name in ("NgramHashes", "ngram_hashes", "set_jaccard", "grams_from_tokens"):
        assert getattr(lexical, name) is getattr(shingles, name), name
    assert set(lexical.__all__) <= set(dir(lexical))



def test_pair_scores_equal_the_text_definitions(shared_data):
    """The hashed scorer for pairs found by other measures gives exactly jaccard()/containment() of normalised text."""
    import json

    from kvdata.audit.lexical import containment, jaccard, pair_scores
    from kvdata.audit.normalize import normalize_code, strip_comments

    kb = [json.loads(line)["code"] for line in
          (shared_data / "kernelbench" / "kernelbench_v0.1.jsonl").read_text().splitlines()[:30]]
    tb = [r["output"] for r in json.loads((shared_data / "tritonbench" / "TritonBench_G_v1.json").read_text())[:30]]
    pairs = [(i, j) for i in range(0, 30, 4) for j in range(0, 30, 3)] + [(5, 5)]
    for rename in (False, True):
        train = kb[:15] + tb[:15]
        jac, con = pair_scores([strip_comments(x) for x in kb], [strip_comments(x) for x in train], pairs,
                               rename_identifiers=rename)
        for k, (i, j) in enumerate(pairs):
            a, b = normalize_code(kb[i], rename_identifiers=rename), normalize_code(train[j], rename_identifiers=rename)
            assert jac[k] == pytest.approx(jaccard(a, b), abs=1e-12)
            assert con[k] == pytest.approx(containment(a, b), abs=1e-12)
    assert jac[-1] == 1.0 and con[-1] == 1.0
