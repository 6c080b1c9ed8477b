"""SPDX license expressions: parse and canonicalise them, and evaluate a build's allow-list over them.

Parsing is the ``license-expression`` library's (the one ScanCode itself uses), with its SPDX
symbol table: ids are matched case-insensitively and rendered in their canonical spelling
(``mit`` -> ``MIT``, ``GPL-2.0+`` -> ``GPL-2.0-or-later``), ``LicenseRef-...`` ids are kept as
they are, and a malformed expression (``MIT AND``, ``(MIT``) or an id nobody knows is an error,
never a half-read answer.

The allow-list rules, the same for every source:

- ``A AND B`` is allowed when both are;
- ``A OR B`` when either is; the decision records the alternative the build relied on (the
  first allowed one, in the order the expression is written);
- ``A WITH E`` when ``A WITH E`` itself is listed or ``A`` is: an exception only adds
  permissions to its license;
- a single id when it is listed (exactly: ``MIT-0`` is not ``MIT``, ``GPL-2.0-only`` not
  ``GPL-2.0-or-later``).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterable, Optional, Union

from kvdata.schema import RejectReason

Problem = tuple[RejectReason, str]

#: Licenses whose code may go into a training corpus that is itself redistributed.
#: Permissive licenses (attribution at most) and file-level weak copyleft (MPL-2.0,
#: whose obligations attach to the modified files, which we ship unmodified with their
#: provenance). Strong/network copyleft (GPL, AGPL) and LGPL are left out because a
#: mixed corpus cannot honour their "same license for derived works" terms row by row;
#: a build that wants them passes its own allow-list.
DEFAULT_ALLOW: frozenset[str] = frozenset({
    "MIT", "MIT-0", "X11", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "0BSD", "ISC",
    "Unlicense", "CC0-1.0", "BSL-1.0", "Zlib", "MPL-2.0", "CC-BY-4.0", "PSF-2.0",
    "NCSA", "UPL-1.0",
})

#: ScanCode's ids for text it saw but could not identify.
UNKNOWN_PREFIX = "LicenseRef-scancode-unknown"


class LicenseExpressionError(ValueError):
    """An expression that does not parse, or names an id that is neither SPDX nor a LicenseRef."""


@functools.lru_cache(maxsize=1)
def _licensing():
    from license_expression import get_spdx_licensing

    return get_spdx_licensing()


@functools.lru_cache(maxsize=65536)
def _parsed(expression: str):
    from license_expression import ExpressionError, ExpressionParseError

    try:
        parsed = _licensing().parse(expression, validate=True, strict=True)
    except (ExpressionError, ExpressionParseError) as e:
        raise LicenseExpressionError(f"{expression!r}: {e}") from None
    except Exception as e:  # noqa: BLE001 - the parser raises a few odd types on odd input
        raise LicenseExpressionError(f"{expression!r}: {type(e).__name__}: {e}") from None
    if parsed is None:
        raise LicenseExpressionError(f"{expression!r}: empty expression")
    return parsed


def canonical(expression: str) -> str:
    """The canonical rendering of an SPDX expression; :class:`LicenseExpressionError` when it is not one."""
    if not isinstance(expression, str) or not expression.strip():
        raise LicenseExpressionError(f"{expression!r} is not an expression")
    return _rendered(expression.strip())


@functools.lru_cache(maxsize=65536)
def _rendered(expression: str) -> str:
    """Rendering is the parser's slow half; a build asks for the same few expressions per row."""
    return _parsed(expression).render()


def try_canonical(expression) -> Optional[str]:
    """:func:`canonical`, or None when ``expression`` is not a valid SPDX expression."""
    try:
        return canonical(expression)
    except LicenseExpressionError:
        return None


def license_ids(expression: str) -> list[str]:
    """The license (and exception) ids an expression names, in order, each once."""
    return [s.key for s in _licensing().license_symbols(_parsed(canonical(expression)), decompose=True)]


@functools.lru_cache(maxsize=65536)
def is_unknown(expression: str) -> bool:
    """True when the expression holds a ScanCode ``LicenseRef-scancode-unknown...`` id."""
    return any(i.startswith(UNKNOWN_PREFIX) for i in license_ids(expression))


