"""Tokens and shingles of kvdata: the token definition, and the 64-bit hashes of every token and token n-gram.

The build's dedup and the overlap audit hash texts through here (:mod:`kvdata.minhash` summarises the shingles as
MinHash signatures; the audit's containment measure uses the 13-grams directly), so a token and a shingle mean the
same thing everywhere.

The token. A token is a run of word characters (ASCII letters, digits, ``_`` and any non-ASCII character) or one
other non-whitespace character; ASCII whitespace separates tokens and is never one. :data:`WORD_ASCII` and
:data:`WHITESPACE` define it; :func:`tokens` (a regex on text) and :func:`tokenise` (byte classes on UTF-8) are
both built from them, and the byte classes are checked against the definition on import.

How a batch is hashed (all numpy, no Python loop per token; batches of ~1 MiB so temporaries stay in cache):
1. the texts are joined into one byte buffer; byte classes mark token starts and ends (:func:`tokenise`);
2. each token's hash is a position-independent polynomial hash read off a prefix sum (mod 2**64), then mixed
   (:func:`hash_tokens`); a caller may rewrite the hashes of a batch before n-grams are built (the audit's
   identifier renaming does, see :func:`token_hashes`);
3. an n-gram's hash combines n consecutive token hashes by doubling (g2 = g1*M + g1[+1], g4 = ...; the 13-grams
   reuse the 5-grams: 13 = 8 + 5), and windows that cross a document boundary are dropped.
"""
from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Optional, Sequence

import numpy as np

__all__ = [
    "DEFAULT_SEED", "WORD_ASCII", "WHITESPACE", "GRAM_BASE", "tokens", "TokenSpans", "tokenise", "hash_tokens",
    "TokenRewrite", "NgramHashes", "token_hashes", "GramWindows", "grams_from_tokens", "ngram_hashes",
    "byte_batches", "fmix64", "unique_sorted", "unique_counts", "isin_sorted", "set_jaccard",
]

DEFAULT_SEED = 1

#: the ASCII characters of a word run; every non-ASCII character is a word character too
WORD_ASCII = string.ascii_letters + string.digits + "_"
#: the characters that separate tokens (ASCII whitespace only: U+00A0 is a word character)
WHITESPACE = " \t\n\r\f\v"
_TOKEN = re.compile(f"[{WORD_ASCII}\\u0080-\\U0010ffff]+|[^{WORD_ASCII}{re.escape(WHITESPACE)}\\u0080-\\U0010ffff]")

#: odd multiplier that combines consecutive hashes (the tokens of an n-gram; also MinHash and LSH values)
GRAM_BASE = 0x9E3779B97F4A7C15
_U64 = np.uint64
_MASK64 = (1 << 64) - 1
_BYTE_BASE = 0x100000001B3             # odd, so invertible mod 2**64
_BYTE_BASE_INV = pow(_BYTE_BASE, -1, 1 << 64)
_MAX_BATCH_BYTES = 1 << 20             # bytes hashed per numpy pass: temporaries (~8x this) stay in cache


def tokens(text: str) -> list[str]:
    """The tokens of ``text``: word runs (identifiers, numbers) and single punctuation characters."""
    return _TOKEN.findall(text)


# ----------------------------------------------------------------- tokenising on bytes
@dataclass
class TokenSpans:
    """One batch's tokens: the joined UTF-8 buffer, each token's byte span, and each document's first token."""

    buf: np.ndarray      # uint8: the texts joined by one space, plus a trailing space
    starts: np.ndarray   # int64 byte offset of each token
    ends: np.ndarray     # int64 byte offset one past each token
    offsets: np.ndarray  # int64, len = n_docs + 1: document i owns tokens offsets[i]:offsets[i+1]


def tokenise(texts: Sequence[str]) -> TokenSpans:
    """Token spans of every text of a batch, found on bytes with vectorised byte classes and a few boolean passes."""
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
    return TokenSpans(buf, starts, ends, np.searchsorted(starts, doc_starts).astype(np.int64))


