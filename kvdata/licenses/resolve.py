"""The license of a row: the file's own header, else a declared license, else the tree's own.

One function, :func:`row_license`, answers for every source:

1. ``file``: license notices in the row's own text, in its header (the first
   ``HEADER_LINES`` lines / ``HEADER_CHARS`` characters), ``SPDX-License-Identifier`` lines
   included. Several notices there are AND-ed. A header that only points elsewhere ("see
   LICENSE") or carries a bare copyright line defers to the tree.
2. ``declared``: a license the source states for the row (a record's license field, the
   Source's ``license`` option), normalised to SPDX.
3. ``tree``: the license of the tree's own code, :func:`tree_license`: the first notice of its
   LICENSE file, which is the copyright holder's; the third-party notices after it (code
   derived from other projects) are not the tree's own, and appear only in
   ``TreeLicense.full_expression``, which the card shows.

Text ScanCode could not identify is never guessed: it is an ``unknown_license`` reject. A
license the row cannot be given is a ``missing_license`` reject.
"""
from __future__ import annotations

import functools

import posixpath
import re
from dataclasses import dataclass
from typing import Optional

from kvdata.licenses.expressions import (LicenseExpressionError, canonical, combine_and, combine_or, is_unknown,
                                         simplified_and, try_canonical)
from kvdata.schema import RejectReason

Problem = tuple[RejectReason, str]

HEADER_LINES = 100
HEADER_CHARS = 16_000
# A header without any of these (lower-cased) words holds no license notice: ScanCode is not asked.
# Every notice we know names a license, a copyright, a permission or a redistribution condition.
_LICENSE_WORDS = ("licen", "copyright", "spdx", "permission", "redistribut", "public domain", "warrant")


def _has_license_words(text: str) -> bool:
    """A substring test per word on the lowered text (a case-insensitive regex alternation is ~50x slower)."""
    lowered = text.lower()
    return any(word in lowered for word in _LICENSE_WORDS)

#: Names recognised as a tree's license file, in order of preference (case-insensitive).
LICENSE_FILE_NAMES: tuple[str, ...] = (
    "LICENSE", "LICENSE.txt", "LICENSE.md", "LICENSE.rst", "LICENCE", "LICENCE.txt", "LICENCE.md",
    "COPYING", "COPYING.txt", "COPYING.md",
)
#: Per-license files of a dual-licensed tree (``LICENSE-MIT`` + ``LICENSE-APACHE``): either applies.
_DUAL_FILE = re.compile(r"^licen[cs]e[-_.](?!txt$|md$|rst$)[a-z0-9.+-]+$", re.I)

SOURCES = ("file", "declared", "tree")
_EXPRESSION_SYNTAX = re.compile(r"[()]|\s(AND|OR|WITH)\s|\s(AND|OR|WITH)$|^(AND|OR|WITH)\s")


@dataclass(frozen=True)
class LicenseFinding:
    """A row's license: its SPDX expression, and which of :data:`SOURCES` it came from."""

    expression: str
    source: str


@dataclass(frozen=True)
class TreeLicense:
    """What a tree's license file(s) say.

    ``expression``: the license of the tree's own code (the first notice; for a dual tree the
    OR of its per-license files). ``full_expression``: every notice of the file(s), AND-ed,
    third-party ones included. ``files``: the license files read, relative to the root.
    ``problem``: why no expression (no license file, text not identified).
    """

    expression: Optional[str] = None
    full_expression: Optional[str] = None
    files: tuple[str, ...] = ()
    problem: Optional[Problem] = None
    declared: Optional[str] = None       # the Source's ``license`` option, normalised


# ----------------------------------------------------------------- declared names
def declared_expression(name) -> Optional[str]:
    """An SPDX expression for a declared license name (an id, an expression, a common name such
    as "Apache License 2.0", or a list of them, AND-ed), or None when it names nothing known."""
    if name is None:
        return None
    if not isinstance(name, str):
        try:
            items = list(name)
        except TypeError:
            return None
        parts = [declared_expression(n) if isinstance(n, str) else None for n in items]
        if not parts or any(p is None for p in parts):
            return None
        return combine_and(parts)
    return _declared_name(name.strip()) if name.strip() else None


