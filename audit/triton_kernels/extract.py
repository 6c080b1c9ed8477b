"""Find the Triton kernels of a piece of Python code, without running it.

A kernel is a function decorated (directly, or under ``@triton.autotune`` / ``@triton.heuristics`` / any other
decorator) by a Triton ``jit``: ``@triton.jit``, ``@triton.jit(...)``, ``@jit`` imported from triton, or the same
through an alias (``import triton as tr``). Nested functions and methods count as well (kernel factories).

The code is untrusted, so it is only parsed (``ast.parse``), never executed. A file that does not parse has its
kernels cut out line by line and parsed one by one (:mod:`kvdata.audit.triton_kernels.fallback`).

Each kernel gets two normal forms: its renamed text (for the lexical measures) and its normalised AST with its
compute ops (:mod:`kvdata.audit.triton_kernels.ast_form`). A kernel's ops include those of the helper kernels it
calls from the same file (:func:`link_helper_ops`).
"""
from __future__ import annotations

import ast
import gc
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Optional

from kvdata.audit.normalize import tokens

try:
    from kvdata.audit.normalize import normalize_codes
except ImportError:  # before the renamer merge (audit/normalize.py) lands: one text at a time, same result
    from kvdata.audit.normalize import normalize_code

    def normalize_codes(texts, *, rename_identifiers=False):
        return [normalize_code(t, rename_identifiers=rename_identifiers) for t in texts]
from kvdata.audit.triton_kernels.ast_form import KernelForm, kernel_form
from kvdata.audit.triton_kernels.fallback import DECORATOR_LINE, DEF_LINE, kernel_blocks, parse_block
from kvdata.audit.triton_kernels.names import TritonNames, dotted_name, names_from_text, names_from_tree, statements

__all__ = ["TritonKernel", "extract_kernels", "extract_many", "link_helper_ops"]

_HELPER_DEPTH = 4         # helper kernels calling helpers: ops are followed this many calls deep


@dataclass
class TritonKernel:
    """One Triton kernel function of a file.

    ``start_line``/``end_line`` are 1-based and inclusive, decorators included; ``source`` is those lines.
    ``normalized`` is the kernel without its decorators, comments and docstrings, aliases of ``triton.language``
    written ``tl.``, user-chosen identifiers replaced by one placeholder (:func:`kvdata.audit.normalize.
    normalize_code` with ``rename_identifiers``): the text the lexical measures compare; ``n_tokens`` counts its
    tokens. ``ast_form`` is the kernel's normalised AST as a line of word tokens (:func:`~kvdata.audit.
    triton_kernels.ast_form.kernel_form`); empty when not even the cut-out kernel parsed. ``ops`` /
    ``guarded_ops`` are its compute ops on the main path and under constexpr switches, those of the helper
    kernels it calls from the same file included; ``helper_calls`` are those calls (name, under a switch) and
    ``unresolved_calls`` counts the ones, followed through helpers, that reach a function the file does not
    define. ``parsed`` says whether the file itself parsed (False: the kernel was cut out line by line).
    """

    name: str
    start_line: int
    end_line: int
    source: str
    normalized: str
    ast_form: str = ""
    decorators: tuple[str, ...] = ()
    parsed: bool = True
    n_tokens: int = 0
    ops: dict[str, int] = field(default_factory=dict)
    guarded_ops: dict[str, int] = field(default_factory=dict)
    helper_calls: tuple[tuple[str, bool], ...] = ()
    unresolved_calls: int = 0


def _kernel(node: ast.FunctionDef, lines: list[str], names: TritonNames, *, parsed: bool, line_offset: int = 0,
            body: Optional[str] = None, source: Optional[str] = None, end: Optional[int] = None) -> TritonKernel:
    """The kernel of a function node; ``normalized`` still holds the canonical text (:func:`_normalize` renames).

    ``lines`` are the text the node was parsed from; ``body``/``source``/``end`` override what is read off them
    (a repaired cut-out kernel reports its original lines).
    """
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    last = node.end_lineno or node.lineno
    if body is None:
        body = textwrap.dedent("\n".join(lines[node.lineno - 1:last]))
    form = kernel_form(node, names.triton, names.language, names.functions)
    return TritonKernel(
        name=node.name, start_line=first + line_offset, end_line=end or last + line_offset,
        source=source if source is not None else "\n".join(lines[first - 1:last]),
        normalized=names.canonical_text(body), ast_form=form.text,
        decorators=tuple(dotted_name(d) for d in node.decorator_list), parsed=parsed, ops=form.ops,
        guarded_ops=form.guarded_ops, helper_calls=form.helper_calls)


def _is_kernel(node: ast.AST, names: TritonNames) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        names.is_kernel_decorator(d) for d in map(dotted_name, node.decorator_list) if d)


