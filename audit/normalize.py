"""Code-aware text normalisation for overlap measures.

Two copies of a kernel that differ only in comments, docstrings, blank lines or indentation are the same
kernel; an overlap measure should see them as identical. This module turns code into a canonical text and a
token list that every lexical measure (MinHash, exact Jaccard, n-gram containment) and the build's dedup share.

Language is guessed per text, because comment syntax decides what is a comment: ``//`` is floor division in
Python but a comment in C/HIP, and ``#include`` is a preprocessor line in C but ``#`` starts a comment in Python.
Strings are never touched (a HIP source embedded in a Python string keeps its comments): only real comments go.

A token is a run of word characters (ASCII letters, digits, ``_`` and any non-ASCII character) or one other
non-space character. The vectorised hasher in :mod:`kvdata.audit.lexical` uses exactly this definition on bytes.
"""
from __future__ import annotations

import builtins
import keyword
import re

__all__ = ["normalize_code", "strip_comments", "tokens", "guess_language", "placeholder_identifiers", "KEPT_NAMES",
           "PLACEHOLDER"]

# A token: a run of word characters (non-ASCII counts as a word character) or a single other non-space char.
_TOKEN = re.compile(r"[A-Za-z0-9_\u0080-\U0010ffff]+|[^A-Za-z0-9_ \t\n\r\f\v\u0080-\U0010ffff]")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_PY_MARKERS = re.compile(r"^[ \t]*(?:def|class|import|from)[ \t]", re.M)
_C_MARKERS = re.compile(r"^[ \t]*#[ \t]*include\b|__global__|__device__|^[ \t]*template[ \t]*<", re.M)

# Comment stripping walks from one *event* to the next (a character that may open a string or a comment), found
# with str.find; the text between events is copied by slicing. Code has few events per line, so this costs far
# less than a regex that tries a match at every character. Strings are matched whole (a `#` or `//` inside one
# stays); a quote that opens no complete string is an ordinary character, as in a regex scan.
_PY_STRING = re.compile(r"\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'")
_C_STRING = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'")
_BLANKS = " \t\f\v\r"
# Whitespace means ASCII whitespace, as in the definition of a token, so normalising whitespace never changes the
# tokens: tokens(normalize_code(t)) == tokens(strip_comments(t)) for every text.
_WHITESPACE = " \t\n\r\f\v"
_SPACES = re.compile(r"[ \t\f\v\r]{2,}|[\t\f\v\r]")   # a lone space is already canonical: left alone
_LINE_BREAKS = re.compile(r" ?\n[ \t\n\r\f\v]*")

# Names that identifier renaming keeps: they carry meaning (what is computed), unlike a variable's name.
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
KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | frozenset(_C_WORDS) | frozenset(_MODULE_ALIASES)


def guess_language(text: str) -> str:
    """``"python"`` or ``"c"``: which comment syntax applies to ``text``.

    Python markers (``def``/``class``/``import`` at line start) win, since Python files often embed C sources in
    strings; otherwise ``#include``, ``__global__`` or ``template<`` mean C-like.
    """
    if _PY_MARKERS.search(text):
        return "python"
    if _C_MARKERS.search(text):
        return "c"
    return "python"


def _next_event(text: str, needles: tuple[str, ...], nxt: list[int], pos: int) -> int:
    """The next position at or after ``pos`` where one of ``needles`` starts (``len(text)`` if none).

    ``nxt`` caches each needle's next position; only the ones already passed are searched again, with
    ``str.find`` (a memchr-like scan, far cheaper than a regex trying a match at every character).
    """
    n = len(text)
    for k, needle in enumerate(needles):
        if nxt[k] < pos:
            found = text.find(needle, pos)
            nxt[k] = found if found >= 0 else n
    return min(nxt)


_PY_NEEDLES = ("#", "\"", "'")
_C_NEEDLES = ("\"", "'", "//", "/*")


def _strip_python_comments(text: str) -> str:
    """``#`` comments go; so does a triple-quoted string that starts its line (a docstring or bare string)."""
    n = len(text)
    nxt = [-1] * len(_PY_NEEDLES)
    kept: list[str] = []
    copy_from = pos = 0
    while (i := _next_event(text, _PY_NEEDLES, nxt, pos)) < n:
        if text[i] == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            kept.append(text[copy_from:i])
            copy_from = pos = end
            continue
        literal = _PY_STRING.match(text, i)
        if literal is None:                # a quote that opens no complete string is an ordinary character
            pos = i + 1
            continue
        pos = literal.end()
        if pos - i >= 6 and text[i] == text[i + 1] == text[i + 2]:   # triple-quoted
            line_start = text.rfind("\n", 0, i) + 1
            if not text[line_start:i].strip(_BLANKS):
                kept.append(text[copy_from:i])
                copy_from = pos
    if not kept:
        return text
    kept.append(text[copy_from:])
    return "".join(kept)