@functools.lru_cache(maxsize=4096)
def _declared_name(text: str) -> Optional[str]:
    """:func:`declared_expression` of one non-empty name (a build sees the same few names per row)."""
    spdx = try_canonical(text)
    if spdx is not None:
        return spdx
    if _EXPRESSION_SYNTAX.search(text):      # a malformed expression is not a name to be guessed at
        return None
    from kvdata.licenses.scancode import license_of_name

    return license_of_name(text)


# ----------------------------------------------------------------- a file's own header
def header_of(text: str) -> str:
    """The first ``HEADER_LINES`` lines of a file (at most ``HEADER_CHARS`` characters)."""
    head = text[:HEADER_CHARS]
    if head.count("\n") < HEADER_LINES:
        return head
    return "\n".join(head.split("\n", HEADER_LINES)[:HEADER_LINES])


def spdx_tag_lines(head: str) -> list[str]:
    """The comment lines of ``head`` that carry an ``SPDX-License-Identifier:`` tag (after a shebang, a
    docstring or the imports, too: the tag is a statement wherever the first lines hold it)."""
    if not may_have_spdx_tag(head):
        return []
    return [line for line in head.split("\n") if _TAG_LINE.match(line)]


def may_have_spdx_tag(text: str, end: int = HEADER_CHARS) -> bool:
    """A substring test on ``text[:end]``, without copying it: most files have no tag at all."""
    return any(text.find(spelling, 0, end) >= 0 for spelling in _TAG_SPELLINGS)


_TAG_SPELLINGS = ("icense-Identifier", "icense-identifier", "ICENSE-IDENTIFIER")


_TAG_LINE = re.compile(r"^[\s#/*;!'\"<-]*spdx-license-identifier\s*:", re.I)


def file_license(text) -> tuple[Optional[str], Optional[Problem]]:
    """(expression, None) from the text's own header; (None, None) when it has none; a problem
    when its header holds license text nobody could identify.

    The header is the file's leading comment block (within its first ``HEADER_LINES`` lines), plus
    any ``SPDX-License-Identifier`` comment line among those lines (:func:`spdx_tag_lines`)."""
    if not isinstance(text, str) or not text:
        return None, None
    from kvdata.licenses.scancode import find_notices, leading_comments, starts_with_comment

    commented = starts_with_comment(text)
    if not commented and not may_have_spdx_tag(text):
        return None, None                 # most code starts with code and carries no SPDX tag
    head = header_of(text)
    block = ""
    if commented and _has_license_words(head):
        block = leading_comments(head)     # where the file's own notice is: never its code
        if not _has_license_words(block):
            block = ""
    tags = [line for line in spdx_tag_lines(head) if line not in block]
    if tags:
        block = "\n".join([block, *tags]) if block else "\n".join(tags)
    if not block:
        return None, None

    notices = find_notices(block, header=True)
    licensed = [n.expression for n in notices if n.kind == "license"]
    if licensed:
        try:
            return combine_and(licensed), None
        except LicenseExpressionError as e:
            return None, (RejectReason.UNKNOWN_LICENSE, f"file header license is not a valid expression: {e}")
    if any(n.kind == "unknown" for n in notices):
        return None, (RejectReason.UNKNOWN_LICENSE, "the file's header holds license text ScanCode could not identify")
    return None, None


# ----------------------------------------------------------------- the tree's own license
def _read(fs, path: str) -> Optional[str]:
    try:
        with fs.open(path, "rb") as f:
            return f.read().decode("utf-8", errors="replace")
    except OSError:
        return None


def _license_files(fs, root: str) -> tuple[Optional[str], list[str]]:
    """(the primary license file, the per-license files of a dual tree) directly under ``root``."""
    try:
        entries = [str(e) for e in fs.ls(root, detail=False)]
    except (OSError, FileNotFoundError, NotADirectoryError):
        return None, []
    by_name: dict[str, str] = {}
    for entry in entries:
        by_name.setdefault(entry.rstrip("/").rsplit("/", 1)[-1].lower(), entry)

    def is_file(path):
        try:
            return fs.isfile(path)
        except OSError:
            return False

    for wanted in LICENSE_FILE_NAMES:
        path = by_name.get(wanted.lower())
        if path is not None and is_file(path):
            return path, []
    duals = sorted(p for n, p in by_name.items() if _DUAL_FILE.match(n) and is_file(p))
    return None, duals


