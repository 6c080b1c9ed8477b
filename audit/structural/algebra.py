"""Algebraic canonicalisation of op graphs: one spelling for each simple identity.

Every node of a normalised graph is created through :meth:`Builder.emit`, which rewrites it into a canonical
form before hashing it into the graph (common subexpressions become one node):

- **division** ``a / b`` is ``a * b**-1`` (``a / c`` for a constant: ``a * (1/c)``); **subtraction** ``a - b``
  is ``a + (-b)`` (``rsub`` likewise);
- **powers**: ``reciprocal``, ``sqrt``, ``rsqrt`` and ``square`` are powers -1, 1/2, -1/2 and 2, so ``x*x``,
  ``x ** 2``, ``pow(x, 2)`` and ``square(x)`` meet, and so do ``rsqrt(v)``, ``1 / sqrt(v)``,
  ``reciprocal(sqrt(v))`` and ``v ** -0.5``; a power of a power multiplies the exponents where that is an
  identity (integer outer exponent, or an inner reciprocal), and an integer power of a product is the product
  of the powers;
- **commutative chains** (``add``, ``mul``, ``maximum``, ``minimum``) are flattened into one n-ary node with
  unordered operands (so ``(a*b)*c``, ``a*(b*c)`` and ``(c*a)*b`` are one node), their constants folded into
  one, neutral constants (``*1``, ``+0``) dropped, repeated factors turned into powers (``x*x*x`` is
  ``x**3``), repeated terms into a product (``x+x`` is ``2*x``), and signs pulled out of products
  (``(-a)*b`` is ``-(a*b)``, ``x * -0.5`` is ``-(x * 0.5)``). A nested chain is only flattened into its
  consumer when that consumer is its only use, so a shared intermediate stays shared;
- **clamps** are ``maximum``/``minimum`` with a constant; ``maximum(x, 0)`` and ``where(x > 0, x, 0)`` are
  ``relu``; ``1 / (1 + exp(-x))`` is ``sigmoid``; ``log1p(y)`` is ``log(y + 1)``, ``expm1(x)`` is
  ``exp(x) - 1``; ``0.5 * (tanh(x / 2) + 1)`` is ``sigmoid``; ``masked_fill(x, m, v)`` is ``where(m, v, x)``;
- **numerical guards go**: a tiny constant (at most ``GUARD_EPS``) added to a value or used as its floor
  (``var + 1e-5``, ``clamp_min(norm, 1e-12)``) is dropped;
- **scalar factors leave a matmul**: ``(q * c) @ k`` is ``(q @ k) * c``; **pooling commutes with a constant
  shift**: ``pool(x - c)`` is ``pool(x) - c``;
- **a parameter absorbs constants**: in a chain with a parameter that has no other use, the constants fold into
  it (``conv(x) + bias - 0.5`` is ``conv(x) + bias'``, a subtraction folded into the conv's bias).

Constants keep their value only for these rules; the fingerprint sees every constant as ``const``, so sizes and
coefficients do not matter (``x / 7`` and ``x * 0.5`` compare equal). Rules look through an edge only when it
does not carry a transpose mark.
"""
from __future__ import annotations

import math
from typing import Callable, Optional

from .opgraph import OpGraph

Ref = tuple[int, bool]          # (node index, reached through a transpose/permute)

COMMUTATIVE_OPS = frozenset({
    "add", "mul", "maximum", "minimum", "fmax", "fmin", "eq", "ne", "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "hypot",
})
CHAIN_OPS = frozenset({"add", "mul", "maximum", "minimum"})
# A nested sum with other uses is still spliced into its consumer while the result stays this small: the sharing
# is kept (the inner node stays for its other uses) and ``(x - m) - l`` meets ``x - (l + m)``, while a residual
# stream ``h = h + f(h)`` does not grow one operand per layer. A shared product is never spliced: its constant
# would merge with the consumer's, and ``gelu(x / c)`` (a shared ``x * c``) would meet ``gelu(x) / c``.
SHARED_SPLICE_MAX = 8
# A constant this small added to a value or taken as its floor (``var + 1e-5``, ``clamp_min(norm, 1e-12)``) is a
# numerical guard, not part of the function: dropped, so ``F.normalize`` meets ``x / x.norm()``.
GUARD_EPS = 1e-4
POWER_ALIASES = {"reciprocal": -1.0, "sqrt": 0.5, "rsqrt": -0.5, "square": 2.0}
# Ops whose two results differ although their inputs are the same: never merged as common subexpressions.
RANDOM_PREFIXES = ("rand", "bernoulli", "normal", "uniform", "multinomial", "exponential", "poisson",
                   "native_dropout", "cauchy", "geometric", "log_normal")


