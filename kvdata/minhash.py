"""The one MinHash/LSH core of kvdata: MinHash signatures of shingle sets, and LSH bands over them.

The build's near-duplicate removal (:mod:`kvdata.dedup`) and the lexical measures of the overlap audit (the
audit package's ``lexical`` module) both use it, so "near-duplicate" means the same thing in both places. Like
the rest of the core, it imports neither. Shingles (token n-grams) and their hashes come from
:mod:`kvdata.shingles`.

Why it is fast. A plain MinHash (datasketch) hashes every shingle in Python and then applies ``num_perm``
permutations to each: ~600 shingles x 128 permutations per 2 kB document. Here a whole batch of documents is
hashed at once with numpy (:func:`kvdata.shingles.ngram_hashes`), and the signature is a *one-permutation hash*
(Li, Owen & Zhang 2012): each shingle's 64-bit hash picks one of ``num_perm`` bins by its top bits and only
competes for that bin's minimum, so a document costs O(shingles) instead of O(shingles x num_perm): one
``np.minimum.at`` over (document, bin) slots. Empty bins (short documents) are filled by *rotation densification*
(Shrivastava & Li 2014): an empty bin borrows the value of the next non-empty bin to its right, offset by the
distance, which keeps ``P[sig_a[i] == sig_b[i]] ~= Jaccard(a, b)``.

LSH. :func:`lsh_bands` chooses the (bands, rows) split for a threshold, :func:`band_hashes` folds each band of a
signature into one 64-bit value, and :class:`LSHIndex` keeps band tables: filled at once and queried in bulk (the
audit's benchmark side, :meth:`LSHIndex.query_pairs`), or filled row by row while being queried (the build's
greedy dedup, :meth:`LSHIndex.insert_band_hashes` / :meth:`LSHIndex.query_band_hashes`).
"""
from __future__ import annotations

from typing import Hashable, Optional, Sequence

import numpy as np

from kvdata.shingles import DEFAULT_SEED, GRAM_BASE, NgramHashes, fmix64, ngram_hashes, unique_sorted

__all__ = [
    "DEFAULT_NUM_PERM", "DEFAULT_SHINGLE", "EMPTY", "MinHasher", "estimate_jaccard", "lsh_bands", "band_hashes",
    "colliding_rows", "LSHIndex",
]

#: signature length (bins) of the build's dedup and of the audit
DEFAULT_NUM_PERM = 128
#: tokens per shingle of a MinHash signature
DEFAULT_SHINGLE = 5

EMPTY = np.iinfo(np.uint64).max        # value of a signature bin no shingle fell into
_U64 = np.uint64


# ----------------------------------------------------------------- MinHash signatures
class MinHasher:
    """One-permutation MinHash signatures of already-normalised texts (token ``shingle``-grams).

    ``signatures(texts)`` returns a ``(len(texts), num_perm)`` uint64 array; equal rows mean equal shingle sets,
    and the share of equal positions estimates the Jaccard similarity of two texts' shingle sets. An empty text
    gets an all-``EMPTY`` row, which :func:`estimate_jaccard` scores 0 against anything.
    """

    EMPTY = EMPTY

    def __init__(self, num_perm: int = DEFAULT_NUM_PERM, shingle: int = DEFAULT_SHINGLE, seed: int = DEFAULT_SEED):
        if num_perm < 2 or num_perm & (num_perm - 1):
            raise ValueError(f"num_perm must be a power of two >= 2, got {num_perm}")
        self.num_perm = num_perm
        self.shingle = shingle
        self.seed = seed
        self._bin_shift = _U64(64 - (num_perm.bit_length() - 1))

    def shingles(self, texts: Sequence[str]) -> NgramHashes:
        """The 64-bit hashes of each text's token shingles (the sets the signatures summarise)."""
        return ngram_hashes(texts, self.shingle, seed=self.seed)

    def signatures(self, texts: Sequence[str]) -> np.ndarray:
        return self.signatures_from_shingles(self.shingles(texts))

    def signatures_from_shingles(self, sh: NgramHashes) -> np.ndarray:
        """Signatures from precomputed shingle hashes (lets a caller reuse the shingles for exact Jaccard).

        A shingle's bin is the top bits of its hash; one unbuffered ``np.minimum.at`` over (document, bin) slots
        keeps each bin's minimum (cheaper than sorting the batch). A signature value is that minimum with its
        low 16 bits cleared (a tie there is ~2**-48), so values stay equal to those of earlier releases.
        """
        n_docs = len(sh)
        sig = np.full(n_docs * self.num_perm, EMPTY, dtype=np.uint64)
        if len(sh.values):
            slot = np.repeat(np.arange(n_docs, dtype=np.int64) * self.num_perm, np.diff(sh.offsets))
            slot += (sh.values >> self._bin_shift).astype(np.int64)
            np.minimum.at(sig, slot, sh.values)
            filled = sig != EMPTY
            sig[filled] &= ~_U64(0xFFFF)
        sig = sig.reshape(n_docs, self.num_perm)
        self._densify(sig, np.diff(sh.offsets) > 0)
        return sig

    def _densify(self, sig: np.ndarray, non_empty_doc: np.ndarray) -> None:
        """Fill empty bins from the next non-empty bin to the right (circularly), offset by the distance."""
        empty = sig == EMPTY
        rows = np.flatnonzero(empty.any(axis=1) & non_empty_doc)
        if not len(rows):
            return
        k = self.num_perm
        sub = sig[rows]
        filled = ~empty[rows]
        pos = np.arange(2 * k)
        # index of the next filled bin at or after each position, over the row written out twice (circular)
        cand = np.where(np.concatenate([filled, filled], axis=1), pos, 2 * k)
        nxt = np.minimum.accumulate(cand[:, ::-1], axis=1)[:, ::-1][:, :k]
        dist = (nxt - pos[:k]).astype(np.uint64)
        src = np.take_along_axis(np.concatenate([sub, sub], axis=1), nxt, axis=1)
        with np.errstate(over="ignore"):
            dense = src + dist * _U64(GRAM_BASE)
        sig[rows] = np.where(filled, sub, dense)


