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

How a batch is hashed (all numpy, no Python loop per token; batches of ~1 MiB so temporaries stay in cache):
1. the texts are joined into one byte buffer; byte-class tables mark token starts and ends (a token is a run
   of word bytes or one punctuation byte, exactly :func:`kvdata.audit.normalize.tokens`);
2. each token's hash is a position-independent polynomial hash read off a prefix sum (mod 2**64), then mixed;
   optionally, user-chosen identifiers are then replaced by the placeholder's hash (:func:`token_hashes`,
   equal to hashing ``normalize_code(text, rename_identifiers=True)`` but ~25x cheaper than building that text);
3. an n-gram's hash combines n consecutive token hashes by doubling (g2 = g1*M + g1[+1], g4 = ...; the 13-grams
   reuse the 5-grams: 13 = 8 + 5), and windows that cross a document boundary are dropped;
4. signatures: one ``np.minimum.at`` over (document, bin) slots.

The audit's scan (:class:`LexicalScanner`) then finds candidates without Python loops per document: LSH band
keys are looked up in one sorted array behind a bitmap (:meth:`LSHIndex.query_pairs`), and containment
candidates come from prefix filtering with a count filter (:class:`ContainmentIndex`). Only the few surviving
pairs are verified one by one. Exact Jaccard and containment are computed on the sets of 64-bit shingle hashes
(exact up to 64-bit collisions); :func:`jaccard` and :func:`containment` compute them on token tuples for
single pairs.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Hashable, Iterable, Optional, Sequence

import numpy as np

from kvdata.audit.normalize import KEPT_NAMES, PLACEHOLDER, tokens

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
_MAX_BATCH_BYTES = 1 << 20             # bytes hashed per numpy pass: temporaries (~8x this) stay in cache

# Byte classes. A token is a run of word bytes (ASCII letters, digits, "_", any non-ASCII byte) or one punctuation
# byte; whitespace separates tokens. This is exactly :func:`kvdata.audit.normalize.tokens`, on UTF-8 bytes.
_WORD_BYTE = np.zeros(256, dtype=bool)
for _lo, _hi in ((ord("a"), ord("z")), (ord("A"), ord("Z")), (ord("0"), ord("9"))):
    _WORD_BYTE[_lo:_hi + 1] = True
_WORD_BYTE[ord("_")] = True
_WORD_BYTE[0x80:] = True
_IDENT_START_BYTE = _WORD_BYTE.copy()          # first byte of an identifier: an ASCII letter or "_"
_IDENT_START_BYTE[ord("0"):ord("9") + 1] = False
_IDENT_START_BYTE[0x80:] = False


def _fmix64(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser: spreads a polynomial hash's entropy into every bit (in place)."""
    scratch = np.empty_like(x)
    for mult in (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53):
        np.right_shift(x, _U64(33), out=scratch)
        x ^= scratch
        x *= _U64(mult)
    np.right_shift(x, _U64(33), out=scratch)
    x ^= scratch
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


@dataclass
class _Tokens:
    """One batch's tokens: the joined UTF-8 buffer, each token's byte span, and each document's first token."""

    buf: np.ndarray      # uint8: the texts joined by one space, plus a trailing space
    starts: np.ndarray   # int64 byte offset of each token
    ends: np.ndarray     # int64 byte offset one past each token
    offsets: np.ndarray  # int64, len = n_docs + 1: document i owns tokens offsets[i]:offsets[i+1]


def _tokenise(texts: Sequence[str]) -> _Tokens:
    """Token spans of every text of a batch, found on bytes with two table lookups and a few boolean passes."""
    encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
    buf = np.frombuffer(b" ".join(encoded) + b" ", dtype=np.uint8)
    doc_starts = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) + 1 for e in encoded], out=doc_starts[1:])
    word, punct = _byte_classes(buf)
    start_mask = word.copy()                 # a word run starts where the previous byte is no word byte
    start_mask[1:] &= ~word[:-1]
    start_mask |= punct
    end_mask = word                          # ... and ends where the next byte is none (buf ends with a space)
    end_mask[:-1] &= ~word[1:]
    end_mask |= punct
    starts = np.flatnonzero(start_mask)
    ends = np.flatnonzero(end_mask) + 1
    return _Tokens(buf, starts, ends, np.searchsorted(starts, doc_starts).astype(np.int64))