def _byte_classes(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(word byte, punctuation byte) masks, by vectorised comparisons (about 4x cheaper than table lookups).

    Word bytes: those of :data:`WORD_ASCII` and every byte >= 0x80 (UTF-8 of a non-ASCII character); punctuation:
    every other byte that is not in :data:`WHITESPACE`. ``b | 0x20`` maps exactly the ASCII letters into a-z.
    """
    u8 = np.uint8
    word = (buf | u8(0x20)) - u8(ord("a")) < u8(26)
    word |= buf - u8(ord("0")) < u8(10)
    word |= buf == u8(ord("_"))
    word |= buf >= u8(0x80)
    space = buf - u8(9) < u8(5)                      # \t \n \v \f \r
    space |= buf == u8(ord(" "))
    return word, ~(word | space)


def _check_byte_classes() -> None:
    """The comparisons of :func:`_byte_classes` are the token definition, byte for byte (run on import)."""
    every = np.arange(256, dtype=np.uint8)
    word, punct = _byte_classes(every)
    want_word = np.array([b >= 0x80 or chr(b) in WORD_ASCII for b in range(256)])
    want_punct = ~want_word & np.array([chr(b) not in WHITESPACE for b in range(256)])
    if not (np.array_equal(word, want_word) and np.array_equal(punct, want_punct)):
        raise AssertionError("byte classes disagree with WORD_ASCII / WHITESPACE")


_check_byte_classes()


# ----------------------------------------------------------------- token and n-gram hashes
def fmix64(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser: spreads a polynomial hash's entropy into every bit (in place)."""
    scratch = np.empty_like(x)
    for mult in (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53):
        np.right_shift(x, _U64(33), out=scratch)
        x ^= scratch
        x *= _U64(mult)
    np.right_shift(x, _U64(33), out=scratch)
    x ^= scratch
    return x


def _splitmix(seed: int) -> int:
    z = (seed + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


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


def hash_tokens(spans: TokenSpans, seed: int) -> np.ndarray:
    """Each token's hash: a position-independent polynomial hash of its bytes, read off a prefix sum, then mixed."""
    buf = spans.buf
    size = _pow_table_size(len(buf) + 1)
    with np.errstate(over="ignore"):
        prefix = np.zeros(len(buf) + 1, dtype=np.uint64)
        weighted = buf.astype(np.uint64)
        weighted *= _powers(_BYTE_BASE, size)[:len(buf)]
        np.cumsum(weighted, out=prefix[1:])
        values = prefix[spans.ends] - prefix[spans.starts]
        values *= _powers(_BYTE_BASE_INV, size)[spans.starts]
        values ^= _U64(_splitmix(seed))
    return fmix64(values)


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


#: rewrites one batch's token hashes in place, given its spans and the seed (e.g. the audit's identifier renaming)
TokenRewrite = Callable[[TokenSpans, np.ndarray, int], None]


def token_hashes(texts: Sequence[str], *, seed: int = DEFAULT_SEED,
                 rewrite: Optional[TokenRewrite] = None) -> NgramHashes:
    """The hash of every token of every text (CSR); several n-gram lengths can then share one tokenisation.

    ``rewrite``, if given, is applied to each batch's token hashes before they are returned.
    """
    parts = []
    for batch in byte_batches(texts):
        spans = tokenise(batch)
        values = hash_tokens(spans, seed)
        if rewrite is not None:
            rewrite(spans, values, seed)
        parts.append(NgramHashes(values, spans.offsets))
    return _concat(parts)


def ngram_hashes(texts: Sequence[str], n: int, *, seed: int = DEFAULT_SEED) -> NgramHashes:
    """The hashes of every token n-gram of each text (a text with fewer than n tokens yields one n-gram: all of it)."""
    if n < 1:
        raise ValueError(f"n-gram length must be >= 1, got {n}")
    return _concat([grams_from_tokens(token_hashes(batch, seed=seed), n) for batch in byte_batches(texts)])


def byte_batches(texts: Sequence[str]) -> Iterable[Sequence[str]]:
    """Consecutive slices of ``texts`` of about ``_MAX_BATCH_BYTES`` characters each (a batch ends at the text that
    reaches the limit)."""
    start, size = 0, 0
    for i, t in enumerate(texts):
        size += len(t) + 1
        if size >= _MAX_BATCH_BYTES:
            yield texts[start:i + 1]
            start, size = i + 1, 0
    if start < len(texts):
        yield texts[start:]


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


class GramWindows:
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
            out = head * _U64(pow(GRAM_BASE, rest, 1 << 64))
            out += tail
        self._built[n] = out
        return out


def grams_from_tokens(tok: NgramHashes, n: int, windows: Optional[GramWindows] = None) -> NgramHashes:
    """Token n-gram hashes from token hashes (see :func:`ngram_hashes`); ``windows`` shares work across n."""
    lengths = np.diff(tok.offsets)
    if n == 1:
        grams, counts = tok.values.copy(), lengths
    else:
        all_windows = (windows or GramWindows(tok.values)).get(n)
        grams = all_windows[_windows_inside_docs(tok.offsets, n, len(all_windows))]
        counts = np.maximum(lengths - n + 1, 0)
    offsets = np.zeros(len(tok) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    short = np.flatnonzero((lengths > 0) & (lengths < n))
    if len(short):  # rare: texts shorter than one n-gram get a single gram over all their tokens
        grams, offsets = _insert_short_grams(grams, offsets, tok, short)
    fmix64(grams)
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
                h = h * _U64(GRAM_BASE) + v
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


# ----------------------------------------------------------------- sets of hashes
def unique_counts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values and how often each occurs. (``np.unique`` is hash-based in numpy 2.x and ~30x
    slower than a sort here.)"""
    s = np.sort(x)
    if not len(s):
        return s, np.zeros(0, dtype=np.int64)
    first = np.empty(len(s), dtype=bool)
    first[0] = True
    np.not_equal(s[1:], s[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return s[starts], np.diff(np.append(starts, len(s)))


def unique_sorted(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values."""
    return unique_counts(x)[0]


def isin_sorted(values: np.ndarray, sorted_ref: np.ndarray) -> np.ndarray:
    """Boolean mask: which ``values`` occur in the sorted array ``sorted_ref`` (binary search, no sort of values)."""
    if not len(sorted_ref):
        return np.zeros(len(values), dtype=bool)
    pos = np.searchsorted(sorted_ref, values).clip(max=len(sorted_ref) - 1)
    return sorted_ref[pos] == values


def set_jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Jaccard similarity of two arrays of hashes taken as sets."""
    a, b = unique_sorted(a), unique_sorted(b)
    if not len(a) or not len(b):
        return 0.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)
