"""Lexical overlap: token shingles, MinHash signatures, LSH candidates, exact Jaccard and n-gram containment.

This is the one MinHash implementation of kvdata: the build's near-duplicate removal and the overlap audit both
use it, so "near-duplicate" means the same thing in both places.

Why it is fast. A plain MinHash (datasketch) hashes every shingle in Python and then applies ``num_perm``
permutations to each: ~600 shingles x 128 permutations per 2 kB document. Here a whole batch of documents is
hashed at once with numpy, and the signature is a *one-permutation hash* (Li, Owen & Zhang 2012): each shingle's
64-bit hash picks one of ``num_perm`` bins by its top bits and only competes for that bin's minimum, so a document
costs O(shingles) instead of O(shingles x num_perm). Empty bins (short documents) are filled by *rotation
densification* (Shrivastava & Li 2014): an empty bin borrows the value of the next non-empty bin to its right,
offset by the distance, which keeps ``P[sig_a[i] == sig_b[i]] ~= Jaccard(a, b)``. The estimate quality against
exact Jaccard is measured in scripts/bench_audit.py and in tests/test_lexical.py.

How a batch is hashed (all numpy, no Python loop per token):
1. the texts are joined into one byte buffer; a byte-class table marks token starts and ends (a token is a run
   of word bytes or one punctuation byte, exactly :func:`kvdata.audit.normalize.tokens`);
2. each token's hash is a position-independent polynomial hash read off a prefix sum (mod 2**64), then mixed;
3. an n-gram's hash combines n consecutive token hashes by doubling (g2 = g1*M + g1[+1], g4 = ...), and
   windows that cross a document boundary are dropped.

Exact Jaccard and containment between candidates are computed on the sets of 64-bit shingle hashes (exact up to
64-bit collisions); :func:`jaccard` and :func:`containment` compute them on token tuples for single pairs.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Hashable, Iterable, Sequence

import numpy as np

from kvdata.audit.normalize import tokens

__all__ = [
    "MinHasher", "LSHIndex", "NgramHashes", "ngram_hashes", "estimate_jaccard", "jaccard", "containment",
    "lsh_bands", "set_jaccard", "ContainmentIndex", "token_hashes", "grams_from_tokens", "LexicalScanner",
    "LexicalHits",
]

_U64 = np.uint64
_MASK64 = (1 << 64) - 1
_BYTE_BASE = 0x100000001B3            # odd, so invertible mod 2**64
_BYTE_BASE_INV = pow(_BYTE_BASE, -1, 1 << 64)
_GRAM_BASE = 0x9E3779B97F4A7C15        # odd multiplier that combines consecutive token hashes
_EMPTY = np.iinfo(np.uint64).max       # value of a bin no shingle fell into
_BITMAP_SIZE = 1 << 24                 # membership pre-filter of ContainmentIndex (16 MiB of bools)
_SORT_MAX_DOCS = 1 << 16               # documents per sort: the document index fills a key's top 16 bits
_MAX_BATCH_BYTES = 4 << 20             # bytes hashed per numpy pass; bounds the temporary arrays (~8x this)

# 0 = whitespace, 1 = word byte (ASCII letters, digits, "_", any non-ASCII byte), 2 = punctuation.
_BYTE_CLASS = np.full(256, 2, dtype=np.uint8)
_BYTE_CLASS[[9, 10, 11, 12, 13, 32]] = 0
for _lo, _hi in ((ord("a"), ord("z")), (ord("A"), ord("Z")), (ord("0"), ord("9"))):
    _BYTE_CLASS[_lo:_hi + 1] = 1
_BYTE_CLASS[ord("_")] = 1
_BYTE_CLASS[0x80:] = 1


def _fmix64(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser: spreads a polynomial hash's entropy into every bit (in place)."""
    x ^= x >> _U64(33)
    x *= _U64(0xFF51AFD7ED558CCD)
    x ^= x >> _U64(33)
    x *= _U64(0xC4CEB9FE1A85EC53)
    x ^= x >> _U64(33)
    return x