def _byte_classes(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(word byte, punctuation byte) masks, by vectorised comparisons (about 4x cheaper than table lookups).

    Word bytes are those of ``_WORD_BYTE``; punctuation is every other non-whitespace byte. ``b | 0x20`` maps
    exactly the ASCII letters into a-z.
    """
    u8 = np.uint8
    word = (buf | u8(0x20)) - u8(ord("a")) < u8(26)
    word |= buf - u8(ord("0")) < u8(10)
    word |= buf == u8(ord("_"))
    word |= buf >= u8(0x80)
    space = buf - u8(9) < u8(5)                      # \t \n \v \f \r
    space |= buf == u8(ord(" "))
    return word, ~(word | space)


def _hash_tokens(tk: _Tokens, seed: int) -> np.ndarray:
    """Each token's hash: a position-independent polynomial hash of its bytes, read off a prefix sum, then mixed."""
    buf = tk.buf
    size = _pow_table_size(len(buf) + 1)
    with np.errstate(over="ignore"):
        prefix = np.zeros(len(buf) + 1, dtype=np.uint64)
        weighted = buf.astype(np.uint64)
        weighted *= _powers(_BYTE_BASE, size)[:len(buf)]
        np.cumsum(weighted, out=prefix[1:])
        values = prefix[tk.ends] - prefix[tk.starts]
        values *= _powers(_BYTE_BASE_INV, size)[tk.starts]
        values ^= _U64(_splitmix(seed))
    return _fmix64(values)


def _token_hashes(texts: Sequence[str], seed: int, rename_identifiers: bool = False) -> NgramHashes:
    """Hash every token of every text (see the module docstring, steps 1-2)."""
    tk = _tokenise(texts)
    values = _hash_tokens(tk, seed)
    if rename_identifiers:
        _rename_identifiers(tk, values, _name_hashes(seed))
    return NgramHashes(values, tk.offsets)


@dataclass(frozen=True)
class _NameHashes:
    """Token hashes of the names identifier renaming treats specially, with a direct-mapped table of the kept
    names: slot ``h >> 48`` holds the kept name hashing there (an empty slot holds a value whose top bits are not
    its slot, so nothing matches it); the few names whose slot is taken go to a small sorted overflow array."""

    table: np.ndarray         # 65536 uint64
    overflow: np.ndarray      # sorted uint64
    placeholder: np.uint64    # hash of "_v"
    self_: np.uint64          # hash of "self"

    def is_kept(self, values: np.ndarray) -> np.ndarray:
        kept = self.table[values >> _U64(48)] == values
        if len(self.overflow):
            kept |= _isin_sorted(values, self.overflow)
        return kept


@lru_cache(maxsize=4)
def _name_hashes(seed: int) -> _NameHashes:
    names = sorted(KEPT_NAMES)
    tk = _tokenise([" ".join(names), PLACEHOLDER, "self"])
    if np.diff(tk.offsets).tolist() != [len(names), 1, 1]:
        raise AssertionError("every kept name must be one token")
    values = _hash_tokens(tk, seed)
    table = ~(np.arange(1 << 16, dtype=np.uint64) << _U64(48))
    overflow = []
    for h in values[:len(names)].tolist():
        slot = h >> 48
        if int(table[slot]) >> 48 == slot:
            overflow.append(h)
        else:
            table[slot] = h
    return _NameHashes(table, np.sort(np.array(overflow, dtype=np.uint64)), values[len(names)],
                       values[len(names) + 1])


def _rename_identifiers(tk: _Tokens, values: np.ndarray, names: _NameHashes) -> None:
    """Replace (in place) the hash of every user-chosen identifier by the hash of the placeholder ``_v``.

    The token-level equivalent of :func:`kvdata.audit.normalize.placeholder_identifiers` (tested to agree): an
    identifier keeps its name when it is a kept name, a dunder, or an attribute reached through a chain of kept
    names (``torch.nn.functional.relu``; not ``self.weight``). Work is done on the identifiers alone. An
    identifier is *linked* to the previous identifier when only "." tokens (at least one) of the same document
    lie between them. Along a linked chain, "kept" propagates from a kept name other than ``self`` (or a literal
    ``_v``, which renaming leaves as it is) until the chain breaks; that recurrence is solved with running
    maxima: a position propagates when the last run start comes after the last break.
    """
    buf, starts, ends = tk.buf, tk.starts, tk.ends
    first = buf[starts]
    ident = _IDENT_START_BYTE[first]
    if buf.max() >= 0x80:   # an identifier is ASCII only: drop tokens holding a non-ASCII byte
        non_ascii = np.zeros(len(buf) + 1, dtype=np.int64)
        np.cumsum(buf >= 0x80, out=non_ascii[1:])
        ident &= non_ascii[ends] == non_ascii[starts]
    at = np.flatnonzero(ident)                     # token index of every identifier
    if not len(at):
        return
    value = values[at]
    kept_name = names.is_kept(value)
    under = np.flatnonzero(first[at] == ord("_"))  # dunders keep their names
    s, e = starts[at[under]], ends[at[under]]
    kept_name[under] |= (e - s >= 2) & (buf[s + 1] == 95) & (buf[e - 1] == 95) & (buf[e - 2] == 95)
    is_self = value == names.self_

    doc_first = np.zeros(len(values), dtype=bool)
    doc_first[tk.offsets[:-1][np.diff(tk.offsets) > 0]] = True
    dot = ((ends - starts) == 1) & (first == ord(".")) & ~doc_first   # a document's first token never links
    prev, cur = at[:-1], at[1:]
    gap = cur - prev - 1
    linked = np.zeros(len(at), dtype=bool)
    if (dot[1:] & dot[:-1]).any():                 # rare "a..b": count the dots between
        dots = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum(dot, out=dots[1:])
        linked[1:] = (gap >= 1) & (dots[cur] - dots[prev + 1] == gap)
    else:
        linked[1:] = (gap == 1) & dot[cur - 1]
    linked &= ~doc_first[at]

    idx = np.arange(len(at))
    run_start = ~is_self & (kept_name | (value == names.placeholder))
    run_break = is_self | ~linked
    last_start = np.maximum.accumulate(np.where(run_start, idx, -1))
    last_break = np.maximum.accumulate(np.where(run_break, idx, -1))
    propagates = last_start >= last_break          # (a run start is never a break unless it is also unlinked)
    kept = kept_name
    kept[1:] |= linked[1:] & propagates[:-1]
    values[at[~kept]] = names.placeholder


def _splitmix(seed: int) -> int:
    z = (seed + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


class _Windows:
    """Unmixed n-gram window hashes h[i] = sum_k tok[i+k] * M**(n-1-k), several n sharing their work.

    Widths are built by doubling (1, 2, 4, 8, ...) and an n-gram combines the largest power of two with an
    already-built rest (13 = 8 + 5), so the 5-grams and 13-grams of one batch together cost five numpy passes.
    """

    def __init__(self, tok: np.ndarray):
        self.tok = tok
        self._built: dict[int, np.ndarray] = {1: tok}

    def get(self, n: int) -> np.ndarray:
        if n in self._built:
            return self._built[n]
        total = len(self.tok)
        if total < n:
            return np.zeros(0, dtype=np.uint64)
        high = 1 << (n.bit_length() - 1)
        if high == n:
            half = self.get(n // 2)
            head, tail = half[:total - n + 1], half[n // 2:]
            rest = n // 2
        else:
            rest = n - high
            head, tail = self.get(high)[:total - n + 1], self.get(rest)[high:high + total - n + 1]
        with np.errstate(over="ignore"):
            out = head * _U64(pow(_GRAM_BASE, rest, 1 << 64))
            out += tail
        self._built[n] = out
        return out


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


def token_hashes(texts: Sequence[str], *, seed: int = 1, rename_identifiers: bool = False) -> NgramHashes:
    """The hash of every token of every text (CSR); several n-gram lengths can then share one tokenisation.

    With ``rename_identifiers``, user-chosen identifiers hash as the placeholder ``_v``: the result equals the
    token hashes of ``normalize_code(text, rename_identifiers=True)`` for any text whose comments are stripped.
    """
    return _concat([_token_hashes(batch, seed, rename_identifiers) for batch in _byte_batches(texts)])


def grams_from_tokens(tok: NgramHashes, n: int, windows: Optional["_Windows"] = None) -> NgramHashes:
    """Token n-gram hashes from token hashes (see :func:`ngram_hashes`); ``windows`` shares work across n."""
    lengths = np.diff(tok.offsets)
    if n == 1:
        grams, counts = tok.values.copy(), lengths
    else:
        all_windows = (windows or _Windows(tok.values)).get(n)
        grams = all_windows[_windows_inside_docs(tok.offsets, n, len(all_windows))]
        counts = np.maximum(lengths - n + 1, 0)
    offsets = np.zeros(len(tok) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    short = np.flatnonzero((lengths > 0) & (lengths < n))
    if len(short):  # rare: texts shorter than one n-gram get a single gram over all their tokens
        grams, offsets = _insert_short_grams(grams, offsets, tok, short)
    _fmix64(grams)
    return NgramHashes(grams, offsets)


def _windows_inside_docs(offsets: np.ndarray, n: int, n_windows: int) -> np.ndarray:
    """Mask of the windows that end inside the document they start in (the last n-1 starts of each doc do not)."""
    keep = np.ones(n_windows, dtype=bool)
    ends = offsets[1:, None]
    crossing = ends - np.arange(1, n, dtype=np.int64)[None, :]          # window starts in [end-n+1, end-1]
    crossing = crossing[(crossing >= offsets[:-1, None]) & (crossing < n_windows)]
    keep[crossing] = False
    return keep


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

        A shingle's bin is the top bits of its hash; one unbuffered ``np.minimum.at`` over (document, bin) slots
        keeps each bin's minimum (cheaper than sorting the batch). A signature value is that minimum with its
        low 16 bits cleared (a tie there is ~2**-48), so values stay equal to those of earlier releases.
        """
        n_docs = len(sh)
        sig = np.full(n_docs * self.num_perm, _EMPTY, dtype=np.uint64)
        if len(sh.values):
            slot = np.repeat(np.arange(n_docs, dtype=np.int64) * self.num_perm, np.diff(sh.offsets))
            slot += (sh.values >> self._bin_shift).astype(np.int64)
            np.minimum.at(sig, slot, sh.values)
            filled = sig != _EMPTY
            sig[filled] &= ~_U64(0xFFFF)
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
    a, b = _unique(a), _unique(b)
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
        self._key_list: list[Hashable] = []          # keys in insertion order (their position is their id)
        self._band_rows: list[np.ndarray] = []       # band hashes of the inserted signatures, in insertion order
        self._flat: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

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
        self._key_list.extend(keys)
        self._band_rows.append(bh)
        self._sorted_band_keys = None
        self._flat = None

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


    def query_pairs(self, sigs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised ``query_many``: (signature row, key id) for every pair sharing a band, each pair once.

        A key's id is its position in insertion order (``keys_by_id``). (band, band hash) pairs are folded into
        one 64-bit key, so a collision there can only add a candidate, never lose one.
        """
        none = np.zeros(0, np.int64), np.zeros(0, np.int64)
        if not self._key_list:
            return none
        flat_keys, flat_ids, bitmap = self._flat_index()
        q = self._fold_bands(self._band_hashes(sigs)).ravel()
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
        pairs = _unique(rows * len(self._key_list) + ids)
        return pairs // len(self._key_list), pairs % len(self._key_list)

    @property
    def keys_by_id(self) -> list[Hashable]:
        return self._key_list

    def _fold_bands(self, bh: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            folded = bh + np.arange(1, self.bands + 1, dtype=np.uint64)[None, :] * _U64(_GRAM_BASE)
        return _fmix64(folded)

    def _flat_index(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sorted folded (band, hash) keys, the key id of each, and a bitmap of the keys' low bits (~3% full)."""
        if self._flat is None:
            folded = self._fold_bands(np.concatenate(self._band_rows)).ravel()
            ids = np.repeat(np.arange(len(self._key_list), dtype=np.int64), self.bands)
            order = np.argsort(folded, kind="stable")
            bitmap = np.zeros(max(1 << 16, 1 << int(32 * len(folded)).bit_length()), dtype=bool)
            bitmap[(folded & _U64(len(bitmap) - 1)).astype(np.int64)] = True
            self._flat = folded[order], ids[order], bitmap
        return self._flat


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
        self.item_grams = [_unique(grams.doc(i)) for i in range(len(grams))]
        all_grams = np.concatenate(self.item_grams) if self.item_grams else np.zeros(0, np.uint64)
        uniq, df = _unique_counts(all_grams)
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
        self._prefix_keys, self._posting_count = _unique_counts(self._prefix_gram)
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
        distinct = _unique(doc * len(self._prefix_keys) + pos)
        doc, pos = distinct // len(self._prefix_keys), distinct % len(self._prefix_keys)
        lo, counts = self._posting_start[pos], self._posting_count[pos]
        # expand every hit n-gram to all items holding it in their prefix, then count hits per (row, item)
        within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        items = self._prefix_item[np.repeat(lo, counts) + within]
        n_items = len(self.item_grams)
        keys = np.repeat(doc, counts) * n_items + items
        pairs, shared = _unique_counts(keys)
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
                row = row_sets[t] = _unique(train.doc(t))
            ref = self.item_grams[b]
            score[k] = np.count_nonzero(_isin_sorted(ref, row)) / len(ref)
        keep = score >= self.floor - 1e-12
        return docs[keep], items[keep], score[keep]


def _unique(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values. (``np.unique`` is hash-based in numpy 2.x and ~30x slower than a sort here.)"""
    return _unique_counts(x)[0]


def _unique_counts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values and how often each occurs."""
    s = np.sort(x)
    if not len(s):
        return s, np.zeros(0, dtype=np.int64)
    first = np.empty(len(s), dtype=bool)
    first[0] = True
    np.not_equal(s[1:], s[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return s[starts], np.diff(np.append(starts, len(s)))


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
                 num_perm: int = 128, shingle: int = 5, ngram: int = 13, seed: int = 1,
                 rename_identifiers: bool = False):
        self.jaccard_floor = jaccard_floor
        self.hasher = MinHasher(num_perm=num_perm, shingle=shingle, seed=seed)
        self.ngram = ngram
        self.rename_identifiers = rename_identifiers
        tok = token_hashes(bench_texts, seed=seed, rename_identifiers=rename_identifiers)
        sh = grams_from_tokens(tok, shingle)
        self._bench_shingles = [_unique(sh.doc(i)) for i in range(len(sh))]
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
        for batch in _byte_batches(train_texts):
            hits = self._scan_batch(batch)
            hits.train_index += base
            base += len(batch)
            parts.append(hits)
        if len(parts) == 1:
            return parts[0]
        return LexicalHits(*(np.concatenate([getattr(h, f) for h in parts]) if parts else np.zeros(0)
                             for f in ("train_index", "bench_index", "jaccard", "containment")))

    def _scan_batch(self, train_texts: Sequence[str]) -> LexicalHits:
        tok = _token_hashes(train_texts, self.hasher.seed, self.rename_identifiers)
        windows = _Windows(tok.values)
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
                row = row_sets[t] = _unique(sh.doc(t))
            ref = self._bench_shingles[b]
            inter = int(np.count_nonzero(_isin_sorted(row, ref)))
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
    keys = _unique(np.concatenate([j_key, c_key]))
    jac = np.full(len(keys), np.nan)
    con = np.full(len(keys), np.nan)
    jac[np.searchsorted(keys, j_key)] = j_value
    con[np.searchsorted(keys, c_key)] = c_value
    return LexicalHits(train_index=keys // max(n_bench, 1), bench_index=keys % max(n_bench, 1), jaccard=jac,
                       containment=con)
