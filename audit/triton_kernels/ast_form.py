"""The structural form of a Triton kernel: its normalised AST as one line of word tokens.

Triton code has no ``nn.Module`` to trace, so its structure is read off the syntax tree. The tree is written in
pre-order, one token per node, with everything a copy-and-edit changes abstracted away:

* identifiers by role: kernel arguments ``A``, ``tl.constexpr`` arguments ``C``, names the kernel assigns ``V``,
  other free names ``G`` (module constants, helper kernels). The signature is written as the sorted multiset of
  its roles, so reordered arguments, reordered constexprs and renamed ones give the same form, and an extra
  constexpr adds one token;
* ``triton.language`` under any alias is ``tl``; a chain of attributes off a kept name is one token
  (``tl__load``), off a role it is the role plus the attribute names (``A__dtype__element_ty``);
* integer literals from 8 up are ``C``, the token of a constexpr argument: both are compile-time constants, and
  a block size is passed as a constexpr in one copy and written as a number in another; smaller integers stay
  (they are offsets and axes); floats other than 0, 0.5, 1 and 2 are ``FLT``; strings longer than an identifier
  are ``STR``;
* decorators (``autotune`` configs and their block sizes), docstrings, comments, annotations other than
  ``constexpr``, default values and formatting are left out.

Every token is a run of word characters, so the lexical machinery (shingles, MinHash, LSH) applies as is.

:func:`kernel_form` also reads the kernel's *computation* off that form: the multiset of its arithmetic operators,
comparisons, unary operators and the functions it calls (by their last name, so ``tl.math.rsqrt`` and
``libdevice.rsqrt`` are one op), without the plumbing every kernel has (loads, stores, program ids, aranges).
Ops under an ``if`` on a constexpr argument (``if HAS_BIAS:``) are kept apart: a copy may add or drop such a
feature switch. Two kernels whose main-path ops differ compute different things (``maximum`` for ``minimum``,
``sigmoid`` for ``relu``, ``softmax(-x)`` for ``softmax(x)``), however alike they read.
"""
from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional


__all__ = ["KernelForm", "kernel_form", "kernel_ast_form", "PLUMBING_CALLS", "SMALL_INT_LIMIT"]

SMALL_INT_LIMIT = 8                     # integer literals at or above this are written C, as a constexpr
_KEPT_FLOATS = {0.0: "F0", 0.5: "F05", 1.0: "F1", 2.0: "F2"}
# names that keep their own token: keywords, builtins (range, min, float) and the modules kernels use
_KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {"tl", "triton", "math", "torch", "np"}
_WORDY_STRING = re.compile(r"[A-Za-z_]\w{0,23}")
_SKIPPED_FIELDS = frozenset({"ctx", "type_comment", "decorator_list", "returns", "annotation", "type_params",
                             "kind"})


def _is_constexpr(annotation) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return "constexpr" in annotation.value
    return any(isinstance(n, ast.Attribute) and n.attr == "constexpr" or isinstance(n, ast.Name) and
               n.id == "constexpr" for n in ast.walk(annotation))


_NAME = "\x00"     # marks a token that is still a raw name: roles are known only once the whole tree is seen


