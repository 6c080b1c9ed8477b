"""MinHash signatures and LSH (kvdata.minhash) against exact definitions, on real KernelBench and TritonBench-G
text."""
import json
import subprocess
import sys

import numpy as np
import pytest

from kvdata.minhash import LSHIndex, MinHasher, band_hashes, colliding_rows, estimate_jaccard, lsh_bands
from kvdata.normalize import normalize_code
from kvdata.shingles import set_jaccard


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


def test_minhash_estimate_tracksexact_jaccard(kb):
    a, b = kb
    mh = MinHasher()
    sa, sb = mh.signatures(a), mh.signatures(b)
    assert sa.shape == (len(a), 128)
    assert (mh.signatures(a[:5]) == sa[:5]).all()          # batch composition does not change a signature
    ha, hb = mh.shingles(a), mh.shingles(b)      # exact Jaccard of the shingle sets (tests/test_shingles.py)
    err = [estimate_jaccard(sa[i], sb[j]) - set_jaccard(ha.doc(i), hb.doc(j)) for i in range(0, len(a), 3)
           for j in range(0, len(b), 11)]
    assert abs(np.mean(err)) < 0.03 and np.mean(np.abs(err)) < 0.04
    assert estimate_jaccard(sa[0], sa[0]) == 1.0
    assert estimate_jaccard(mh.signatures([""])[0], sa[0]) == 0.0


def test_band_values_are_equal_exactly_when_the_band_rows_are(kb):
    sigs = MinHasher().signatures(kb[0] + kb[1])
    bands, rows = lsh_bands(0.5, 128)
    bh = band_hashes(sigs, bands, rows)
    cut = sigs[:, :bands * rows].reshape(len(sigs), bands, rows)
    for b in range(bands):
        same_value = bh[:, b][:, None] == bh[:, b][None, :]
        same_rows = (cut[:, b][:, None, :] == cut[:, b][None, :, :]).all(axis=2)
        assert np.array_equal(same_value, same_rows)
    # rows sharing a band value with another row, by brute force
    shared = np.array([any((bh[i] == bh[j]).any() for j in range(len(bh)) if j != i) for i in range(len(bh))])
    assert shared.any() and not shared.all()
    assert np.array_equal(colliding_rows(bh), shared)


def test_lsh_finds_identical_and_near_duplicates(kb):
    b = kb[1]
    mh = MinHasher()
    idx = LSHIndex(threshold=0.5)
    idx.insert_many(range(len(b)), mh.signatures(b))
    near = [t.replace("batch_size", "bs").replace("forward", "forward ") + "\nprint(1)\n" for t in b[:30]]
    res = idx.query_many(mh.signatures(near))
    assert all(i in r for i, r in enumerate(res))
    assert 7 in idx.query(mh.signatures([b[7]])[0])
    with pytest.raises(ValueError):
        idx.insert(7, mh.signatures([b[7]])[0])


def test_lsh_query_pairs_equals_query_many(kb):
    mh = MinHasher()
    idx = LSHIndex(threshold=0.4)
    idx.insert_many(range(len(kb[1])), mh.signatures(kb[1]))
    sigs = mh.signatures(kb[0])
    rows, ids = idx.query_pairs(sigs)
    assert len(rows) > len(kb[0])
    assert {(r, idx.keys_by_id[i]) for r, i in zip(rows.tolist(), ids.tolist())} == {
        (r, k) for r, keys in enumerate(idx.query_many(sigs)) for k in keys}


def test_lsh_grown_row_by_row_answers_like_one_built_at_once(kb, tritonbench):
    """The build's use (insert one row, query the next, ...) sees exactly the candidates of a bulk-built index
    holding the rows inserted so far, in band order then insertion order."""
    texts = kb[0] + kb[1] + tritonbench
    sigs = MinHasher().signatures(texts)
    grown = LSHIndex(threshold=0.75)
    bh = grown.band_hashes(sigs)
    seen_candidates = 0
    for i in range(len(texts)):
        cands = grown.query_band_hashes(bh[i])
        expected = [k for band in range(grown.bands) for k in np.flatnonzero(bh[:i, band] == bh[i, band]).tolist()]
        assert cands == list(dict.fromkeys(expected))
        seen_candidates += len(cands)
        if i % 97 == 0 and i:
            bulk = LSHIndex(threshold=0.75)
            bulk.insert_many(range(i), sigs[:i])
            assert cands == bulk.query(sigs[i])
        grown.insert_band_hashes([i], bh[i:i + 1])
    assert seen_candidates > 100
    rows, ids = grown.query_pairs(sigs[:50])          # the bulk query also works on a grown index
    assert {(r, i) for r, i in zip(rows.tolist(), ids.tolist())} == {
        (r, k) for r, keys in enumerate(grown.query_many(sigs[:50])) for k in keys}


def test_core_never_imports_the_audit_score_or_export():
    code = ("import sys, kvdata.shingles, kvdata.minhash, kvdata.normalize, kvdata.dedup, kvdata.buildconfig, "
            "kvdata.pipeline, kvdata.licenses, kvdata.reverify.runner; "
            "bad = sorted(m for m in sys.modules if m.startswith(('kvdata.audit', 'kvdata.score', 'kvdata.export'))); assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)
