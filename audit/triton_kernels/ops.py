"""How two kernels' computations differ: their compute ops compared.

Two kernels that read alike may compute different things: the same skeleton with ``minimum`` for ``maximum``,
``exp2`` for ``exp``, ``-`` for ``+``, or its input negated (``softmax(-x)`` next to ``softmax(x)``). No
similarity of text or syntax tree separates them (one token differs), but their multisets of compute ops do.
The ops are read off each kernel's normalised AST (:func:`kvdata.audit.triton_kernels.ast_form.kernel_form`,
helper kernels included); this module says which differences mean another computation and which an edit of the
same one (a refactor, an added or dropped feature switch).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from kvdata.audit.triton_kernels.extract import TritonKernel

__all__ = ["OpDifference", "op_differences", "ARITHMETIC_SLACK"]

_ARITHMETIC = ("op_", "Cmp_")       # op-name prefixes of binary arithmetic and comparisons
ARITHMETIC_SLACK = 2                # one-way arithmetic differences a refactor may make (see op_differences)


@dataclass(frozen=True)
class OpDifference:
    """How two kernels' compute ops differ (:func:`op_differences`): ``missing``/``extra`` count, with
    multiplicity, the benchmark kernel's ops the training kernel lacks and the other way round; ``conflicts``
    counts the differences that mean another computation (what
    :class:`~kvdata.audit.triton_kernels.rule.KernelFlagRule` vetoes on)."""

    missing: int = 0
    extra: int = 0
    conflicts: int = 0


def op_differences(bench: TritonKernel, train: TritonKernel) -> OpDifference:
    """Compare the compute ops of a kernel pair (:attr:`TritonKernel.ops`, :attr:`TritonKernel.guarded_ops`).

    What counts as a conflict, on the main path: any difference in calls (``exp``, ``maximum``, ``sum``), unary
    and boolean operators, either way (``softmax(-x)`` against ``softmax(x)``); in arithmetic and comparisons, a
    difference both ways (a substitution: ``+`` for ``*``) and whatever one-way difference exceeds
    :data:`ARITHMETIC_SLACK` ops (a refactor that hoists ``row * stride`` into a name has one multiplication
    fewer and computes the same; a backward kernel holding its forward kernel has many more). Under constexpr
    switches only a difference both ways counts: a copy that gained or lost a feature switch only adds or only
    removes ops. All zero when either kernel has no AST form (it did not parse: unknown).
    """
    if not bench.ast_form or not train.ast_form:
        return OpDifference()
    b_main, t_main = Counter(bench.ops), Counter(train.ops)
    b_guard, t_guard = Counter(bench.guarded_ops), Counter(train.guarded_ops)
    missing, extra = b_main - t_main, t_main - b_main
    g_missing, g_extra = sum((b_guard - t_guard).values()), sum((t_guard - b_guard).values())

    def split(c: Counter) -> tuple[int, int]:
        arith = sum(v for k, v in c.items() if k.startswith(_ARITHMETIC))
        return arith, sum(c.values()) - arith

    m_arith, m_other = split(missing)
    e_arith, e_other = split(extra)
    both_ways = min(m_arith, e_arith)
    one_way = max(0, abs(m_arith - e_arith) - ARITHMETIC_SLACK)
    conflicts = m_other + e_other + both_ways + one_way + min(g_missing, g_extra)
    return OpDifference(sum(missing.values()) + g_missing, sum(extra.values()) + g_extra, conflicts)