class _Writer:
    """Pre-order writer of one function's tree into role tokens (one pass; names resolved at the end)."""

    def __init__(self, fn: ast.FunctionDef, triton_names: Iterable[str], language_names: Iterable[str],
                 imported: Mapping[str, str]):
        self.fn = fn
        self.language = set(language_names) | {"tl"}
        self.triton = set(triton_names) | {"triton"}
        self.imported = imported
        args = fn.args
        all_args = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
        self.args = {a.arg: "C" if _is_constexpr(a.annotation) else "A" for a in all_args}
        self.signature = sorted(self.args[a.arg] for a in all_args)
        self.assigned: set[str] = set()
        self.out: list[str] = []
        self.calls: list[tuple[int, str]] = []      # (token index, name) of calls to a bare name
        self.guarded: list[tuple[int, int]] = []    # token ranges under a constexpr switch

    # names -----------------------------------------------------------------------------------------------
    def _role(self, name: str) -> str:
        role = self.args.get(name)
        if role is not None:
            return role
        if name in self.assigned:
            return "V"
        if name in self.language:
            return "tl"
        if name in self.triton:
            return "triton"
        if name in self.imported:
            return "tl__" + self.imported[name].strip("_")
        if name in _KEPT_NAMES:
            return name
        return "G"

    def _chain(self, node: ast.Attribute) -> None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        parts.reverse()
        if isinstance(node, ast.Name):
            # resolved at the end: "\x00root attr attr"
            self.out.append(_NAME + node.id + " " + " ".join(parts))
            return
        self.out.append("at__" + "__".join(parts))  # e.g. tl.load(p).to: the attributes, then the expression
        self.visit(node)

    def _resolve(self, token: str) -> str:
        root, _, rest = token[1:].partition(" ")
        root = self._role(root)
        parts = rest.split(" ") if rest else []
        if root == "triton" and parts and parts[0] == "language":
            root, parts = "tl", parts[1:]
        return "__".join([root] + parts)

    # literals --------------------------------------------------------------------------------------------
    @staticmethod
    def _constant(value) -> str:
        if isinstance(value, bool) or value is None or value is Ellipsis:
            return f"K_{value}"
        if isinstance(value, int):
            return f"I{value}" if 0 <= value < SMALL_INT_LIMIT else "C"
        if isinstance(value, float):
            return _KEPT_FLOATS.get(value, "FLT")
        if isinstance(value, str):
            return "S_" + value if _WORDY_STRING.fullmatch(value) else "STR"
        return "K_" + type(value).__name__

    # traversal -------------------------------------------------------------------------------------------
    def visit(self, node) -> None:
        out = self.out
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is not ast.Load:
                self.assigned.add(node.id)
            out.append(_NAME + node.id)
        elif kind is ast.Attribute:
            self._chain(node)
        elif kind is ast.Constant:
            out.append(self._constant(node.value))
        elif kind is ast.Call:
            if type(node.func) is ast.Name:
                self.calls.append((len(out), node.func.id))
            out.append("Call")
            self.visit(node.func)
            for a in node.args:
                self.visit(a)
            for k in node.keywords:
                out.append(f"kw_{k.arg}" if k.arg else "kw_splat")
                self.visit(k.value)
        elif kind is ast.BinOp:
            out.append("BinOp_" + type(node.op).__name__)
            self.visit(node.left)
            self.visit(node.right)
        elif kind is ast.Assign:
            out.append("Assign")
            for t in node.targets:
                self.visit(t)
            self.visit(node.value)
        elif kind is ast.AugAssign:
            out.append("AugAssign_" + type(node.op).__name__)
            self.visit(node.target)
            self.visit(node.value)
        elif kind is ast.Subscript:
            out.append("Subscript")
            self.visit(node.value)
            self.visit(node.slice)
        elif kind is ast.Tuple or kind is ast.List:
            out.append(kind.__name__)
            for e in node.elts:
                self.visit(e)
        elif kind is ast.UnaryOp:
            operand = node.operand
            negative_literal = type(node.op) is ast.USub and (
                type(operand) is ast.Constant or (type(operand) is ast.Call and type(operand.func) is ast.Name
                                                  and operand.func.id == "float"))
            # -1 and -float("inf") are literals (float("-inf") is the same value), not a negation op
            out.append("Neg" if negative_literal else "Unary_" + type(node.op).__name__)
            self.visit(operand)
        elif kind is ast.BoolOp:
            out.append("Bool_" + type(node.op).__name__)
            for v in node.values:
                self.visit(v)
        elif kind is ast.Compare:
            out.append("Cmp_" + "_".join(type(op).__name__ for op in node.ops))
            self.visit(node.left)
            for c in node.comparators:
                self.visit(c)
        elif kind is ast.Expr:
            if type(node.value) is ast.Constant and isinstance(node.value.value, str):
                return                                                  # a docstring or bare string
            out.append("Expr")
            self.visit(node.value)
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            out.append("Def")
            if node is not self.fn:
                self.assigned.add(node.name)
                out.append(_NAME + node.name)
            self._body(node.body)
        elif kind is ast.If and self._tests_constexpr(node.test):
            out.append("If")
            start = len(out)                                        # the switch's test belongs to it too
            self.visit(node.test)
            self._body(node.body)
            if node.orelse:
                self._body(node.orelse)
            self.guarded.append((start, len(out)))
        elif kind is ast.arguments or kind is ast.keyword:
            return
        else:
            out.append(kind.__name__)
            self._fields(node)

    def _fields(self, node) -> None:
        for name, value in ast.iter_fields(node):
            if name in _SKIPPED_FIELDS or value is None:
                continue
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    self._body(value)
                else:
                    for v in value:
                        if isinstance(v, ast.AST):
                            self.visit(v)
            elif isinstance(value, ast.AST):
                self.visit(value)

    def _body(self, stmts: list) -> None:
        for s in stmts:
            self.visit(s)
        self.out.append("End")

    def _tests_constexpr(self, test: ast.expr) -> bool:
        """Whether an ``if`` tests a constexpr argument (a compile-time feature switch: ``if HAS_BIAS:``)."""
        return any(type(n) is ast.Name and self.args.get(n.id) == "C" for n in ast.walk(test))

    def write(self) -> KernelForm:
        self.out = ["Def"] + [f"arg_{r}" for r in self.signature]
        self._body(self.fn.body)
        resolve = self._resolve
        toks = [resolve(t) if t[0] == _NAME else t for t in self.out]      # every token is a run of word chars
        guard = [0] * (len(toks) + 1)
        for a, b in self.guarded:
            guard[a] += 1
            guard[b] -= 1
        inside, depth = [], 0
        for g in guard[:-1]:
            depth += g
            inside.append(depth > 0)
        ops, guarded = Counter(), Counter()
        for i, op in _ops(toks):
            (guarded if inside[i] else ops)[op] += 1
        helpers = tuple((name, inside[i]) for i, name in self.calls if self._role(name) == "G")
        return KernelForm(" ".join(toks), dict(ops), dict(guarded), helpers)


