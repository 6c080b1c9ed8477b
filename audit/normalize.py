"""Identifier renaming: the one rule that turns user-chosen names into a placeholder, on text and on token hashes.

A copy of a task with its variables renamed is still that task. Renaming replaces every user-chosen identifier by
the one placeholder ``_v`` (not ``v0, v1, ...`` by first appearance, which keeps the result independent of the
order of functions: a copy both renamed and reordered still shares its shingles). Names that say *what is
computed* keep their names:

* the names of :data:`KEPT_NAMES`: Python keywords and builtins, C/HIP words, and the module aliases and API
  names of torch and Triton (``torch``, ``nn``, ``F``, ``tl``, ``forward``, ``get_inputs``, ...);
* dunders (``__init__``, ``__global__``);
* every attribute reached through a chain of kept names (``torch.nn.functional.relu``, ``tl.load``; not
  ``self.weight``: attributes of ``self`` are user-chosen).

One implementation, two views. :func:`renamed_tokens` decides which tokens of a batch get the placeholder, on the
token spans and token hashes of :mod:`kvdata.shingles`; :func:`rename_identifier_hashes` applies it to the hashes
(the lexical scan's fast path: no renamed text is ever built) and :func:`placeholder_identifiers` to the text (the
same decision, token by token, then the tokens joined by one space). So ``token_hashes(normalize_code(t,
rename_identifiers=True))`` equals the renamed token hashes of ``strip_comments(t)`` by construction.

This module also re-exports the code normalisation of the core (:mod:`kvdata.normalize`) that the audit uses.
"""
from __future__ import annotations

import builtins
import keyword
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from kvdata.normalize import guess_language, strip_comments
from kvdata.normalize import normalize_code as _normalize_layout
from kvdata.shingles import DEFAULT_SEED, TokenSpans, byte_batches, hash_tokens, isin_sorted, tokenise, tokens

__all__ = ["normalize_code", "normalize_codes", "strip_comments", "tokens", "guess_language", "placeholder_identifiers",
           "placeholder_identifiers_many", "KEPT_NAMES", "PLACEHOLDER", "renamed_tokens", "rename_identifier_hashes"]

_C_WORDS = """
auto break case char const constexpr continue default do double else enum extern float for goto if inline int
long register return short signed sizeof static struct switch typedef union unsigned void volatile while bool
true false nullptr template typename namespace using class public private protected virtual operator new delete
this size_t uint8_t int8_t uint16_t int16_t uint32_t int32_t uint64_t int64_t half bfloat16 float2 float4 int2
int4 dim3 std at torch Tensor __global__ __device__ __host__ __shared__ __restrict__ __syncthreads threadIdx
blockIdx blockDim gridDim warpSize hipLaunchKernelGGL include define pragma ifdef ifndef endif unroll
""".split()
_MODULE_ALIASES = """
torch nn F functional tl triton np numpy math jit autotune Config cuda hip load_inline cpp_extension
Module Model ModelNew forward get_inputs get_init_inputs super self __init__ __name__ __main__
""".split()
PLACEHOLDER = "_v"   # what every user-chosen identifier becomes
#: names identifier renaming keeps: they carry meaning (what is computed), unlike a variable's name
KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | frozenset(_C_WORDS) | frozenset(_MODULE_ALIASES)

# first byte of an identifier: an ASCII letter or "_" (an identifier is ASCII: [A-Za-z_][A-Za-z0-9_]*)
_IDENT_START_BYTE = np.zeros(256, dtype=bool)
for _lo, _hi in ((ord("a"), ord("z")), (ord("A"), ord("Z"))):
    _IDENT_START_BYTE[_lo:_hi + 1] = True
_IDENT_START_BYTE[ord("_")] = True
_U64 = np.uint64


def normalize_code(text: str, *, rename_identifiers: bool = False) -> str:
    """The canonical form of a piece of code used by every lexical measure (:func:`kvdata.normalize.normalize_code`).

    With ``rename_identifiers``, the result is instead one line of tokens with user-chosen names replaced by the
    placeholder (:func:`placeholder_identifiers`), so a copy with renamed variables normalises to the same text.
    Many texts at once: :func:`normalize_codes` (renaming costs a fixed ~50 numpy calls per call, which a batch
    shares).
    """
    return normalize_codes([text], rename_identifiers=rename_identifiers)[0]


def normalize_codes(texts: Sequence[str], *, rename_identifiers: bool = False) -> list[str]:
    """:func:`normalize_code` of each text, the renaming done for the whole batch at once."""
    collapsed = [_normalize_layout(t) for t in texts]
    return placeholder_identifiers_many(collapsed) if rename_identifiers else collapsed