def _combine(expressions: Iterable[str], operator: str) -> Optional[str]:
    parts = list(dict.fromkeys(canonical(e) for e in expressions if e))
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return canonical(f" {operator} ".join(f"({p})" for p in parts))


def combine_and(expressions: Iterable[str]) -> Optional[str]:
    """``A AND B AND ...`` of the expressions, each once, in order (None for none)."""
    return _combine(expressions, "AND")


def combine_or(expressions: Iterable[str]) -> Optional[str]:
    """``A OR B OR ...`` of the expressions, each once, in order (None for none)."""
    return _combine(expressions, "OR")


def simplified_and(expressions: Iterable[str]) -> Optional[str]:
    """The AND of the expressions with repeated terms removed (``MIT AND (BSD-3-Clause AND MIT)``
    becomes ``MIT AND BSD-3-Clause``): what a tree's license files hold, all notices together."""
    joined = combine_and(expressions)
    if joined is None:
        return None
    parsed = _parsed(joined)
    flat = parsed.flatten() if hasattr(parsed, "flatten") else parsed     # a single id has no terms to merge
    return _licensing().dedup(flat).render()


# ----------------------------------------------------------------- the allow-list
def allow_set(allow: Union[str, Iterable[str], None]) -> frozenset[str]:
    """An allow-list as canonical, lower-cased keys (a single string is one entry, not its letters).

    Each entry is an SPDX id, a ``LicenseRef-...`` or an ``A WITH E``; an entry that is not
    one is a :class:`LicenseExpressionError` naming it.
    """
    if allow is None:
        allow = DEFAULT_ALLOW
    if isinstance(allow, str):
        allow = [allow]
    keys = set()
    for entry in allow:
        if not isinstance(entry, str):
            raise LicenseExpressionError(f"allow-list entry {entry!r} is not a string")
        keys.add(canonical(entry).lower())
    return frozenset(keys)


@dataclass(frozen=True)
class AllowDecision:
    """Whether an expression is allowed; ``relied_on`` is the part of it the build relied on."""

    allowed: bool
    relied_on: Optional[str] = None
    problem: Optional[Problem] = None


def _relied_on(node, allowed: frozenset[str]) -> Optional[str]:
    """The allowed reading of ``node`` (an expression tree), or None when there is none."""
    from license_expression import AND, OR, LicenseSymbol, LicenseWithExceptionSymbol

    if isinstance(node, LicenseWithExceptionSymbol):
        whole = node.render()
        if whole.lower() in allowed or node.license_symbol.key.lower() in allowed:
            return whole
        return None
    if isinstance(node, LicenseSymbol):
        return node.key if node.key.lower() in allowed else None
    if isinstance(node, AND):
        parts = [_relied_on(a, allowed) for a in node.args]
        if any(p is None for p in parts):
            return None
        return " AND ".join(parts)          # each part is OR-free: an OR resolves to one alternative
    if isinstance(node, OR):
        for a in node.args:
            p = _relied_on(a, allowed)
            if p is not None:
                return p
        return None
    return None


def evaluate_allow(expression, allow: Union[str, Iterable[str], None] = None) -> AllowDecision:
    """The allow-list's decision on ``expression`` (see the module docstring for the rules)."""
    if not expression or not isinstance(expression, str):
        return AllowDecision(False, problem=(RejectReason.MISSING_LICENSE, "no license"))
    try:
        parsed = _parsed(canonical(expression))
    except LicenseExpressionError as e:
        return AllowDecision(False, problem=(RejectReason.UNKNOWN_LICENSE, f"license expression is not valid: {e}"))
    keys = allow if isinstance(allow, frozenset) and all(k == k.lower() for k in allow) else allow_set(allow)
    relied = _relied_on(parsed, keys)
    if relied is None:
        if is_unknown(expression):
            return AllowDecision(False, problem=(RejectReason.UNKNOWN_LICENSE,
                                                 f"license {expression} holds text ScanCode could not identify"))
        return AllowDecision(False, problem=(RejectReason.LICENSE_NOT_ALLOWED,
                                             f"license {expression} is not in the allow-list"))
    return AllowDecision(True, relied_on=canonical(relied))


def check_allowed(spdx, allow: Union[str, Iterable[str], None] = None) -> Optional[Problem]:
    """None when ``spdx`` (an id or an expression) is allowed, else the problem (a reject reason)."""
    return evaluate_allow(spdx, allow).problem
