"""The names a Python file binds to triton: the package, ``triton.language``, its decorators and functions.

Read from the file's imports, by ``ast`` when the file parses and by regular expressions when it does not. The
kernel finder needs them to recognise ``@jit`` / ``@tr.jit``, and the normal forms to write every alias of
``triton.language`` as ``tl``.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Iterator, Optional

__all__ = ["TritonNames", "TRITON_DECORATORS", "dotted_name", "statements", "names_from_tree", "names_from_text"]

TRITON_DECORATORS = frozenset({"jit", "autotune", "heuristics"})


@dataclass
class TritonNames:
    """The names a file binds to the triton package, ``triton.language`` and triton's decorators and functions.

    ``triton`` and ``tl`` are always assumed (snippets often omit their imports); a bare ``@jit`` counts as
    Triton's unless the file imports ``jit`` from somewhere else (numba, jax, torch).
    """

    triton: set[str] = field(default_factory=lambda: {"triton"})
    language: set[str] = field(default_factory=lambda: {"tl"})
    decorators: set[str] = field(default_factory=set)     # bare names bound to triton.jit / autotune / heuristics
    foreign: set[str] = field(default_factory=set)        # bare decorator names imported from other packages
    functions: dict[str, str] = field(default_factory=dict)  # other names imported from triton: bound -> own name

    def add_import(self, module: Optional[str], name: str, asname: Optional[str]) -> None:
        """Record ``import name as asname`` (``module`` None) or ``from module import name as asname``."""
        bound = asname or name
        if module is None:
            if name == "triton" or (name.startswith("triton.") and asname is None):
                self.triton.add(bound.split(".")[0])
            elif name == "triton.language":
                self.language.add(bound)
            return
        from_triton = module.split(".")[0] == "triton"
        if module == "triton" and name == "language":
            self.language.add(bound)
        elif from_triton and name in TRITON_DECORATORS:
            self.decorators.add(bound)
        elif from_triton and name != "*":
            self.functions[bound] = name
        elif name in TRITON_DECORATORS or bound in TRITON_DECORATORS:
            self.foreign.add(bound)

    def is_kernel_decorator(self, dotted: str) -> bool:
        """Whether a decorator's dotted name (``triton.jit``, ``jit``, ``tr.autotune``) is one of triton's."""
        parts = dotted.split(".")
        if len(parts) == 1:
            name = parts[0]
            return name in self.decorators or (name == "jit" and name not in self.foreign)
        return parts[0] in self.triton and parts[-1] in TRITON_DECORATORS

    def canonical_text(self, text: str) -> str:
        """``text`` with every alias of ``triton.language`` written ``tl.`` and every alias of triton ``triton.``."""
        if "language" in text:
            for t in sorted(self.triton):
                text = re.sub(rf"\b{re.escape(t)}\s*\.\s*language\s*\.", "tl.", text)
        for t in sorted(self.triton - {"triton"}):
            text = re.sub(rf"(?<![\w.]){re.escape(t)}\s*\.", "triton.", text)
        for alias in sorted(self.language - {"tl"}):
            text = re.sub(rf"(?<![\w.]){re.escape(alias)}\s*\.", "tl.", text)
        return text


def dotted_name(node: ast.expr) -> str:
    """``a.b.c`` for a decorator expression (a call's function; '' for anything else)."""
    if isinstance(node, ast.Call):
        node = node.func
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


_COMPOUND = tuple(t for t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor,
                              ast.While, ast.With, ast.AsyncWith, ast.Try, getattr(ast, "TryStar", None),
                              ast.ExceptHandler) if t is not None)
_MATCH = getattr(ast, "Match", None)


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement, nested ones too (not expressions: kernels and imports are statements)."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _COMPOUND):
            for name in ("handlers", "finalbody", "orelse", "body"):
                children = getattr(node, name, None)
                if children:
                    stack.extend(reversed(children))
        elif _MATCH is not None and isinstance(node, _MATCH):
            for case in reversed(node.cases):
                stack.extend(reversed(case.body))


def names_from_tree(tree: ast.Module) -> TritonNames:
    names = TritonNames()
    for node in statements(tree.body):
        if isinstance(node, ast.Import):
            for a in node.names:
                names.add_import(None, a.name, a.asname)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                names.add_import(node.module, a.name, a.asname)
    return names


_IMPORT = re.compile(r"^[ \t]*import[ \t]+(.+)$", re.M)
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?([^)\n]+)\)?", re.M)


def names_from_text(code: str) -> TritonNames:
    """:func:`names_from_tree` for a file that does not parse: its import lines read with regular expressions."""
    names = TritonNames()
    for m in _IMPORT.finditer(code):
        for part in m.group(1).split("#")[0].split(","):
            bits = part.split()
            if bits:
                names.add_import(None, bits[0], bits[2] if len(bits) == 3 and bits[1] == "as" else None)
    for m in _FROM_IMPORT.finditer(code):
        for part in m.group(2).split("#")[0].split(","):
            bits = part.split()
            if bits:
                names.add_import(m.group(1), bits[0], bits[2] if len(bits) == 3 and bits[1] == "as" else None)
    return names