@dataclass
class KernelForm:
    """A kernel's normalised AST (``text``) and its compute ops: ``ops`` on the kernel's main path, ``guarded_ops``
    under an ``if`` on a constexpr argument (a feature switch a copy may add or drop). ``helper_calls`` are the
    module-level functions it calls, as (name, called under a switch): their ops are the kernel's too, once the
    file's other kernels are known (:func:`kvdata.audit.triton_kernels.extract.extract_kernels` adds them)."""

    text: str
    ops: dict[str, int] = field(default_factory=dict)
    guarded_ops: dict[str, int] = field(default_factory=dict)
    helper_calls: tuple[tuple[str, bool], ...] = ()


def kernel_form(fn: ast.FunctionDef, triton_names: Iterable[str] = ("triton",),
                language_names: Iterable[str] = ("tl",), imported: Optional[Mapping[str, str]] = None) -> KernelForm:
    """The normalised AST of kernel ``fn`` and its compute ops (see the module docstring).

    ``triton_names``/``language_names`` are the names the file binds to ``triton`` and ``triton.language``;
    ``imported`` maps names imported from triton's modules to their own names (``from
    triton.language.extra.cuda.libdevice import isfinited as _isf``: ``{"_isf": "isfinited"}``), written
    ``tl__isfinited``.
    """
    try:
        return _Writer(fn, triton_names, language_names, imported or {}).write()
    except RecursionError:
        return KernelForm("")


def kernel_ast_form(fn: ast.FunctionDef, triton_names: Iterable[str] = ("triton",),
                    language_names: Iterable[str] = ("tl",)) -> str:
    """Only the text of :func:`kernel_form`."""
    return kernel_form(fn, triton_names, language_names).text


# Calls every kernel makes whatever it computes: memory access, indexing, launch geometry, compile-time checks.
PLUMBING_CALLS = frozenset("""
load store program_id num_programs arange cdiv static_range range multiple_of max_contiguous debug_barrier
static_assert static_print device_print device_assert make_block_ptr advance assume zeros zeros_like full
full_like constexpr to
""".split())
# One computation, two spellings, told apart by the call's first argument: ``pow(2, y)`` is ``exp2(y)`` (a port
# between Triton versions writes either); the op veto must not read it as another computation.
_SAME_OP = {("pow", "I2"): "exp2", ("pow", "F2"): "exp2"}
_CALL_ROOTS = frozenset({"tl", "triton", "math", "G", "min", "max", "abs", "pow", "divmod", "round"})


def _ops(toks: list[str]):
    """(token index, op) for every compute op of a kernel's form tokens (see :func:`kernel_form`).

    ``a += b`` counts as ``a = a + b``. A call counts by its function's last name when the function is reached
    from ``tl``/``triton``/``math``, a module-level name (``libdevice``) or is a builtin like ``min``; methods of
    the kernel's own values (``x.to``) and the plumbing in :data:`PLUMBING_CALLS` do not count.
    """
    for i, t in enumerate(toks):
        if t.startswith(("BinOp_", "AugAssign_")):
            yield i, "op_" + t.split("_", 1)[1]
        elif t.startswith(("Unary_", "Cmp_", "Bool_")) and t != "Unary_UAdd":
            yield i, t
        elif t == "Call" and i + 1 < len(toks):
            parts = toks[i + 1].split("__")
            name = parts[-1]
            if parts[0] in _CALL_ROOTS and (len(parts) > 1 or parts[0] not in ("tl", "triton", "math", "G")) \
                    and name not in PLUMBING_CALLS:
                yield i, "call_" + _SAME_OP.get((name, toks[i + 2] if i + 2 < len(toks) else ""), name)