def _strip_c_comments(text: str) -> str:
    """``//`` and ``/* */`` comments become one space (``a/**/b`` stays two tokens); strings stay."""
    n = len(text)
    nxt = [-1] * len(_C_NEEDLES)
    kept: list[str] = []
    copy_from = pos = 0
    while (i := _next_event(text, _C_NEEDLES, nxt, pos)) < n:
        if text[i] == "/":
            if text[i + 1] == "/":
                end = text.find("\n", i)
                end = n if end < 0 else end
            else:
                end = text.find("*/", i + 2)
                if end < 0:               # an unclosed block comment is no comment: keep the "/" and go on
                    pos = i + 1
                    continue
                end += 2
            kept.append(text[copy_from:i])
            kept.append(" ")
            copy_from = pos = end
            continue
        literal = _C_STRING.match(text, i)
        pos = i + 1 if literal is None else literal.end()
    if not kept:
        return text
    kept.append(text[copy_from:])
    return "".join(kept)


def _collapse_whitespace(text: str) -> str:
    """Blanks to one space, lines stripped, blank lines dropped.

    For ASCII text without the separator characters \\x1c-\\x1f (which ``str.split`` would also split on),
    ``str.split`` per line does it ~3x faster than the two whole-text regex passes used otherwise.
    """
    if text.isascii() and not any(c in text for c in "\x1c\x1d\x1e\x1f"):
        return "\n".join(filter(None, (" ".join(line.split()) for line in text.split("\n"))))
    return _LINE_BREAKS.sub("\n", _SPACES.sub(" ", text)).strip(_WHITESPACE)


def placeholder_identifiers(text: str) -> str:
    """Replace every user-chosen identifier by the one placeholder ``_v``.

    One placeholder for all names (not ``v0, v1, ...`` by first appearance) keeps the result independent of
    the order of functions: a copy that is both renamed and reordered still shares its shingles.

    Keywords, builtins, common module aliases (``torch``, ``nn``, ``F``, ``tl``) and every attribute reached
    from a kept name (``torch.nn.functional.relu``, ``tl.load``) keep their names: they say what is computed.
    """
    out: list[str] = []
    toks = _TOKEN.findall(text)
    prev_kept_dot = False  # the previous two tokens were a kept name followed by "."
    for i, tok in enumerate(toks):
        if _IDENT.fullmatch(tok):
            if tok in KEPT_NAMES or prev_kept_dot or (tok.startswith("__") and tok.endswith("__")):
                new = tok
            else:
                new = PLACEHOLDER
            out.append(new)
            # Attributes of a kept module keep their names; attributes of `self` are user-chosen.
            kept = new == tok and tok != "self"
            prev_kept_dot = kept and i + 1 < len(toks) and toks[i + 1] == "."
            continue
        out.append(tok)
        if tok != ".":
            prev_kept_dot = False
    return " ".join(out)


def strip_comments(text: str) -> str:
    """``text`` without its comments and Python docstrings; whitespace is left as it is.

    The cheap part of :func:`normalize_code` that matters to every token-based measure: it has exactly the tokens
    of ``normalize_code(text)`` (whitespace separates tokens but is never one), so the lexical audit's hot path
    uses it and skips rewriting whitespace.
    """
    if not text:
        return ""
    return _strip_python_comments(text) if guess_language(text) == "python" else _strip_c_comments(text)


def normalize_code(text: str, *, rename_identifiers: bool = False) -> str:
    """The canonical form of a piece of code used by every lexical measure.

    Comments go (``#`` in Python; ``//`` and ``/* */`` in C-like code), Python docstrings go, runs of blanks
    collapse to one space, lines are stripped and blank lines dropped. With ``rename_identifiers``, the result is
    instead one line of tokens with user-chosen names replaced by placeholders (see :func:`placeholder_identifiers`),
    so a copy with renamed variables normalises to the same text.
    """
    if not text:
        return ""
    collapsed = _collapse_whitespace(strip_comments(text))
    if rename_identifiers:
        return placeholder_identifiers(collapsed)
    return collapsed


def tokens(text: str) -> list[str]:
    """The tokens of ``text``: word runs (identifiers, numbers) and single punctuation characters."""
    return _TOKEN.findall(text)