def license_root(fs, root: str, top: str) -> str:
    """The folder whose license file covers ``root``: ``root`` itself, else the nearest parent up to ``top``
    (a release ships one LICENSE at its root, above the subset folder a Source reads), else ``root``."""
    folder = root.rstrip("/")
    top = top.rstrip("/")
    while True:
        primary, duals = _license_files(fs, folder)
        if primary or duals:
            return folder
        if folder == top or not folder.startswith(top + "/"):
            return root
        folder = posixpath.dirname(folder)


def tree_license(fs, root: str, declared=None) -> TreeLicense:
    """The tree's license (:class:`TreeLicense`); ``declared`` (the Source's ``license`` option)
    is kept beside it and wins over the license file for rows without a header of their own."""
    declared_spdx = declared_expression(declared) if declared not in (None, "", []) else None
    primary, duals = _license_files(fs, root)
    paths = [primary] if primary else duals
    if not paths:
        problem = (RejectReason.MISSING_LICENSE, f"no license declared and no LICENSE file under {root}")
        if declared not in (None, "", []) and declared_spdx is None:
            problem = (RejectReason.UNKNOWN_LICENSE,
                       f"declared license {declared!r} is not a known SPDX name and {root} has no LICENSE file")
        return TreeLicense(problem=None if declared_spdx else problem, declared=declared_spdx)
    from kvdata.licenses.scancode import find_notices

    firsts, every, names = [], [], []
    for path in paths:
        name = posixpath.basename(str(path).rstrip("/"))
        names.append(name)
        text = _read(fs, path)
        if text is None:
            return TreeLicense(problem=(RejectReason.MISSING_LICENSE, f"{path}: cannot be read"),
                               files=tuple(names), declared=declared_spdx)
        notices = [n for n in find_notices(text) if n.kind != "pointer"]
        if not notices or notices[0].kind == "unknown":
            return TreeLicense(problem=(RejectReason.UNKNOWN_LICENSE,
                                        f"{name}: ScanCode could not identify the license of the tree's own code"
                                        + ("" if notices else " (no license text found)")),
                               full_expression=simplified_and(n.expression for n in notices) if notices else None,
                               files=tuple(names), declared=declared_spdx)
        firsts.append(notices[0].expression)
        every.extend(n.expression for n in notices)
    expression = combine_or(firsts) if len(firsts) > 1 else canonical(firsts[0])
    return TreeLicense(expression=expression, full_expression=simplified_and(every), files=tuple(names),
                       declared=declared_spdx)


# ----------------------------------------------------------------- a row
def row_license(text, tree: Optional[TreeLicense], declared=None) -> tuple[Optional[LicenseFinding], Optional[Problem]]:
    """The license of one row whose code is ``text``: (finding, None) or (None, problem).

    ``declared``: the row's own license field, if its source has one (wins over the tree's,
    not over the file's header). An unknown declared name is a reject: the record's own
    statement is the stronger one, and is not relabelled with the tree's license.
    """
    spdx = None
    if declared not in (None, "", []):
        spdx = declared_expression(declared)
        if spdx is None or is_unknown(spdx):   # checked before the header: a statement nobody can read is not overridden
            return None, (RejectReason.UNKNOWN_LICENSE, f"record license {declared!r} maps to no SPDX id")
    expression, problem = file_license(text)
    if problem:
        return None, problem
    if expression:
        return LicenseFinding(expression, "file"), None
    if spdx is not None:
        return LicenseFinding(spdx, "declared"), None
    if tree is None:
        return None, (RejectReason.MISSING_LICENSE, "the row names no license and its source has no tree license")
    if tree.declared:
        return LicenseFinding(tree.declared, "declared"), None
    if tree.expression:
        return LicenseFinding(tree.expression, "tree"), None
    return None, tree.problem or (RejectReason.MISSING_LICENSE, "no license")