def _vkey(value: Optional[float]):
    if value is None:
        return None
    return "nan" if value != value else float(value)


def _is_int(value: Optional[float]) -> bool:
    return value is not None and math.isfinite(value) and float(value).is_integer()


class Builder:
    """Builds a canonical :class:`OpGraph`; ``may_inline(node)`` says whether a node has one use only (so a
    consumer may absorb it), and is false for every node when that is unknown (the first build)."""

    def __init__(self, may_inline: Optional[Callable[[int], bool]] = None):
        self.graph = OpGraph()
        self._memo: dict = {}
        self._may_inline = may_inline or (lambda node: False)
        self._first_build = may_inline is None

    # ------------------------------------------------------------------ low level
    def leaf(self, label: str) -> Ref:
        return self.graph.add(label, []), False

    def const(self, value: Optional[float] = None) -> Ref:
        return self.graph.add("const", [], value=None if value is None else float(value)), False

    def raw(self, label: str, ins: list[Ref], ordered: bool = True, value: Optional[float] = None) -> Ref:
        """The node itself, or the identical node built before (common subexpression)."""
        g = self.graph
        if not ordered:
            ins = sorted(ins, key=self._in_key_str)
        key = None
        if not label.startswith(RANDOM_PREFIXES):
            in_keys = tuple(self._in_key(r) for r in ins)
            key = (label, _vkey(value), ordered, tuple(sorted(in_keys, key=str)) if not ordered else in_keys)
            if key in self._memo:
                return self._memo[key], False
        node = g.add(label, list(ins), ordered=ordered, value=value)
        if key is not None:
            self._memo[key] = node
        return node, False

    def _in_key(self, ref: Ref):
        g = self.graph
        return ("c", _vkey(g.values[ref[0]])) if g.labels[ref[0]] == "const" else ref

    def _in_key_str(self, ref: Ref) -> str:
        return str(self._in_key(ref))

    def _label(self, ref: Ref) -> str:
        return self.graph.labels[ref[0]]

    def _value(self, ref: Ref) -> Optional[float]:
        return self.graph.values[ref[0]]

    def _ins(self, ref: Ref) -> list[Ref]:
        g = self.graph
        return list(zip(g.inputs[ref[0]], g.permuted[ref[0]]))

    def _is(self, ref: Ref, label: str) -> bool:
        """The node has this label and the edge to it carries no transpose (so its algebra can be looked into)."""
        return not ref[1] and self._label(ref) == label

    def _const_value(self, ref: Ref, value: float) -> bool:
        return self._label(ref) == "const" and self._value(ref) == value

    # ------------------------------------------------------------------ rules
    def emit(self, label: str, ins: list[Ref], value: Optional[float] = None) -> Ref:
        """The canonical form of ``label(*ins)`` (``value``: the exponent of a ``pow`` node)."""
        if label in POWER_ALIASES and len(ins) == 1:
            return self.power(ins[0], POWER_ALIASES[label])
        rule = _RULES.get(label)
        if rule is not None:
            out = rule(self, ins, value)
            if out is not None:
                return out
        return self.raw(label, ins, ordered=label not in COMMUTATIVE_OPS, value=value)

    def power(self, x: Ref, e: float) -> Ref:
        if e == 1:
            return x
        if self._label(x) == "const" and self._value(x) is not None:
            try:
                folded = float(self._value(x) ** e)
                if isinstance(folded, float) and math.isfinite(folded):
                    return self.const(folded)
            except (ZeroDivisionError, OverflowError, ValueError, TypeError):
                pass
        if self._is(x, "pow") and self._value(x) is not None:
            inner = self._value(x)
            if _is_int(e) or inner == -1:
                return self.power(self._ins(x)[0], inner * e)
        if e == -1 and self._is(x, "add"):
            sigmoid_arg = self._sigmoid_argument(x)
            if sigmoid_arg is not None:
                return self.emit("sigmoid", [sigmoid_arg])
        if _is_int(e) and self._is(x, "mul") and self._may_inline(x[0]):
            return self.emit("mul", [self.power(f, e) for f in self._ins(x)])
        return self.raw("pow", [x], value=float(e))

    def _sigmoid_argument(self, add: Ref) -> Optional[Ref]:
        """``z`` when ``add`` is ``exp(-z) + 1``."""
        ins = self._ins(add)
        if len(ins) != 2:
            return None
        consts = [r for r in ins if self._label(r) == "const"]
        terms = [r for r in ins if self._label(r) != "const"]
        if len(consts) != 1 or not self._const_value(consts[0], 1.0) or not self._is(terms[0], "exp"):
            return None
        (arg,) = self._ins(terms[0])
        return self._ins(arg)[0] if self._is(arg, "neg") else None

    def _half_tanh_argument(self, ref: Ref) -> Optional[Ref]:
        """``x`` when ``ref`` is ``tanh(x * 0.5)``."""
        if not self._is(ref, "tanh"):
            return None
        (inner,) = self._ins(ref)
        parts = self._is(inner, "mul") and self._ins(inner)
        if not parts or len(parts) != 2 or not any(self._const_value(p, 0.5) for p in parts):
            return None
        return next(p for p in parts if not self._const_value(p, 0.5))

    def _chain_operands(self, label: str, ins: list[Ref]) -> list[Ref]:
        """Operands of an n-ary chain, nested chains of the same op spliced in (single-use ones; small shared sums)."""
        out: list[Ref] = []
        stack = list(reversed(ins))
        while stack:
            r = stack.pop()
            if self._is(r, label) and (self._splice(r, len(out) + len(stack)) if label == "add"
                                       else self._may_inline(r[0])):
                stack.extend(reversed(self._ins(r)))
            else:
                out.append(r)
        return out

    def _splice(self, chain: Ref, others: int) -> bool:
        """May a nested chain's operands replace it in a consumer that has ``others`` other operands?"""
        return self._may_inline(chain[0]) or (not self._first_build
                                              and others + len(self.graph.inputs[chain[0]]) <= SHARED_SPLICE_MAX)

    def add_chain(self, ins: list[Ref]) -> Ref:
        terms: dict[Ref, int] = {}
        consts: list[Optional[float]] = []
        for r in self._chain_operands("add", ins):
            if self._label(r) == "const":
                consts.append(self._value(r))
            else:
                terms[r] = terms.get(r, 0) + 1
        ops = [t if n == 1 else self.emit("mul", [t, self.const(float(n))]) for t, n in terms.items()]
        total = None if any(c is None for c in consts) else sum(consts)
        if consts and (self._absorbs_constants(ops) or (total is not None and abs(total) <= GUARD_EPS)):
            consts = []
        if len(ops) == 1 and total == 0.5:
            half = self._is(ops[0], "mul") and self._ins(ops[0])
            if half and len(half) == 2 and any(self._const_value(h, 0.5) for h in half):
                tanh = next(h for h in half if not self._const_value(h, 0.5))
                arg = self._half_tanh_argument(tanh)
                if arg is not None:                  # 0.5 * tanh(x / 2) + 0.5 is sigmoid(x)
                    return self.emit("sigmoid", [arg])
        if consts and total != 0:
            ops.append(self.const(total))
        if not ops:
            return self.const(0.0 if total is None else total)
        if len(ops) == 1:
            return ops[0]
        return self.raw("add", ops, ordered=False)

    def mul_chain(self, ins: list[Ref]) -> Ref:
        sign = 1
        exponents: dict[Ref, float] = {}
        product: Optional[float] = 1.0
        stack = list(reversed(self._chain_operands("mul", ins)))
        while stack:
            r = stack.pop()
            if self._label(r) == "const":
                v = self._value(r)
                if v is None:
                    product = None
                else:
                    sign, v = (-sign, -v) if v < 0 else (sign, v)
                    product = None if product is None else product * v
            elif self._is(r, "neg"):
                sign = -sign
                stack.append(self._ins(r)[0])
            elif self._is(r, "mul") and self._may_inline(r[0]):
                stack.extend(reversed(self._ins(r)))
            elif self._is(r, "pow") and self._value(r) is not None:
                base = self._ins(r)[0]
                exponents[base] = exponents.get(base, 0.0) + self._value(r)
            else:
                exponents[r] = exponents.get(r, 0.0) + 1.0
        factors = [self.power(base, e) for base, e in exponents.items() if e != 0]
        if self._absorbs_constants(factors):
            product = 1.0
        if product == 0.5 and len(factors) == 1 and self._is(factors[0], "add"):
            terms = self._ins(factors[0])
            if len(terms) == 2 and any(self._const_value(t, 1.0) for t in terms):
                arg = self._half_tanh_argument(next(t for t in terms if not self._const_value(t, 1.0)))
                if arg is not None:                  # 0.5 * (tanh(x / 2) + 1) is sigmoid(x)
                    out = self.emit("sigmoid", [arg])
                    return self.emit("neg", [out]) if sign < 0 else out
        if product != 1.0:
            factors.append(self.const(product))
        if not factors:
            out = self.const(1.0)
        elif len(factors) == 1:
            out = factors[0]
        else:
            out = self.raw("mul", factors, ordered=False)
        return self.emit("neg", [out]) if sign < 0 else out

    def _absorbs_constants(self, operands: list[Ref]) -> bool:
        """A parameter used only here absorbs the chain's constants: ``conv(x) + b - 0.5`` is ``conv(x) + b'``."""
        return any(self._label(r) == "param" and self._may_inline(r[0]) for r in operands)

    def extremum_chain(self, label: str, ins: list[Ref]) -> Ref:
        ops, consts = [], []
        for r in self._chain_operands(label, ins):
            (consts if self._label(r) == "const" else ops).append(r)
        values = [self._value(c) for c in consts]
        picked = None if not consts or None in values else (max if label == "maximum" else min)(values)
        ops = list(dict.fromkeys(ops))
        if label == "maximum" and len(ops) == 1 and picked is not None and 0 < picked <= GUARD_EPS:
            return ops[0]                            # clamp_min(norm, 1e-12): a guard
        if consts:
            ops.append(self.const(picked))
        if len(ops) == 1:
            return ops[0]
        if label == "maximum" and len(ops) == 2 and consts and values == [0.0] * len(values):
            (x,) = [r for r in ops if self._label(r) != "const"]
            return self.emit("relu", [x])
        return self.raw(label, ops, ordered=False)