@lru_cache(maxsize=4)
def _powers(base: int, n: int) -> np.ndarray:
    """base**i mod 2**64 for i < n (numpy's uint64 arithmetic wraps, which is the modulus we want)."""
    out = np.full(n, base, dtype=np.uint64)
    out[0] = 1
    with np.errstate(over="ignore"):
        return np.cumprod(out, dtype=np.uint64)


def _pow_table_size(n: int) -> int:
    """One cached table serves every batch up to twice the batch size (a huge single text gets its own)."""
    return max(2 * _MAX_BATCH_BYTES, 1 << int(n - 1).bit_length())


@dataclass
class NgramHashes:
    """The n-gram hashes of a batch of documents, in CSR form: doc ``i`` owns ``values[offsets[i]:offsets[i+1]]``."""

    values: np.ndarray   # uint64
    offsets: np.ndarray  # int64, len = n_docs + 1

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def doc(self, i: int) -> np.ndarray:
        return self.values[self.offsets[i]:self.offsets[i + 1]]

    def doc_index(self) -> np.ndarray:
        """For every value, the document it belongs to."""
        return np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.offsets))


def _token_hashes(texts: Sequence[str], seed: int) -> NgramHashes:
    """Hash every token of every text (see the module docstring, steps 1-2)."""
    encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
    buf = np.frombuffer(b" ".join(encoded) + b" ", dtype=np.uint8)
    doc_starts = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) + 1 for e in encoded], out=doc_starts[1:])
    cls = _BYTE_CLASS[buf]
    prev = np.empty_like(cls)
    prev[0] = 0
    prev[1:] = cls[:-1]
    nxt = np.empty_like(cls)
    nxt[-1] = 0
    nxt[:-1] = cls[1:]
    nonspace = cls != 0
    starts = np.flatnonzero(nonspace & ((cls == 2) | (prev != cls)))
    ends = np.flatnonzero(nonspace & ((cls == 2) | (nxt != cls))) + 1

    size = _pow_table_size(len(buf) + 1)
    with np.errstate(over="ignore"):
        prefix = np.zeros(len(buf) + 1, dtype=np.uint64)
        np.cumsum(buf.astype(np.uint64) * _powers(_BYTE_BASE, size)[:len(buf)], out=prefix[1:])
        values = (prefix[ends] - prefix[starts]) * _powers(_BYTE_BASE_INV, size)[starts]
        values ^= _U64(_splitmix(seed))
    _fmix64(values)
    offsets = np.searchsorted(starts, doc_starts).astype(np.int64)
    return NgramHashes(values, offsets)