def _raw_kernels(code: str) -> list[TritonKernel]:
    """The kernels of one file, their ops linked, ``normalized`` not yet renamed."""
    if "jit" not in code:              # every kernel's decorator chain holds a jit
        return []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return link_helper_ops(_cut_out_kernels(code))
    lines = code.splitlines()
    names = names_from_tree(tree)
    out = [_kernel(node, lines, names, parsed=True) for node in statements(tree.body) if _is_kernel(node, names)]
    out.sort(key=lambda k: k.start_line)
    return link_helper_ops(out)


def _cut_out_kernels(code: str) -> list[TritonKernel]:
    """The kernels of a file that does not parse (:mod:`kvdata.audit.triton_kernels.fallback`)."""
    lines = code.splitlines()
    names = names_from_text(code)
    out = []
    for first, def_at, end in kernel_blocks(lines, names):
        source = "\n".join(lines[first:end])
        body = textwrap.dedent("\n".join(lines[def_at:end]))
        node = parse_block(textwrap.dedent(source))
        if node is not None and _is_kernel(node, names):
            out.append(_kernel(node, [], names, parsed=False, line_offset=first, body=body, source=source,
                               end=end))
            continue
        form = kernel_form(node, names.triton, names.language, names.functions) if node else KernelForm("")
        decorators = tuple(m.group(2) for m in map(DECORATOR_LINE.match, lines[first:def_at]) if m)
        out.append(TritonKernel(name=DEF_LINE.match(lines[def_at]).group(2), start_line=first + 1, end_line=end,
                                source=source, normalized=names.canonical_text(body), ast_form=form.text,
                                decorators=decorators, parsed=False, ops=form.ops, guarded_ops=form.guarded_ops,
                                helper_calls=form.helper_calls))
    return out


def link_helper_ops(kernels: list[TritonKernel]) -> list[TritonKernel]:
    """Add to each kernel the ops of the helper kernels it calls (same file; by name, a few calls deep).

    Kernels generated from one template (FlagGems' ``*_kernel_rank_1``) differ only in the helper they call;
    without the helper's ops they would look like one computation. A call to a function the file does not
    define counts as one op named after the function (leading and trailing underscores dropped, as in
    ``from libdevice import tanh as _tanh``), so a copy that lost the import still agrees with the original.
    """
    by_name: dict[str, TritonKernel] = {}
    for k in kernels:
        by_name.setdefault(k.name, k)
    own = {id(k): (Counter(k.ops), Counter(k.guarded_ops)) for k in kernels}

    def total(k: TritonKernel, depth: int, seen: frozenset) -> tuple[Counter, Counter, int]:
        main, guarded = Counter(own[id(k)][0]), Counter(own[id(k)][1])
        unresolved = 0
        if depth >= _HELPER_DEPTH:
            return main, guarded, unresolved
        for name, under_switch in k.helper_calls:
            helper = by_name.get(name)
            if helper is None:            # defined or imported elsewhere: the call itself is the op
                (guarded if under_switch else main)["call_" + name.strip("_")] += 1
                unresolved += 1
                continue
            if name in seen:
                continue
            h_main, h_guarded, h_unresolved = total(helper, depth + 1, seen | {name})
            unresolved += h_unresolved
            if under_switch:
                guarded.update(h_main + h_guarded)
            else:
                main.update(h_main)
                guarded.update(h_guarded)
        return main, guarded, unresolved

    for k in kernels:
        if k.helper_calls:
            main, guarded, k.unresolved_calls = total(k, 0, frozenset({k.name}))
            k.ops, k.guarded_ops = dict(main), dict(guarded)
    return kernels


def _normalize(kernels: list[TritonKernel]) -> None:
    """Rename the identifiers of every kernel's canonical text, all in one batch (in place)."""
    texts = normalize_codes([k.normalized for k in kernels], rename_identifiers=True)
    for k, text in zip(kernels, texts):
        k.normalized = text
        k.n_tokens = len(tokens(text))


def extract_kernels(code: str) -> list[TritonKernel]:
    """The Triton kernels of ``code``, in source order (the code is parsed, never run)."""
    kernels = _raw_kernels(code or "")
    _normalize(kernels)
    return kernels


_NORMALIZE_BATCH = 2000   # kernels renamed per batch by extract_many


def extract_many(codes: Iterable[str]) -> Iterable[list[TritonKernel]]:
    """:func:`extract_kernels` of each code in turn (a generator), renaming identifiers in batches of kernels.

    The cyclic garbage collector is paused while a batch is parsed: syntax trees allocate millions of objects
    and hold no cycles, and the collector's passes over them cost about a third of the parse.
    """
    pending: list[list[TritonKernel]] = []
    n_pending = 0
    for code in codes:
        enabled = gc.isenabled()
        gc.disable()
        try:
            kernels = _raw_kernels(code or "")
        finally:
            if enabled:
                gc.enable()
        pending.append(kernels)
        n_pending += len(kernels)
        if n_pending >= _NORMALIZE_BATCH:
            _normalize([k for ks in pending for k in ks])
            yield from pending
            pending, n_pending = [], 0
    _normalize([k for ks in pending for k in ks])
    yield from pending