# Rules by op label: each returns the canonical Ref, or None to keep the node as it is.
def _sub(b: Builder, ins, value):
    if len(ins) == 2:
        return b.emit("add", [ins[0], b.emit("neg", [ins[1]])])


def _rsub(b: Builder, ins, value):
    if len(ins) == 2:
        return b.emit("add", [ins[1], b.emit("neg", [ins[0]])])


def _div(b: Builder, ins, value):
    if len(ins) != 2:
        return None
    num, den = ins
    if b._label(den) == "const" and b._value(den) not in (None, 0.0):
        return b.emit("mul", [num, b.const(1.0 / b._value(den))])
    return b.emit("mul", [num, b.power(den, -1.0)])


def _pow(b: Builder, ins, value):
    if value is not None and len(ins) == 1:
        return b.power(ins[0], value)
    if len(ins) == 2 and b._label(ins[1]) == "const" and b._value(ins[1]) is not None:
        return b.power(ins[0], b._value(ins[1]))
    return None


def _neg(b: Builder, ins, value):
    if len(ins) != 1:
        return None
    (x,) = ins
    if b._is(x, "neg"):
        return b._ins(x)[0]
    if b._label(x) == "const" and b._value(x) is not None:
        return b.const(-b._value(x))
    if b._is(x, "add") and b._splice(x, 0):       # -(a + b) is (-a) + (-b): signs sit on the terms
        return b.emit("add", [b.emit("neg", [t]) for t in b._ins(x)])
    return None


