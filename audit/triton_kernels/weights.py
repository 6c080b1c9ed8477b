"""How much a shared shingle says: inverse document frequency over the training kernels.

Plain Jaccard counts every shared shingle alike, so a small kernel made of what every Triton kernel holds
(``pid = tl.program_id(0)``, ``offs = pid * BLOCK + tl.arange(0, BLOCK)``, a masked load and store) matches any
other such kernel at 1.0: ``isfinite`` against a ``bmm`` file. Weighted by IDF, those shingles count for little and
a kernel's own computation counts for much, so a copy with renamed arguments or another block size still scores
high (its rare shingles survive) while two boilerplate kernels do not. The *information* of a kernel, the sum of
its shingles' weights, says how much there is to match at all: a kernel with little of it is generic whatever it
scores, which replaces a fixed minimum token count.

Weights come from the distinct kernel forms of the training side (the corpus being audited), smoothed so a
shingle no training kernel holds gets the largest weight: ``w = log(1 + N / (1 + df))``.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from kvdata.audit.lexical import ngram_hashes

__all__ = ["ShingleWeights"]


class ShingleWeights:
    """IDF weights of the ``n``-token shingles of ``texts`` (one text per distinct training kernel form)."""

    def __init__(self, texts: Sequence[str], n: int) -> None:
        self.n = n
        self.documents = len(texts)
        hashes = ngram_hashes(list(texts), n) if texts else None
        per_doc = [np.unique(hashes.doc(i)) for i in range(len(texts))] if hashes is not None else []
        allh = np.concatenate(per_doc) if per_doc else np.zeros(0, dtype=np.uint64)
        self._keys, self._df = np.unique(allh, return_counts=True)

    def of(self, shingles: np.ndarray) -> np.ndarray:
        """The weight of each (distinct) shingle hash."""
        if not len(shingles):
            return np.zeros(0)
        df = np.zeros(len(shingles))
        if len(self._keys):
            pos = np.minimum(np.searchsorted(self._keys, shingles), len(self._keys) - 1)
            hit = self._keys[pos] == shingles
            df[hit] = self._df[pos[hit]]
        return np.log1p(self.documents / (1.0 + df))

    def information(self, shingles: np.ndarray) -> float:
        """The sum of the weights of a kernel's distinct shingles."""
        return float(self.of(shingles).sum())

    def jaccard(self, a: np.ndarray, b: np.ndarray) -> float:
        """Weighted Jaccard of two distinct-shingle sets: weight of the intersection over weight of the union."""
        if not len(a) or not len(b):
            return 0.0
        inter = np.intersect1d(a, b, assume_unique=True)
        union = np.union1d(a, b)
        total = self.of(union).sum()
        return float(self.of(inter).sum() / total) if total > 0 else 0.0

    def containment(self, bench: np.ndarray, train: np.ndarray) -> float:
        """The weighted share of the benchmark kernel's shingles the training kernel holds."""
        if not len(bench):
            return 0.0
        total = self.of(bench).sum()
        inter = np.intersect1d(bench, train, assume_unique=True)
        return float(self.of(inter).sum() / total) if total > 0 else 0.0
