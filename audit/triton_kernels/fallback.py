"""Cut the Triton kernels out of a file that does not parse, line by line.

A triton decorator line, the decorators stacked with it, the ``def`` at their indentation, then the lines until a
code line at that indentation or less with every bracket closed and no triple-quoted string open. Each block is
then parsed on its own (:func:`parse_block`), deleting the offending line a few times if it still fails, so one
syntax error elsewhere in a file hides none of its kernels and one inside a kernel costs that kernel's structural
form at worst.
"""
from __future__ import annotations

import ast
import re
from typing import Optional

from kvdata.audit.triton_kernels.names import TritonNames

__all__ = ["kernel_blocks", "parse_block", "DECORATOR_LINE", "DEF_LINE"]

MAX_REPAIRS = 6           # lines deleted, one at a time, from a cut-out kernel that still does not parse
DECORATOR_LINE = re.compile(r"^([ \t]*)@[ \t]*([A-Za-z_][\w.]*)")
DEF_LINE = re.compile(r"^([ \t]*)(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)")
_NEW_BLOCK = re.compile(r"@|(?:async[ \t]+)?def[ \t]|class[ \t]")
_TRAILING_COMMENT = re.compile(r"[ \t]*#[^'\"]*$")
_BRACKETS = re.compile(r"\"\"\"|'''|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|#.*|[()\[\]{}]")


def _depth_change(line: str, in_triple: Optional[str]) -> tuple[int, Optional[str]]:
    """Bracket depth change over one line, and the triple quote still open at its end (strings and comments skipped)."""
    depth = 0
    for m in _BRACKETS.finditer(line):
        tok = m.group(0)
        if in_triple:
            if tok == in_triple:
                in_triple = None
            continue
        if tok in ('"""', "'''"):
            in_triple = tok
        elif tok in "([{":
            depth += 1
        elif tok in ")]}":
            depth -= 1
    return depth, in_triple


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _block_end(lines: list[str], def_at: int) -> int:
    """Index one past the last line of the function whose ``def`` is at ``def_at``.

    The header ends at the first ``:`` that closes a line with every bracket closed; the body then runs until a
    code line at the ``def``'s indentation or less, with every bracket closed and no triple-quoted string open,
    or until a decorator, ``def`` or ``class`` line at that indentation (an unclosed bracket ends there).
    """
    base = _indent(lines[def_at])
    depth, triple = 0, None
    header_done = False
    i = def_at
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if header_done and triple is None and stripped and not stripped.startswith("#") and _indent(line) <= base \
                and (depth == 0 or _NEW_BLOCK.match(stripped)):
            break                          # a decorator or def at the kernel's indentation ends even an open bracket
        change, triple = _depth_change(line, triple)
        depth = max(0, depth + change)
        if not header_done and depth == 0 and triple is None and _TRAILING_COMMENT.sub("", stripped).endswith(":"):
            header_done = True
        i += 1
    while i > def_at + 1 and not lines[i - 1].strip():
        i -= 1
    return i


def kernel_blocks(lines: list[str], names: TritonNames) -> list[tuple[int, int, int]]:
    """(first decorator line, ``def`` line, end) of every kernel: 0-based line indices, ``end`` exclusive."""
    out = []
    i = 0
    while i < len(lines):
        m = DECORATOR_LINE.match(lines[i])
        if not m or not names.is_kernel_decorator(m.group(2)):
            i += 1
            continue
        indent = len(m.group(1))
        first = i              # decorators stacked above this one belong to the kernel
        while first > 0 and DECORATOR_LINE.match(lines[first - 1]) and _indent(lines[first - 1]) == indent:
            first -= 1
        j = i                  # the def at the decorator's indentation (a multi-line decorator comes before it)
        while j < len(lines):
            d = DEF_LINE.match(lines[j])
            if d and len(d.group(1)) == indent:
                break
            if j > i and lines[j].strip() and _indent(lines[j]) < indent:
                j = len(lines)
                break
            j += 1
        if j >= len(lines):
            i += 1
            continue
        end = _block_end(lines, j)
        out.append((first, j, end))
        i = end
    return out


def parse_block(block: str) -> Optional[ast.FunctionDef]:
    """The function node of a cut-out (dedented) kernel, deleting the offending line a few times when it does not
    parse; None when no repair makes it parse."""
    lines = block.split("\n")
    for _ in range(MAX_REPAIRS + 1):
        try:
            tree = ast.parse("\n".join(lines))
        except SyntaxError as err:
            bad = (err.lineno or 0) - 1
            if bad >= len(lines) and len(lines) > 1:      # an unclosed bracket at the end: drop the last line
                lines = lines[:-1]
                continue
            if bad <= 0 or bad >= len(lines):              # the decorator or def line itself: nothing to delete
                return None
            lines = lines[:bad] + lines[bad + 1:]
            continue
        except (ValueError, RecursionError, MemoryError):
            return None
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return node
        return None
    return None
