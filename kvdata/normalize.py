"""Code-aware text normalisation: the canonical text of a piece of code, without comments or layout.

Two copies of a kernel that differ only in comments, docstrings, blank lines or indentation are the same
kernel; an overlap measure should see them as identical. The build's dedup (:mod:`kvdata.dedup`) and every
lexical measure of the overlap audit compare the text this module produces; the tokens of that text are those of
:mod:`kvdata.shingles` (the token definition lives there, with the hasher).

Language is guessed per text, because comment syntax decides what is a comment: ``//`` is floor division in
Python but a comment in C/HIP, and ``#include`` is a preprocessor line in C but ``#`` starts a comment in Python.
Strings are never touched (a HIP source embedded in a Python string keeps its comments): only real comments go.
"""
from __future__ import annotations

import re

from kvdata.shingles import WHITESPACE

__all__ = ["normalize_code", "strip_comments", "guess_language"]

_PY_MARKERS = re.compile(r"^[ \t]*(?:def|class|import|from)[ \t]", re.M)
_C_MARKERS = re.compile(r"^[ \t]*#[ \t]*include\b|__global__|__device__|^[ \t]*template[ \t]*<", re.M)

# Comment stripping walks from one *event* to the next (a character that may open a string or a comment), found
# with str.find; the text between events is copied by slicing. Code has few events per line, so this costs far
# less than a regex that tries a match at every character. Strings are matched whole (a `#` or `//` inside one
# stays); a quote that opens no complete string is an ordinary character, as in a regex scan.
_PY_STRING = re.compile(r"\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'")
_C_STRING = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'")
# Whitespace means the whitespace of the token definition (ASCII only), so normalising whitespace never changes the
# tokens: tokens(normalize_code(t)) == tokens(strip_comments(t)) for every text.
_BLANKS = WHITESPACE.replace("\n", "")
_SPACES = re.compile(f"[{re.escape(_BLANKS)}]{{2,}}|[{re.escape(_BLANKS.replace(' ', ''))}]")  # a lone space is canonical
_LINE_BREAKS = re.compile(f" ?\n[{re.escape(WHITESPACE)}]*")


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
    return _LINE_BREAKS.sub("\n", _SPACES.sub(" ", text)).strip(WHITESPACE)


def strip_comments(text: str) -> str:
    """``text`` without its comments and Python docstrings; whitespace is left as it is.

    The cheap part of :func:`normalize_code` that matters to every token-based measure: it has exactly the tokens
    of ``normalize_code(text)`` (whitespace separates tokens but is never one), so the lexical audit's hot path
    uses it and skips rewriting whitespace.
    """
    if not text:
        return ""
    return _strip_python_comments(text) if guess_language(text) == "python" else _strip_c_comments(text)


def normalize_code(text: str) -> str:
    """The canonical form of a piece of code used by every lexical measure and by the build's exact dedup.

    Comments go (``#`` in Python; ``//`` and ``/* */`` in C-like code), Python docstrings go, runs of blanks
    collapse to one space, lines are stripped and blank lines dropped. (The audit's ``normalize`` module can
    also rename identifiers on top of this.)
    """
    if not text:
        return ""
    return _collapse_whitespace(strip_comments(text))