def placeholder_identifiers(text: str) -> str:
    """``text``'s tokens joined by one space, every user-chosen identifier replaced by ``_v`` (:func:`renamed_tokens`)."""
    return placeholder_identifiers_many([text])[0]


def placeholder_identifiers_many(texts: Sequence[str]) -> list[str]:
    """:func:`placeholder_identifiers` of each text: one tokenisation, hashing and renaming decision per byte batch."""
    out: list[str] = []
    for batch in byte_batches(texts):
        spans = tokenise(batch)
        flat = [tok for text in batch for tok in tokens(text)]
        if len(flat) != len(spans.starts):
            raise AssertionError("the byte tokeniser and the token regex disagree")
        for i in renamed_tokens(spans, hash_tokens(spans, DEFAULT_SEED), DEFAULT_SEED).tolist():
            flat[i] = PLACEHOLDER
        bounds = spans.offsets.tolist()
        out += [" ".join(flat[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]
    return out


def rename_identifier_hashes(spans: TokenSpans, values: np.ndarray, seed: int) -> None:
    """Replace (in place) the hash of every user-chosen identifier by the hash of ``_v`` (:func:`renamed_tokens`).

    A :data:`kvdata.shingles.TokenRewrite`: ``kvdata.shingles.token_hashes(texts, rewrite=rename_identifier_hashes)``
    hashes the texts as if they had been renamed.
    """
    values[renamed_tokens(spans, values, seed)] = _name_hashes(seed).placeholder


@dataclass(frozen=True)
class _NameHashes:
    """Token hashes of the names renaming treats specially, with a direct-mapped table of :data:`KEPT_NAMES`: slot
    ``h >> 48`` holds the kept name hashing there (an empty slot holds a value whose top bits are not its slot, so
    nothing matches it); the few names whose slot is taken go to a small sorted overflow array."""

    table: np.ndarray         # 65536 uint64
    overflow: np.ndarray      # sorted uint64
    placeholder: np.uint64    # hash of "_v"
    self_: np.uint64          # hash of "self"

    def is_kept(self, values: np.ndarray) -> np.ndarray:
        kept = self.table[values >> _U64(48)] == values
        if len(self.overflow):
            kept |= isin_sorted(values, self.overflow)
        return kept


@lru_cache(maxsize=4)
def _name_hashes(seed: int) -> _NameHashes:
    names = sorted(KEPT_NAMES)
    spans = tokenise([" ".join(names), PLACEHOLDER, "self"])
    if np.diff(spans.offsets).tolist() != [len(names), 1, 1]:
        raise AssertionError("every kept name must be one token")
    values = hash_tokens(spans, seed)
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


def renamed_tokens(spans: TokenSpans, values: np.ndarray, seed: int) -> np.ndarray:
    """Indices of the tokens of a batch that renaming replaces by the placeholder (the rule: module docstring).

    ``values`` are the tokens' hashes (:func:`kvdata.shingles.hash_tokens` with ``seed``); a name is recognised as
    kept by its hash (a user name sharing a kept name's 64-bit hash would keep its name: ~2**-55 per name). Work is
    done on the identifiers alone. An identifier is *linked* to the previous identifier when only "." tokens (at
    least one) of the same document lie between them. Along a linked chain, "kept" propagates from a kept name
    other than ``self`` (or a literal ``_v``, which renaming leaves as it is) until the chain breaks; that
    recurrence is solved with running maxima: a position propagates when the last run start comes after the
    last break.
    """
    names = _name_hashes(seed)
    buf, starts, ends = spans.buf, spans.starts, spans.ends
    first = buf[starts]
    ident = _IDENT_START_BYTE[first]
    if len(buf) and buf.max() >= 0x80:   # an identifier is ASCII only: drop tokens holding a non-ASCII byte
        non_ascii = np.zeros(len(buf) + 1, dtype=np.int64)
        np.cumsum(buf >= 0x80, out=non_ascii[1:])
        ident &= non_ascii[ends] == non_ascii[starts]
    at = np.flatnonzero(ident)                     # token index of every identifier
    if not len(at):
        return at
    value = values[at]
    kept_name = names.is_kept(value)
    under = np.flatnonzero(first[at] == ord("_"))  # dunders keep their names
    s, e = starts[at[under]], ends[at[under]]
    kept_name[under] |= (e - s >= 2) & (buf[s + 1] == 95) & (buf[e - 1] == 95) & (buf[e - 2] == 95)
    is_self = value == names.self_

    doc_first = np.zeros(len(values), dtype=bool)
    doc_first[spans.offsets[:-1][np.diff(spans.offsets) > 0]] = True
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
    return at[~kept]
