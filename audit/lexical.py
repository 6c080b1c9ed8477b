"""Lexical overlap of the audit: exact Jaccard of token shingles and n-gram containment, found fast.

The hashing is the core's, shared with the build's near-duplicate removal: tokens and shingle hashes in
:mod:`kvdata.shingles`, MinHash signatures and LSH in :mod:`kvdata.minhash`; their public names used here are
re-exported. What this module adds is the audit's scan of training rows against a benchmark:

* :class:`LexicalScanner` streams training texts in batches of ~1 MiB; each batch is tokenised and hashed once,
  its 5-gram shingles give MinHash signatures, LSH candidates against the benchmark
  (:meth:`~kvdata.minhash.LSHIndex.query_pairs`: band keys looked up in one sorted array behind a bitmap) and
  their exact Jaccard; its 13-grams (sharing the 5-grams' window work) give containment;
* :class:`ContainmentIndex` finds high-containment (benchmark item, training row) pairs by prefix filtering with
  a count filter, then counts each candidate exactly.

Only the few surviving pairs are verified one by one. Exact Jaccard and containment are computed on the sets of
64-bit shingle hashes (exact up to 64-bit collisions); :func:`jaccard` and :func:`containment` compute them on
token tuples for single pairs. With ``rename_identifiers``, identifiers are renamed on the token hashes
(:func:`kvdata.audit.normalize.rename_identifier_hashes`), the same rule as on text.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from kvdata.audit.normalize import rename_identifier_hashes
from kvdata.minhash import DEFAULT_NUM_PERM, DEFAULT_SHINGLE, EMPTY, LSHIndex, MinHasher, estimate_jaccard, lsh_bands
from kvdata.shingles import (DEFAULT_SEED, GramWindows, NgramHashes, byte_batches, grams_from_tokens, isin_sorted,
                             ngram_hashes, set_jaccard, tokens, unique_counts, unique_sorted)
from kvdata.shingles import token_hashes as _core_token_hashes

__all__ = [
    "MinHasher", "LSHIndex", "NgramHashes", "ngram_hashes", "estimate_jaccard", "jaccard", "containment",
    "lsh_bands", "set_jaccard", "ContainmentIndex", "token_hashes", "grams_from_tokens", "LexicalScanner",
    "LexicalHits", "EMPTY", "pair_scores",
]

_U64 = np.uint64
_BITMAP_SIZE = 1 << 24                 # membership pre-filter of ContainmentIndex (16 MiB of bools)


def token_hashes(texts: Sequence[str], *, seed: int = DEFAULT_SEED, rename_identifiers: bool = False) -> NgramHashes:
    """:func:`kvdata.shingles.token_hashes`, optionally with identifiers renamed on the hashes.

    With ``rename_identifiers``, user-chosen identifiers hash as the placeholder ``_v``: the result equals the
    token hashes of ``normalize_code(text, rename_identifiers=True)`` for any text whose comments are stripped.
    """
    return _core_token_hashes(texts, seed=seed, rewrite=rename_identifier_hashes if rename_identifiers else None)


def _shingle_set(text: str, n: int) -> set[tuple[str, ...]]:
    toks = tokens(text)
    if not toks:
        return set()
    if len(toks) < n:
        return {tuple(toks)}
    return {tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)}


def jaccard(a_text: str, b_text: str, shingle: int = DEFAULT_SHINGLE) -> float:
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


def pair_scores(bench_texts: Sequence[str], train_texts: Sequence[str], pairs: Sequence[tuple[int, int]], *,
                rename_identifiers: bool = False, shingle: int = DEFAULT_SHINGLE, ngram: int = 13,
                seed: int = DEFAULT_SEED) -> tuple[np.ndarray, np.ndarray]:
    """Exact Jaccard and containment of given (bench index, train index) pairs, on hashed shingles.

    The same values :class:`LexicalScanner` reports (texts comment-stripped, identifiers renamed on the hashes
    when asked), for pairs another measure found: each text is hashed once, in batches, however long it is.
    """
    def sets(texts: Sequence[str], n: int) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for batch in byte_batches(list(texts)):
            tok = token_hashes(batch, seed=seed, rename_identifiers=rename_identifiers)
            grams = grams_from_tokens(tok, n, GramWindows(tok.values))
            out.extend(unique_sorted(grams.doc(i)) for i in range(len(grams)))
        return out

    b_used = sorted({b for b, _ in pairs})
    t_used = sorted({t for _, t in pairs})
    b_pos = {b: i for i, b in enumerate(b_used)}
    t_pos = {t: i for i, t in enumerate(t_used)}
    b_texts, t_texts = [bench_texts[b] for b in b_used], [train_texts[t] for t in t_used]
    b_sh, t_sh = sets(b_texts, shingle), sets(t_texts, shingle)
    b_ng, t_ng = sets(b_texts, ngram), sets(t_texts, ngram)
    jac, con = np.zeros(len(pairs)), np.zeros(len(pairs))
    for k, (b, t) in enumerate(pairs):
        ref, row = b_sh[b_pos[b]], t_sh[t_pos[t]]
        inter = int(np.count_nonzero(isin_sorted(ref, row))) if len(ref) and len(row) else 0
        union = len(ref) + len(row) - inter
        jac[k] = inter / union if union else 0.0
        grams = b_ng[b_pos[b]]
        con[k] = (np.count_nonzero(isin_sorted(grams, t_ng[t_pos[t]])) / len(grams)) if len(grams) else 0.0
    return jac, con


class ContainmentIndex:
    """Benchmark items' token n-grams, indexed so that streamed training rows find high-containment items fast.

    Exact by *prefix filtering* with a count filter: an item with ``m`` distinct n-grams reaches containment
    ``>= floor`` only by sharing ``need = ceil(floor*m)`` of them, hence at least ``k`` of its
    ``m - need + k`` rarest n-grams (rarest across the benchmark) for any ``k <= need``. Only those prefixes are
    indexed; a training row becomes a candidate for an item when it holds ``k`` (``MIN_SHARED``, or ``need`` if
    smaller) of the item's prefix n-grams, and each candidate's containment is then counted exactly over all the
    item's n-grams. Boilerplate n-grams common to every task (imports, ``get_inputs``) never generate candidates,
    and ``k > 1`` drops the rows that share one rare-ish line with a task (common once identifiers are renamed).
    """

    MIN_SHARED = 16

    def __init__(self, bench_texts: Sequence[str], n: int = 13, floor: float = 0.2, seed: int = 1, *,
                 rename_identifiers: bool = False):
        if not 0.0 < floor <= 1.0:
            raise ValueError(f"containment floor must be in (0, 1], got {floor}")
        self.n, self.floor, self.seed = n, floor, seed
        grams = grams_from_tokens(token_hashes(bench_texts, seed=seed, rename_identifiers=rename_identifiers), n)
        self.item_grams = [unique_sorted(grams.doc(i)) for i in range(len(grams))]
        all_grams = np.concatenate(self.item_grams) if self.item_grams else np.zeros(0, np.uint64)
        uniq, df = unique_counts(all_grams)
        prefix_gram, prefix_item = [], []
        self._min_shared = np.ones(len(self.item_grams), dtype=np.int64)
        for item, g in enumerate(self.item_grams):
            if not len(g):
                continue
            rarity = df[np.searchsorted(uniq, g)]
            need = int(np.ceil(floor * len(g) - 1e-9))
            k = min(self.MIN_SHARED, need)
            self._min_shared[item] = k
            prefix = g[np.argsort(rarity, kind="stable")[:len(g) - need + k]]
            prefix_gram.append(prefix)
            prefix_item.append(np.full(len(prefix), item, dtype=np.int64))
        gram = np.concatenate(prefix_gram) if prefix_gram else np.zeros(0, np.uint64)
        item = np.concatenate(prefix_item) if prefix_item else np.zeros(0, np.int64)
        order = np.argsort(gram, kind="stable")
        self._prefix_gram, self._prefix_item = gram[order], item[order]
        # the distinct prefix n-grams, each with its run of items in _prefix_item
        self._prefix_keys, self._posting_count = unique_counts(self._prefix_gram)
        self._posting_start = np.cumsum(self._posting_count) - self._posting_count
        # a 16M-entry bitmap of the prefix n-grams: a cheap first test that drops almost every training n-gram
        # before any binary search (random lookups into a large sorted array are the slow part)
        self._bitmap = np.zeros(_BITMAP_SIZE, dtype=bool)
        self._bitmap[(self._prefix_keys & _U64(_BITMAP_SIZE - 1)).astype(np.int64)] = True

    def _prefix_hits(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(index into ``values``, index into the distinct prefix n-grams) of every value that is a prefix n-gram."""
        maybe = np.flatnonzero(self._bitmap[(values & _U64(_BITMAP_SIZE - 1)).astype(np.int64)])
        pos = np.searchsorted(self._prefix_keys, values[maybe]).clip(max=len(self._prefix_keys) - 1)
        hit = self._prefix_keys[pos] == values[maybe]
        return maybe[hit], pos[hit]

    def candidates(self, train: NgramHashes) -> tuple[np.ndarray, np.ndarray]:
        """(train_index, bench_index) pairs holding enough of the item's prefix n-grams, each pair once."""
        none = np.zeros(0, np.int64), np.zeros(0, np.int64)
        if not len(self._prefix_keys) or not len(train.values):
            return none
        hits, pos = self._prefix_hits(train.values)
        if not len(hits):
            return none
        doc = np.searchsorted(train.offsets, hits, side="right") - 1
        # a row holding an n-gram twice shares it once: one hit per distinct (row, prefix n-gram)
        distinct = unique_sorted(doc * len(self._prefix_keys) + pos)
        doc, pos = distinct // len(self._prefix_keys), distinct % len(self._prefix_keys)
        lo, counts = self._posting_start[pos], self._posting_count[pos]
        # expand every hit n-gram to all items holding it in their prefix, then count hits per (row, item)
        within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        items = self._prefix_item[np.repeat(lo, counts) + within]
        n_items = len(self.item_grams)
        keys = np.repeat(doc, counts) * n_items + items
        pairs, shared = unique_counts(keys)
        pairs = pairs[shared >= self._min_shared[pairs % n_items]]
        return pairs // n_items, pairs % n_items

    def scores(self, train: NgramHashes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(train_index, bench_index, containment) arrays for every pair with containment >= floor.

        Each candidate is counted exactly: the item's n-grams are looked up in the row's sorted distinct
        n-grams (a small binary search per pair; candidates are few after the count filter).
        """
        docs, items = self.candidates(train)
        score = np.zeros(len(docs))
        row_sets: dict[int, np.ndarray] = {}
        for k, (t, b) in enumerate(zip(docs.tolist(), items.tolist())):
            row = row_sets.get(t)
            if row is None:
                row = row_sets[t] = unique_sorted(train.doc(t))
            ref = self.item_grams[b]
            score[k] = np.count_nonzero(isin_sorted(ref, row)) / len(ref)
        keep = score >= self.floor - 1e-12
        return docs[keep], items[keep], score[keep]


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
    """The benchmark side of a lexical audit, built once; ``scan`` streams training texts through it.

    Per batch of about 1 MiB of text (small enough for numpy's temporaries to stay in cache): tokenise and hash
    once; 5-gram shingles give MinHash signatures, LSH candidates against the benchmark and their exact Jaccard;
    13-grams (sharing the 5-grams' window work) give containment through :class:`ContainmentIndex`.

    Texts must have their comments stripped (:func:`kvdata.audit.normalize.strip_comments` or
    :func:`~kvdata.audit.normalize.normalize_code`; whitespace does not matter). With ``rename_identifiers``,
    user-chosen identifiers of both sides are replaced by a placeholder at the token level: the same measures as
    on ``normalize_code(text, rename_identifiers=True)``, without building that text.
    """

    # LSH candidates whose MinHash estimate is this far below the Jaccard floor are not verified exactly:
    # the estimate's error is ~0.03 on average, ~0.045 standard deviation at J = 0.5 (128 bins), so a margin
    # of 0.15 (over 3 standard deviations) loses a true pair very rarely while skipping most boilerplate matches.
    ESTIMATE_MARGIN = 0.15

    def __init__(self, bench_texts: Sequence[str], *, jaccard_floor: float = 0.5, containment_floor: float = 0.5,
                 num_perm: int = DEFAULT_NUM_PERM, shingle: int = DEFAULT_SHINGLE, ngram: int = 13, seed: int = 1,
                 rename_identifiers: bool = False):
        self.jaccard_floor = jaccard_floor
        self.hasher = MinHasher(num_perm=num_perm, shingle=shingle, seed=seed)
        self.ngram = ngram
        self.rename_identifiers = rename_identifiers
        tok = token_hashes(bench_texts, seed=seed, rename_identifiers=rename_identifiers)
        sh = grams_from_tokens(tok, shingle)
        self._bench_shingles = [unique_sorted(sh.doc(i)) for i in range(len(sh))]
        self._bench_sigs = self.hasher.signatures_from_shingles(sh)
        self._bench_sig_bits = _signature_bits(self._bench_sigs)
        # the LSH threshold sits below the Jaccard floor so that candidates near the floor are still found
        self.lsh = LSHIndex(threshold=max(0.05, jaccard_floor - 0.1), num_perm=num_perm)
        self.lsh.insert_many(range(len(bench_texts)), self._bench_sigs)
        self.containment = ContainmentIndex(bench_texts, n=ngram, floor=containment_floor, seed=seed,
                                            rename_identifiers=rename_identifiers)

    def scan(self, train_texts: Sequence[str]) -> LexicalHits:
        """Every (training text, benchmark item) pair whose Jaccard or containment reaches its floor."""
        parts, base = [], 0
        for batch in byte_batches(train_texts):
            hits = self._scan_batch(batch)
            hits.train_index += base
            base += len(batch)
            parts.append(hits)
        if len(parts) == 1:
            return parts[0]
        return LexicalHits(*(np.concatenate([getattr(h, f) for h in parts]) if parts else np.zeros(0)
                             for f in ("train_index", "bench_index", "jaccard", "containment")))

    def _scan_batch(self, train_texts: Sequence[str]) -> LexicalHits:
        tok = token_hashes(train_texts, seed=self.hasher.seed, rename_identifiers=self.rename_identifiers)
        windows = GramWindows(tok.values)
        sh = grams_from_tokens(tok, self.hasher.shingle, windows)
        grams = grams_from_tokens(tok, self.ngram, windows)
        del windows
        j_train, j_bench, j_value = self._jaccard_pairs(sh)
        c_train, c_bench, c_value = self.containment.scores(grams)
        return _merge_pairs(j_train, j_bench, j_value, c_train, c_bench, c_value)

    def _jaccard_pairs(self, sh: NgramHashes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """LSH candidates, pruned by their MinHash estimate, then verified by exact Jaccard."""
        sigs = self.hasher.signatures_from_shingles(sh)
        cand_t, cand_b = self.lsh.query_pairs(sigs)      # ids are benchmark indices: inserted as range(n)
        if not len(cand_t):
            return cand_t, cand_b, np.zeros(0)
        # the estimate only prunes, so 32 bits of each signature value are plenty (a false match only keeps a
        # pair for exact verification) and halve the memory the pairwise comparison streams through
        equal = _signature_bits(sigs)[cand_t] == self._bench_sig_bits[cand_b]
        estimate = np.count_nonzero(equal, axis=1) / self.hasher.num_perm
        keep = estimate >= self.jaccard_floor - self.ESTIMATE_MARGIN
        cand_t, cand_b = cand_t[keep], cand_b[keep]
        exact = self._exact_jaccard(sh, cand_t, cand_b)
        found = exact >= self.jaccard_floor - 1e-12
        return cand_t[found], cand_b[found], exact[found]

    def _exact_jaccard(self, sh: NgramHashes, cand_t: np.ndarray, cand_b: np.ndarray) -> np.ndarray:
        """Exact Jaccard of each (training row, benchmark item) pair of distinct-shingle sets.

        One small binary search per pair into the item's sorted shingles (which stay in cache): after the
        estimate's pruning there are few pairs, and this beats any batched lookup into all items' shingles.
        """
        out = np.zeros(len(cand_t))
        row_sets: dict[int, np.ndarray] = {}
        for k, (t, b) in enumerate(zip(cand_t.tolist(), cand_b.tolist())):
            row = row_sets.get(t)
            if row is None:
                row = row_sets[t] = unique_sorted(sh.doc(t))
            ref = self._bench_shingles[b]
            inter = int(np.count_nonzero(isin_sorted(row, ref)))
            union = len(row) + len(ref) - inter
            out[k] = inter / union if union else 0.0
        return out


def _signature_bits(sigs: np.ndarray) -> np.ndarray:
    """32 uniformly distributed bits of each signature value (bits 16-47: the top bits also encode the bin)."""
    return (sigs >> _U64(16)).astype(np.uint32)


def _merge_pairs(j_train, j_bench, j_value, c_train, c_bench, c_value) -> LexicalHits:
    """One row per (train, bench) pair found by either measure; NaN for the measure that did not find it."""
    n_bench = int(max(j_bench.max(initial=-1), c_bench.max(initial=-1))) + 1
    j_key = j_train.astype(np.int64) * n_bench + j_bench
    c_key = c_train.astype(np.int64) * n_bench + c_bench
    keys = unique_sorted(np.concatenate([j_key, c_key]))
    jac = np.full(len(keys), np.nan)
    con = np.full(len(keys), np.nan)
    jac[np.searchsorted(keys, j_key)] = j_value
    con[np.searchsorted(keys, c_key)] = c_value
    return LexicalHits(train_index=keys // max(n_bench, 1), bench_index=keys % max(n_bench, 1), jaccard=jac,
                       containment=con)