def _abs(b: Builder, ins, value):
    if len(ins) == 1 and b._is(ins[0], "neg"):
        return b.emit("abs", b._ins(ins[0]))
    return None


def _log1p(b: Builder, ins, value):
    if len(ins) == 1:
        return b.emit("log", [b.emit("add", [ins[0], b.const(1.0)])])


def _expm1(b: Builder, ins, value):
    if len(ins) == 1:
        return b.emit("add", [b.emit("exp", ins), b.const(-1.0)])


def _where(b: Builder, ins, value):
    if len(ins) != 3:
        return None
    cond, then, other = ins
    if b._is(cond, "gt") and b._const_value(other, 0.0):
        c_ins = b._ins(cond)
        if len(c_ins) == 2 and c_ins[0] == then and b._const_value(c_ins[1], 0.0):
            return b.emit("relu", [then])
    return None


def _pool(b: Builder, ins, value, label: str):
    """Pooling commutes with adding a constant: ``pool(x - c)`` is ``pool(x) - c``."""
    if len(ins) == 1 and b._is(ins[0], "add"):
        parts = b._ins(ins[0])
        consts = [p for p in parts if b._label(p) == "const"]
        rest = [p for p in parts if b._label(p) != "const"]
        if consts and len(rest) == 1:
            return b.emit("add", [b.raw(label, rest)] + consts)
    return None