def estimate_jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> float:
    """The MinHash estimate of Jaccard similarity: the share of equal signature positions (0 for empty texts)."""
    sig_a, sig_b = np.asarray(sig_a), np.asarray(sig_b)
    if sig_a.shape != sig_b.shape:
        raise ValueError(f"signatures differ in shape: {sig_a.shape} vs {sig_b.shape}")
    if (sig_a == EMPTY).all() or (sig_b == EMPTY).all():
        return 0.0
    return float(np.mean(sig_a == sig_b))


# ----------------------------------------------------------------- LSH
def lsh_bands(threshold: float, num_perm: int) -> tuple[int, int]:
    """The (bands, rows) split of a signature that best separates pairs above and below ``threshold``.

    Minimises the area of false positives (s < threshold, collision probability 1-(1-s^r)^b) plus false
    negatives (s >= threshold, 1 minus it), integrated over s; ties favour recall by weighting both equally.
    """
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"LSH threshold must be in (0, 1), got {threshold}")
    best, best_err = (1, num_perm), float("inf")
    for b in range(1, num_perm + 1):
        r = num_perm // b
        if r < 1:
            break
        lo = np.linspace(0.0, threshold, 200)
        hi = np.linspace(threshold, 1.0, 200)
        fp = np.trapezoid(1 - (1 - lo ** r) ** b, lo)
        fn = np.trapezoid((1 - hi ** r) ** b, hi)
        if fp + fn < best_err:
            best, best_err = (b, r), fp + fn
    return best