def _splitmix(seed: int) -> int:
    z = (seed + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _window_hashes(tok: np.ndarray, n: int) -> np.ndarray:
    """h[i] = sum_k tok[i+k] * M**(n-1-k) for every full window, built by doubling (log n numpy passes)."""
    if len(tok) < n:
        return np.zeros(0, dtype=np.uint64)
    with np.errstate(over="ignore"):
        blocks = {1: tok}
        width = 1
        while width * 2 <= n:
            g = blocks[width]
            blocks[width * 2] = g[:-width] * _U64(pow(_GRAM_BASE, width, 1 << 64)) + g[width:]
            width *= 2
        # Combine the binary decomposition of n, largest block first.
        acc, acc_width = None, 0
        for w in sorted(blocks, reverse=True):
            if acc_width + w > n:
                continue
            g = blocks[w]
            if acc is None:
                acc, acc_width = g.copy(), w
            else:
                length = len(tok) - (acc_width + w) + 1
                acc = acc[:length] * _U64(pow(_GRAM_BASE, w, 1 << 64)) + g[acc_width:acc_width + length]
                acc_width += w
        return acc[:max(len(tok) - n + 1, 0)]


def ngram_hashes(texts: Sequence[str], n: int, *, seed: int = 1) -> NgramHashes:
    """The hashes of every token n-gram of each text (a text with fewer than n tokens yields one n-gram: all of it)."""
    if n < 1:
        raise ValueError(f"n-gram length must be >= 1, got {n}")
    return _concat([_ngram_hashes_batch(batch, n, seed) for batch in _byte_batches(texts)])


def _concat(parts: list[NgramHashes]) -> NgramHashes:
    if not parts:
        return NgramHashes(np.zeros(0, np.uint64), np.zeros(1, np.int64))
    if len(parts) == 1:
        return parts[0]
    values = np.concatenate([p.values for p in parts])
    offsets = [np.zeros(1, np.int64)]
    base = 0
    for p in parts:
        offsets.append(p.offsets[1:] + base)
        base += len(p.values)
    return NgramHashes(values, np.concatenate(offsets))


def _byte_batches(texts: Sequence[str]) -> Iterable[Sequence[str]]:
    start, size = 0, 0
    for i, t in enumerate(texts):
        size += len(t) + 1
        if size >= _MAX_BATCH_BYTES:
            yield texts[start:i + 1]
            start, size = i + 1, 0
    if start < len(texts):
        yield texts[start:]


def _ngram_hashes_batch(texts: Sequence[str], n: int, seed: int) -> NgramHashes:
    return grams_from_tokens(_token_hashes(texts, seed), n)


def token_hashes(texts: Sequence[str], *, seed: int = 1) -> NgramHashes:
    """The hash of every token of every text (CSR); several n-gram lengths can then share one tokenisation."""
    return _concat([_token_hashes(batch, seed) for batch in _byte_batches(texts)])


def grams_from_tokens(tok: NgramHashes, n: int) -> NgramHashes:
    """Token n-gram hashes from token hashes (see :func:`ngram_hashes`)."""
    lengths = np.diff(tok.offsets)
    if n == 1:
        grams, counts = tok.values.copy(), lengths
        _fmix64(grams)
    else:
        windows = _window_hashes(tok.values, n)
        # keep window i only if it ends inside the document it starts in
        doc_of = tok.doc_index()[:len(windows)]
        keep = np.arange(len(windows)) + n <= tok.offsets[1:][doc_of]
        grams = windows[keep]
        counts = np.maximum(lengths - n + 1, 0)
    offsets = np.zeros(len(tok) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    short = np.flatnonzero((lengths > 0) & (lengths < n))
    if len(short):  # rare: texts shorter than one n-gram get a single gram over all their tokens
        grams, offsets = _insert_short_grams(grams, offsets, tok, short)
    if n > 1:
        _fmix64(grams)
    return NgramHashes(grams, offsets)


def _insert_short_grams(grams, offsets, tok: NgramHashes, short: np.ndarray):
    counts = np.diff(offsets)
    extra = np.zeros(len(counts), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in short:
            h = _U64(0)
            for v in tok.doc(i):
                h = h * _U64(_GRAM_BASE) + v
            extra[i] = h
    counts = counts.copy()
    counts[short] = 1
    new_offsets = np.zeros_like(offsets)
    np.cumsum(counts, out=new_offsets[1:])
    out = np.empty(new_offsets[-1], dtype=np.uint64)
    is_short = np.zeros(len(counts), dtype=bool)
    is_short[short] = True
    long_docs = np.repeat(~is_short, counts)
    out[long_docs] = grams
    out[new_offsets[short]] = extra[short]
    return out, new_offsets


class MinHasher:
    """One-permutation MinHash signatures of already-normalised texts (token ``shingle``-grams).

    ``signatures(texts)`` returns a ``(len(texts), num_perm)`` uint64 array; equal rows mean equal shingle sets,
    and the share of equal positions estimates the Jaccard similarity of two texts' shingle sets. An empty text
    gets an all-``EMPTY`` row, which :func:`estimate_jaccard` scores 0 against anything.
    """

    EMPTY = _EMPTY

    def __init__(self, num_perm: int = 128, shingle: int = 5, seed: int = 1):
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

        A shingle's bin is the top bits of its hash, so within one document sorting the hashes sorts them by bin:
        one sort of (document, hash) keys puts each bin's minimum first in its run. The key holds the document
        in its top 16 bits, so a signature value is the hash without its low 16 bits (a tie there is ~2**-48).
        """
        n_docs = len(sh)
        sig = np.full(n_docs * self.num_perm, _EMPTY, dtype=np.uint64)
        for lo in range(0, n_docs, _SORT_MAX_DOCS):
            hi = min(lo + _SORT_MAX_DOCS, n_docs)
            values = sh.values[sh.offsets[lo]:sh.offsets[hi]]
            if not len(values):
                continue
            doc = np.repeat(np.arange(hi - lo, dtype=np.uint64), np.diff(sh.offsets[lo:hi + 1]))
            keys = (doc << _U64(48)) | (values >> _U64(16))
            keys.sort()
            slot = (keys >> _U64(48)).astype(np.int64) * self.num_perm + (
                (keys << _U64(16)) >> self._bin_shift).astype(np.int64)
            first = np.ones(len(keys), dtype=bool)
            first[1:] = slot[1:] != slot[:-1]
            sig[lo * self.num_perm + slot[first]] = keys[first] << _U64(16)
        sig = sig.reshape(n_docs, self.num_perm)
        self._densify(sig, np.diff(sh.offsets) > 0)
        return sig

    def _densify(self, sig: np.ndarray, non_empty_doc: np.ndarray) -> None:
        """Fill empty bins from the next non-empty bin to the right (circularly), offset by the distance."""
        empty = sig == _EMPTY
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
            dense = src + dist * _U64(_GRAM_BASE)
        sig[rows] = np.where(filled, sub, dense)


def estimate_jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> float:
    """The MinHash estimate of Jaccard similarity: the share of equal signature positions (0 for empty texts)."""
    sig_a, sig_b = np.asarray(sig_a), np.asarray(sig_b)
    if sig_a.shape != sig_b.shape:
        raise ValueError(f"signatures differ in shape: {sig_a.shape} vs {sig_b.shape}")
    if (sig_a == _EMPTY).all() or (sig_b == _EMPTY).all():
        return 0.0
    return float(np.mean(sig_a == sig_b))


def _shingle_set(text: str, n: int) -> set[tuple[str, ...]]:
    toks = tokens(text)
    if not toks:
        return set()
    if len(toks) < n:
        return {tuple(toks)}
    return {tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)}


def jaccard(a_text: str, b_text: str, shingle: int = 5) -> float:
    """Exact Jaccard similarity of two texts' token-shingle sets (texts already normalised)."""
    a, b = _shingle_set(a_text, shingle), _shingle_set(b_text, shingle)
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def containment(bench_text: str, train_text: str, n: int = 13) -> float:
    """The share of the benchmark item's token n-grams that also occur in the training row (texts normalised).

    Asymmetric on purpose: a benchmark task pasted into a long training file keeps containment near 1 while its
    Jaccard similarity to that file falls with the file's length.
    """
    bench = _shingle_set(bench_text, n)
    if not bench:
        return 0.0
    return len(bench & _shingle_set(train_text, n)) / len(bench)


def set_jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Jaccard similarity of two arrays of hashes taken as sets."""
    a, b = np.unique(a), np.unique(b)
    if not len(a) or not len(b):
        return 0.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)


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


class LSHIndex:
    """Banded LSH over MinHash signatures: ``query`` returns keys sharing at least one band with a signature."""

    def __init__(self, threshold: float = 0.8, num_perm: int = 128):
        self.threshold = threshold
        self.num_perm = num_perm
        self.bands, self.rows = lsh_bands(threshold, num_perm)
        self._tables: list[dict[int, list[Hashable]]] = [{} for _ in range(self.bands)]
        self._keys: set[Hashable] = set()
        self._sorted_band_keys: list[np.ndarray] | None = None

    def _band_hashes(self, sigs: np.ndarray) -> np.ndarray:
        """(n, bands) uint64: each band's rows folded into one hash."""
        sigs = np.atleast_2d(np.asarray(sigs, dtype=np.uint64))
        if sigs.shape[1] != self.num_perm:
            raise ValueError(f"signature has {sigs.shape[1]} values, index expects {self.num_perm}")
        cut = sigs[:, :self.bands * self.rows].reshape(len(sigs), self.bands, self.rows)
        with np.errstate(over="ignore"):
            h = cut[:, :, 0].copy()
            for j in range(1, self.rows):
                h = h * _U64(_GRAM_BASE) + cut[:, :, j]
        return _fmix64(h)

    def insert(self, key: Hashable, sig: np.ndarray) -> None:
        self.insert_many([key], np.atleast_2d(sig))

    def insert_many(self, keys: Sequence[Hashable], sigs: np.ndarray) -> None:
        keys = list(keys)
        if len(keys) != len(np.atleast_2d(sigs)):
            raise ValueError("keys and signatures differ in number")
        dup = self._keys.intersection(keys)
        if dup or len(set(keys)) != len(keys):
            raise ValueError(f"key(s) already in the index: {sorted(map(str, dup))[:5] or 'repeated in input'}")
        bh = self._band_hashes(sigs)
        for band, table in enumerate(self._tables):
            for key, h in zip(keys, bh[:, band].tolist()):
                table.setdefault(h, []).append(key)
        self._keys.update(keys)
        self._sorted_band_keys = None

    def __len__(self) -> int:
        return len(self._keys)

    def query(self, sig: np.ndarray) -> list[Hashable]:
        return self.query_many(np.atleast_2d(sig))[0]

    def query_many(self, sigs: np.ndarray) -> list[list[Hashable]]:
        """Candidates for many signatures; a vectorised membership test skips signatures with no band hit."""
        bh = self._band_hashes(sigs)
        if self._sorted_band_keys is None:
            self._sorted_band_keys = [np.array(sorted(t), dtype=np.uint64) for t in self._tables]
        hit = np.zeros(bh.shape, dtype=bool)
        for band, known in enumerate(self._sorted_band_keys):
            if len(known):
                pos = np.searchsorted(known, bh[:, band]).clip(max=len(known) - 1)
                hit[:, band] = known[pos] == bh[:, band]
        out: list[list[Hashable]] = [[] for _ in range(len(bh))]
        for i in np.flatnonzero(hit.any(axis=1)).tolist():
            seen: dict[Hashable, None] = {}
            for band in np.flatnonzero(hit[i]).tolist():
                for key in self._tables[band][int(bh[i, band])]:
                    seen[key] = None
            out[i] = list(seen)
        return out


class ContainmentIndex:
    """Benchmark items' token n-grams, indexed so that streamed training rows find high-containment items fast.

    Exact by *prefix filtering*: an item with ``m`` distinct n-grams can reach containment ``>= floor`` only by
    sharing one of its ``m - ceil(floor*m) + 1`` rarest n-grams (rarest across the benchmark), so only those are
    indexed for candidate search; each candidate's containment is then counted exactly over all its n-grams.
    Boilerplate n-grams common to every task (imports, ``get_inputs``) never generate candidates.
    """

    def __init__(self, bench_texts: Sequence[str], n: int = 13, floor: float = 0.2, seed: int = 1):
        if not 0.0 < floor <= 1.0:
            raise ValueError(f"containment floor must be in (0, 1], got {floor}")
        self.n, self.floor, self.seed = n, floor, seed
        grams = ngram_hashes(bench_texts, n, seed=seed)
        self.item_grams = [np.unique(grams.doc(i)) for i in range(len(grams))]
        all_grams = np.concatenate(self.item_grams) if self.item_grams else np.zeros(0, np.uint64)
        uniq, df = np.unique(all_grams, return_counts=True)
        prefix_gram, prefix_item = [], []
        for item, g in enumerate(self.item_grams):
            if not len(g):
                continue
            rarity = df[np.searchsorted(uniq, g)]
            keep = len(g) - int(np.ceil(floor * len(g) - 1e-9)) + 1
            prefix = g[np.argsort(rarity, kind="stable")[:keep]]
            prefix_gram.append(prefix)
            prefix_item.append(np.full(len(prefix), item, dtype=np.int64))
        gram = np.concatenate(prefix_gram) if prefix_gram else np.zeros(0, np.uint64)
        item = np.concatenate(prefix_item) if prefix_item else np.zeros(0, np.int64)
        order = np.argsort(gram, kind="stable")
        self._prefix_gram, self._prefix_item = gram[order], item[order]
        # every (n-gram, item) pair, as one mixed 64-bit key, for exact counting of candidate pairs
        self._item_sizes = np.array([len(g) for g in self.item_grams], dtype=np.int64)
        pair_keys = [_pair_key(g, np.full(len(g), i, dtype=np.uint64)) for i, g in enumerate(self.item_grams)]
        self._pair_keys = np.sort(np.concatenate(pair_keys)) if pair_keys else np.zeros(0, np.uint64)
        self._all_grams = uniq
        # a 16M-entry bitmap of the benchmark's n-gram hashes: a cheap first test that drops almost every training
        # n-gram before any binary search (random lookups into a large sorted array are the slow part)
        self._bitmap = np.zeros(_BITMAP_SIZE, dtype=bool)
        self._bitmap[(uniq & _U64(_BITMAP_SIZE - 1)).astype(np.int64)] = True

    def _maybe_in_bench(self, values: np.ndarray) -> np.ndarray:
        """Indices of ``values`` that may be benchmark n-grams (no false negatives)."""
        return np.flatnonzero(self._bitmap[(values & _U64(_BITMAP_SIZE - 1)).astype(np.int64)])

    def candidates(self, train: NgramHashes) -> tuple[np.ndarray, np.ndarray]:
        """(train_index, bench_index) pairs sharing at least one prefix n-gram, each pair once."""
        if not len(self._prefix_gram) or not len(train.values):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        maybe = self._maybe_in_bench(train.values)
        values = train.values[maybe]
        lo = np.searchsorted(self._prefix_gram, values, side="left")
        hi = np.searchsorted(self._prefix_gram, values, side="right")
        found = np.flatnonzero(hi > lo)
        if not len(found):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        hits = maybe[found]
        lo, hi = lo[found], hi[found]
        doc = np.searchsorted(train.offsets, hits, side="right") - 1
        counts = hi - lo
        # expand every hit gram to all items holding it
        starts = np.repeat(lo, counts)
        within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        items = self._prefix_item[starts + within]
        docs = np.repeat(doc, counts)
        n_items = len(self.item_grams)
        pairs = np.unique(docs * n_items + items)
        return pairs // n_items, pairs % n_items

    def scores(self, train: NgramHashes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(train_index, bench_index, containment) arrays for every pair with containment >= floor.

        Vectorised: the training n-grams found anywhere in the benchmark are deduplicated per row; each
        candidate pair then looks up (n-gram, item) keys for all of its row's found n-grams at once.
        """
        docs, items = self.candidates(train)
        if not len(docs):
            return docs, items, np.zeros(0)
        maybe = self._maybe_in_bench(train.values)
        found = maybe[_isin_sorted(train.values[maybe], self._all_grams)]
        f_doc = np.searchsorted(train.offsets, found, side="right") - 1
        f_val = train.values[found]
        order = np.lexsort((f_val, f_doc))
        f_doc, f_val = f_doc[order], f_val[order]
        first = np.ones(len(f_doc), dtype=bool)
        first[1:] = (f_doc[1:] != f_doc[:-1]) | (f_val[1:] != f_val[:-1])
        f_doc, f_val = f_doc[first], f_val[first]
        row_lo = np.searchsorted(f_doc, docs, side="left")
        row_n = np.searchsorted(f_doc, docs, side="right") - row_lo
        pair_of = np.repeat(np.arange(len(docs)), row_n)
        within = np.arange(row_n.sum()) - np.repeat(np.cumsum(row_n) - row_n, row_n)
        grams = f_val[np.repeat(row_lo, row_n) + within]
        shared = _isin_sorted(_pair_key(grams, items[pair_of].astype(np.uint64)), self._pair_keys)
        counts = np.bincount(pair_of, weights=shared, minlength=len(docs))
        score = counts / self._item_sizes[items]
        keep = score >= self.floor - 1e-12
        return docs[keep], items[keep], score[keep]


def _pair_key(grams: np.ndarray, items: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return _fmix64(grams ^ (items + _U64(1)) * _U64(_GRAM_BASE))


def _isin_sorted(values: np.ndarray, sorted_ref: np.ndarray) -> np.ndarray:
    """Boolean mask: which ``values`` occur in the sorted array ``sorted_ref`` (binary search, no sort of values)."""
    if not len(sorted_ref):
        return np.zeros(len(values), dtype=bool)
    pos = np.searchsorted(sorted_ref, values).clip(max=len(sorted_ref) - 1)
    return sorted_ref[pos] == values


@dataclass
class LexicalHits:
    """Lexical pairs of one scan: index arrays into the training batch and the benchmark, with both measures.

    ``jaccard`` is NaN where only containment reached its floor, and ``containment`` is NaN where only
    Jaccard did (the pair was not a candidate for that measure, so its value is below that floor).
    """

    train_index: np.ndarray
    bench_index: np.ndarray
    jaccard: np.ndarray
    containment: np.ndarray


class LexicalScanner:
    """The benchmark side of a lexical audit, built once; ``scan`` streams training batches through it.

    Per batch: tokenise and hash once; 5-gram shingles give MinHash signatures, LSH candidates against the
    benchmark and their exact Jaccard; 13-grams give containment through :class:`ContainmentIndex`.
    Texts must already be normalised.
    """

    # LSH candidates whose MinHash estimate is this far below the Jaccard floor are not verified exactly:
    # the estimate's error is ~0.03 on average, ~0.045 standard deviation at J = 0.5 (128 bins), so a margin
    # of 0.15 (over 3 standard deviations) loses a true pair very rarely while skipping most boilerplate matches.
    ESTIMATE_MARGIN = 0.15

    def __init__(self, bench_texts: Sequence[str], *, jaccard_floor: float = 0.5, containment_floor: float = 0.5,
                 num_perm: int = 128, shingle: int = 5, ngram: int = 13, seed: int = 1):
        self.jaccard_floor = jaccard_floor
        self.hasher = MinHasher(num_perm=num_perm, shingle=shingle, seed=seed)
        self.ngram = ngram
        tok = token_hashes(bench_texts, seed=seed)
        sh = grams_from_tokens(tok, shingle)
        self._bench_shingles = [np.unique(sh.doc(i)) for i in range(len(sh))]
        self._bench_sigs = self.hasher.signatures_from_shingles(sh)
        # the LSH threshold sits below the Jaccard floor so that candidates near the floor are still found
        self.lsh = LSHIndex(threshold=max(0.05, jaccard_floor - 0.1), num_perm=num_perm)
        self.lsh.insert_many(range(len(bench_texts)), self._bench_sigs)
        self.containment = ContainmentIndex(bench_texts, n=ngram, floor=containment_floor, seed=seed)

    def scan(self, train_texts: Sequence[str]) -> LexicalHits:
        tok = token_hashes(train_texts, seed=self.hasher.seed)
        sh = grams_from_tokens(tok, self.hasher.shingle)
        sigs = self.hasher.signatures_from_shingles(sh)
        cand = self.lsh.query_many(sigs)
        cand_t = np.repeat(np.arange(len(cand)), [len(c) for c in cand])
        cand_b = np.array([b for c in cand for b in c], dtype=np.int64)
        pairs: dict[tuple[int, int], list[float]] = {}
        if len(cand_t):
            estimate = (sigs[cand_t] == self._bench_sigs[cand_b]).mean(axis=1)
            keep = estimate >= self.jaccard_floor - self.ESTIMATE_MARGIN
            for t, b in zip(cand_t[keep].tolist(), cand_b[keep].tolist()):
                j = _sorted_jaccard(np.unique(sh.doc(t)), self._bench_shingles[b])
                if j >= self.jaccard_floor - 1e-12:
                    pairs[(t, b)] = [j, np.nan]
        docs, items, score = self.containment.scores(grams_from_tokens(tok, self.ngram))
        for t, b, c in zip(docs.tolist(), items.tolist(), score.tolist()):
            pairs.setdefault((t, b), [np.nan, np.nan])[1] = c
        keys = list(pairs)
        vals = np.array([pairs[k] for k in keys], dtype=float).reshape(-1, 2)
        return LexicalHits(
            train_index=np.array([k[0] for k in keys], dtype=np.int64),
            bench_index=np.array([k[1] for k in keys], dtype=np.int64),
            jaccard=vals[:, 0], containment=vals[:, 1],
        )


def _sorted_jaccard(a: np.ndarray, b: np.ndarray) -> float:
    if not len(a) or not len(b):
        return 0.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)