def _masked_fill(b: Builder, ins, value):
    if len(ins) == 3:
        return b.emit("where", [ins[1], ins[2], ins[0]])


def _matmul(b: Builder, ins, value):
    """Scalar factors move out: ``(a * c) @ w`` is ``(a @ w) * c``."""
    if len(ins) != 2:
        return None
    scales, operands = [], []
    for r in ins:
        if b._is(r, "mul"):
            parts = b._ins(r)
            consts = [p for p in parts if b._label(p) == "const"]
            rest = [p for p in parts if b._label(p) != "const"]
            if len(consts) == 1 and len(rest) == 1:       # r itself is not transposed (_is): rest[0]'s mark stays
                scales.append(consts[0])
                operands.append(rest[0])
                continue
        operands.append(r)
    if not scales:
        return None
    return b.emit("mul", [b.raw("matmul", operands)] + scales)


_RULES = {
    "sub": _sub, "rsub": _rsub, "div": _div, "pow": _pow, "neg": _neg, "abs": _abs, "log1p": _log1p,
    "expm1": _expm1, "where": _where, "masked_fill": _masked_fill, "matmul": _matmul,
    "add": lambda b, ins, v: b.add_chain(ins), "mul": lambda b, ins, v: b.mul_chain(ins),
    "maximum": lambda b, ins, v: b.extremum_chain("maximum", ins),
    "minimum": lambda b, ins, v: b.extremum_chain("minimum", ins),
}


for _dims in ("1d", "2d", "3d"):
    for _pool_op in ("max_pool", "avg_pool", "adaptive_avg_pool", "adaptive_max_pool"):
        _RULES[f"{_pool_op}{_dims}"] = (lambda label: lambda b, ins, v: _pool(b, ins, v, label))(f"{_pool_op}{_dims}")


def rebuild(graph: OpGraph, output: int) -> tuple[OpGraph, int]:
    """One canonicalisation pass over a built graph: every node re-emitted in order, nested chains with a single
    use spliced into their consumer. Returns the new graph (dead nodes dropped) and its output node."""
    uses = [0] * len(graph.labels)
    for ins in graph.inputs:
        for i in ins:
            uses[i] += 1
    new_uses: dict[int, int] = {}
    builder = Builder(may_inline=lambda node: new_uses.get(node, 0) == 1)
    mapped: list[Ref] = []
    for n, label in enumerate(graph.labels):
        ins = [(mapped[i][0], mapped[i][1] or p) for i, p in zip(graph.inputs[n], graph.permuted[n])]
        if n == output:
            ref = (builder.graph.add("output", ins), False)
        elif label in ("input", "param"):
            ref = builder.leaf(label)
        elif label == "const":
            ref = builder.const(graph.values[n])
        else:
            ref = builder.emit(label, ins, graph.values[n])
        mapped.append(ref)
        new_uses[ref[0]] = new_uses.get(ref[0], 0) + uses[n]
    return builder.graph.without_dead(mapped[output][0])
