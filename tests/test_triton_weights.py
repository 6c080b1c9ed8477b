"""IDF-weighted kernel measures (kvdata.audit.triton_kernels.weights) on TritonBench-G's real kernels."""
from __future__ import annotations

import json

import numpy as np
import pytest

from kvdata.audit.lexical import ngram_hashes
from kvdata.audit.triton_kernels.extract import extract_kernels
from kvdata.audit.triton_kernels.matching import SHINGLE, KernelWeights, extract_all, match_kernels
from kvdata.audit.triton_kernels.weights import ShingleWeights


@pytest.fixture(scope="module")
def rows(shared_data):
    items = json.loads((shared_data / "tritonbench" / "TritonBench_G_v1.json").read_text())
    return [(f"{i}:{r['file']}", r["output"]) for i, r in enumerate(items)]


def _set(text: str, n: int = SHINGLE) -> np.ndarray:
    return np.unique(ngram_hashes([text], n).doc(0))


def test_common_shingles_weigh_less_than_rare_ones(rows):
    table = extract_all(rows, progress=False)
    weights = ShingleWeights(table.normalized, SHINGLE)
    sets = [_set(t) for t in table.normalized]
    df = {}
    for s in sets:
        for h in s.tolist():
            df[h] = df.get(h, 0) + 1
    common = max(df, key=df.get)
    rare = min(df, key=df.get)
    w = weights.of(np.array([common, rare], dtype=np.uint64))
    assert w[0] < w[1] and w[1] == pytest.approx(np.log1p(weights.documents / 2))
    # an unseen shingle weighs the most
    assert weights.of(np.array([12345], dtype=np.uint64))[0] == pytest.approx(np.log1p(weights.documents))


def test_boilerplate_kernels_carry_little_information_and_a_copy_keeps_its_score(rows):
    table = extract_all(rows, progress=False)
    kw = KernelWeights.of_training(table)
    infos = sorted((kw.lexical.information(_set(t)), t) for t in table.normalized)
    small, large = infos[0], infos[-1]
    assert small[0] < np.median([i for i, _ in infos]) < large[0]
    # a distinctive kernel, copied with its arguments renamed, still matches at full weighted score
    code = next(c for _, c in rows if "rms" in c.lower() and "@triton.jit" in c)
    kernel = extract_kernels(code)[0]
    renamed = code.replace(kernel.name, kernel.name + "_copy")
    ms = match_kernels([("b", code)], rows + [("copy", renamed)], progress=False).matches
    copy = [m for m in ms if m.train_id == "copy" and m.bench_kernel == kernel.name]
    assert copy and copy[0].w_jaccard >= 0.95 and copy[0].w_ast_similarity >= 0.95
    assert copy[0].bench_information > 0
