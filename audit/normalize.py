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

__all__ = ["normalize_code", "tokens", "guess_language", "placeholder_identifiers", "KEPT_NAMES"]

# A token: a run of word characters (non-ASCII counts as a word character) or a single other non-space char.
_TOKEN = re.compile(r"[A-Za-z0-9_\u0080-\U0010ffff]+|[^A-Za-z0-9_ \t\n\r\f\v\u0080-\U0010ffff]")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_PY_MARKERS = re.compile(r"^[ \t]*(?:def|class|import|from)[ \t]", re.M)
_C_MARKERS = re.compile(r"^[ \t]*#[ \t]*include\b|__global__|__device__|^[ \t]*template[ \t]*<", re.M)

# Python, one scan so that a `#` or quote inside a string stays: strings (group `str`), `#` comments (`com`).
# A triple-quoted string that starts its line is a docstring or bare string statement and goes as well.
# (String prefixes such as r/b/f need no handling: a prefixed string never starts its line.)
_PY_SCAN = re.compile(
    r"(?=[\"'#])(?:(?P<str>\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')"
    r"|(?P<com>\#[^\n]*))"
)
# C / C++ / HIP: strings and char literals, `//` and `/* */` comments; `#` lines are preprocessor, kept.
_C_SCAN = re.compile(
    r"(?=[\"'/])(?:(?P<str>\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')"
    r"|(?P<com>//[^\n]*|/\*[\s\S]*?\*/))"
)
_SPACES = re.compile(r"[ \t\f\v\r]+")
_LINE_BREAKS = re.compile(r" ?\n[\s]*")

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


def _strip_python_comments(text: str) -> str:
    def replace(m: re.Match) -> str:
        lit = m.group("str")
        if lit is None:
            return ""                                   # a comment
        if lit[:3] in ("\"\"\"", "'''") and len(lit) >= 6:  # triple-quoted: a docstring if it starts its line
            line_start = text.rfind("\n", 0, m.start()) + 1
            if not text[line_start:m.start()].strip():
                return ""
        return lit

    return _PY_SCAN.sub(replace, text)


def _strip_c_comments(text: str) -> str:
    return _C_SCAN.sub(lambda m: " " if m.group("com") is not None else m.group(0), text)


def _collapse_whitespace(text: str) -> str:
    # Two whole-text passes (much faster than per-line work): blanks to one space, then every run of
    # whitespace that holds a newline to a single newline (strips lines and drops blank ones).
    return _LINE_BREAKS.sub("\n", _SPACES.sub(" ", text)).strip()


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
                new = "_v"
            out.append(new)
            # Attributes of a kept module keep their names; attributes of `self` are user-chosen.
            kept = new == tok and tok != "self"
            prev_kept_dot = kept and i + 1 < len(toks) and toks[i + 1] == "."
            continue
        out.append(tok)
        if tok != ".":
            prev_kept_dot = False
    return " ".join(out)


def normalize_code(text: str, *, rename_identifiers: bool = False) -> str:
    """The canonical form of a piece of code used by every lexical measure.

    Comments go (``#`` in Python; ``//`` and ``/* */`` in C-like code), Python docstrings go, runs of blanks
    collapse to one space, lines are stripped and blank lines dropped. With ``rename_identifiers``, the result is
    instead one line of tokens with user-chosen names replaced by placeholders (see :func:`placeholder_identifiers`),
    so a copy with renamed variables normalises to the same text.
    """
    if not text:
        return ""
    stripped = _strip_python_comments(text) if guess_language(text) == "python" else _strip_c_comments(text)
    collapsed = _collapse_whitespace(stripped)
    if rename_identifiers:
        return placeholder_identifiers(collapsed)
    return collapsed


def tokens(text: str) -> list[str]:
    """The tokens of ``text``: word runs (identifiers, numbers) and single punctuation characters."""
    return _TOKEN.findall(text)