def band_hashes(sigs: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """(n, bands) uint64: each band's ``rows`` signature values folded into one mixed 64-bit value.

    Two signatures share a band value exactly when they agree on all of that band's rows (up to 64-bit collisions).
    """
    cut = sigs[:, :bands * rows].reshape(len(sigs), bands, rows)
    with np.errstate(over="ignore"):
        h = cut[:, :, 0].copy()
        for j in range(1, rows):
            h = h * _U64(GRAM_BASE) + cut[:, :, j]
    return fmix64(h)


def colliding_rows(bh: np.ndarray) -> np.ndarray:
    """Boolean mask of the rows of a band-hash matrix sharing at least one band value with another row.

    Only these rows can have an LSH candidate among the others; the rest can skip any candidate search."""
    out = np.zeros(len(bh), dtype=bool)
    for b in range(bh.shape[1]):
        col = bh[:, b]
        order = np.argsort(col, kind="stable")
        s = col[order]
        same = s[1:] == s[:-1]
        hit = np.zeros(len(s), dtype=bool)
        hit[1:] |= same
        hit[:-1] |= same
        out[order[hit]] = True
    return out


class LSHIndex:
    """Banded LSH over MinHash signatures: a query returns the keys sharing at least one band with a signature.

    Candidates come in band order, then in insertion order, each once. ``insert_many`` / ``query_pairs`` serve a
    table built once and queried in bulk; ``insert_band_hashes`` / ``query_band_hashes`` take precomputed
    :meth:`band_hashes` rows (a caller may mix its own partition key into them) for an index that grows while
    it is queried.
    """

    def __init__(self, threshold: float = 0.8, num_perm: int = DEFAULT_NUM_PERM):
        self.threshold = threshold
        self.num_perm = num_perm
        self.bands, self.rows = lsh_bands(threshold, num_perm)
        self._tables: list[dict[int, list[Hashable]]] = [{} for _ in range(self.bands)]
        self._keys: set[Hashable] = set()
        self._key_list: list[Hashable] = []          # keys in insertion order (position = id)
        self._band_rows: list[np.ndarray] = []       # band hashes of the inserted keys, in insertion order
        self._sorted_band_keys: Optional[list[np.ndarray]] = None
        self._flat: Optional[tuple[np.ndarray, np.ndarray, np.ndarray]] = None

    def band_hashes(self, sigs: np.ndarray) -> np.ndarray:
        """(n, bands) uint64 band values of signatures (see :func:`band_hashes`)."""
        sigs = np.atleast_2d(np.asarray(sigs, dtype=np.uint64))
        if sigs.shape[1] != self.num_perm:
            raise ValueError(f"signature has {sigs.shape[1]} values, index expects {self.num_perm}")
        return band_hashes(sigs, self.bands, self.rows)

    def insert(self, key: Hashable, sig: np.ndarray) -> None:
        self.insert_many([key], np.atleast_2d(sig))

    def insert_many(self, keys: Sequence[Hashable], sigs: np.ndarray) -> None:
        keys = list(keys)
        if len(keys) != len(np.atleast_2d(sigs)):
            raise ValueError("keys and signatures differ in number")
        self.insert_band_hashes(keys, self.band_hashes(sigs))

    def insert_band_hashes(self, keys: Sequence[Hashable], bh: np.ndarray) -> None:
        """Insert keys by their band values (rows of :meth:`band_hashes`, possibly mixed with a partition key)."""
        keys = list(keys)
        if not self._keys.isdisjoint(keys) or (len(keys) > 1 and len(set(keys)) != len(keys)):
            dup = sorted(map(str, self._keys.intersection(keys)))[:5]
            raise ValueError(f"key(s) already in the index: {dup or 'repeated in input'}")
        for key, row in zip(keys, bh.tolist()):
            for table, h in zip(self._tables, row):
                table.setdefault(h, []).append(key)
        self._keys.update(keys)
        self._key_list.extend(keys)
        self._band_rows.append(bh)
        self._sorted_band_keys = None
        self._flat = None

    def __len__(self) -> int:
        return len(self._keys)

    def query(self, sig: np.ndarray) -> list[Hashable]:
        return self.query_many(np.atleast_2d(sig))[0]

    def query_band_hashes(self, bh: np.ndarray) -> list[Hashable]:
        """Candidates of one row of band values: band by band, each table's keys in insertion order, each once."""
        seen: dict[Hashable, None] = {}
        for table, h in zip(self._tables, bh.tolist()):
            hit = table.get(h)
            if hit:
                seen.update(dict.fromkeys(hit))
        return list(seen)

    def query_many(self, sigs: np.ndarray) -> list[list[Hashable]]:
        """Candidates for many signatures; a vectorised membership test skips signatures with no band hit."""
        bh = self.band_hashes(sigs)
        if self._sorted_band_keys is None:
            self._sorted_band_keys = [np.array(sorted(t), dtype=np.uint64) for t in self._tables]
        hit = np.zeros(bh.shape, dtype=bool)
        for band, known in enumerate(self._sorted_band_keys):
            if len(known):
                pos = np.searchsorted(known, bh[:, band]).clip(max=len(known) - 1)
                hit[:, band] = known[pos] == bh[:, band]
        out: list[list[Hashable]] = [[] for _ in range(len(bh))]
        for i in np.flatnonzero(hit.any(axis=1)).tolist():
            out[i] = self.query_band_hashes(bh[i])
        return out

    def query_pairs(self, sigs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised ``query_many``: (signature row, key id) for every pair sharing a band, each pair once.

        A key's id is its position in insertion order (``keys_by_id``). (band, band hash) pairs are folded into
        one 64-bit key, so a collision there can only add a candidate, never lose one.
        """
        none = np.zeros(0, np.int64), np.zeros(0, np.int64)
        if not self._key_list:
            return none
        flat_keys, flat_ids, bitmap = self._flat_index()
        q = self._fold_bands(self.band_hashes(sigs)).ravel()
        # most (signature, band) keys match nothing: a bitmap in cache drops them before any binary search
        maybe = np.flatnonzero(bitmap[(q & _U64(len(bitmap) - 1)).astype(np.int64)])
        lo = np.searchsorted(flat_keys, q[maybe], side="left")
        counts = np.searchsorted(flat_keys, q[maybe], side="right") - lo
        hit = np.flatnonzero(counts)
        if not len(hit):
            return none
        found, lo, counts = maybe[hit], lo[hit], counts[hit]
        within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        ids = flat_ids[np.repeat(lo, counts) + within]
        rows = np.repeat(found // self.bands, counts)
        pairs = unique_sorted(rows * len(self._key_list) + ids)
        return pairs // len(self._key_list), pairs % len(self._key_list)

    @property
    def keys_by_id(self) -> list[Hashable]:
        return self._key_list

    def _fold_bands(self, bh: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            folded = bh + np.arange(1, self.bands + 1, dtype=np.uint64)[None, :] * _U64(GRAM_BASE)
        return fmix64(folded)

    def _flat_index(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sorted folded (band, hash) keys, the key id of each, and a bitmap of the keys' low bits (~3% full)."""
        if self._flat is None:
            if len(self._band_rows) > 1:
                self._band_rows = [np.concatenate(self._band_rows)]
            folded = self._fold_bands(self._band_rows[0]).ravel()
            ids = np.repeat(np.arange(len(self._key_list), dtype=np.int64), self.bands)
            order = np.argsort(folded, kind="stable")
            bitmap = np.zeros(max(1 << 16, 1 << int(32 * len(folded)).bit_length()), dtype=bool)
            bitmap[(folded & _U64(len(bitmap) - 1)).astype(np.int64)] = True
            self._flat = folded[order], ids[order], bitmap
        return self._flat
