"""Structural v2, algebra: each simple rewrite gives one canonical graph; look-alikes keep theirs.

Every spelling below is a real module traced in the sandbox (one batch); a group of spellings of one computation
must share one exact hash, and a look-alike (another computation on the same skeleton) must differ and stay
below the flag threshold. Operands come from distinct ops on one input (``tanh``, ``sigmoid``, ``relu``, ...)
so that reordering them is a real reordering. Each spelling is also run in-process (they are our own
expressions): those of a group compute the same values, a look-alike other values.
"""
from __future__ import annotations

import textwrap

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from kvdata.audit import structural as S  # noqa: E402

THRESHOLD = 0.9
OPERANDS = "a, b, c, d = torch.tanh(z), torch.sigmoid(z), torch.relu(z) + 1.0, torch.exp(z)"

# group -> spellings of one computation (over z, and the operands a, b, c, d above)
SAME = {
    "square": ["a * a", "a ** 2", "torch.pow(a, 2)", "torch.square(a)", "a.pow(2.0)"],
    "cube": ["c * c * c", "torch.pow(c, 3)", "c ** 2 * c"],
    "rsqrt": ["torch.rsqrt(c)", "1.0 / torch.sqrt(c)", "torch.reciprocal(torch.sqrt(c))", "c ** -0.5",
              "torch.sqrt(c) ** -1", "torch.sqrt(1.0 / c)"],
    "divide_by_constant": ["a / 4.0", "a * 0.25", "0.25 * a", "torch.div(a, 4)", "a.mul(0.25)"],
    "divide_by_tensor": ["a / c", "a * (1.0 / c)", "a * torch.reciprocal(c)", "torch.div(a, c)"],
    "subtract": ["a - b", "a + (-b)", "-(b - a)", "torch.sub(a, b)", "torch.add(a, b, alpha=-1)", "-b + a"],
    "product_order": ["(a * b) * c", "a * (b * c)", "(c * a) * b", "torch.mul(torch.mul(b, c), a)"],
    "sum_order": ["(a + b) + (c + d)", "a + (b + (c + d))", "d + c + b + a", "(a + d) + (b + c)"],
    "mixed_chain": ["a * b + c - d", "c + b * a - d", "-(d - c) + a * b", "(b * a - d) + c"],
    "constant_folding": ["a * 2.0 * 3.0 + 1.0 + 2.0", "a * 6.0 + 3.0", "3.0 + 6.0 * a", "a * 3.0 * 2.0 + 3.0"],
    "signs": ["(-a) * b", "-(a * b)", "a * (-b)", "a * b * -1.0"],
    "scaled_negation": ["a * -0.5", "-(0.5 * a)", "-a / 2.0", "a / -2.0"],
    "clamp": ["torch.clamp(a, -0.5, 0.5)", "torch.clamp(torch.clamp(a, min=-0.5), max=0.5)",
              "F.hardtanh(a, -0.5, 0.5)", "a.clamp_min(-0.5).clamp_max(0.5)"],
    "relu": ["torch.relu(a)", "torch.clamp(a, min=0.0)", "torch.maximum(a, torch.zeros_like(a))",
             "torch.where(a > 0, a, torch.zeros_like(a))", "F.relu(a)"],
    "sigmoid": ["torch.sigmoid(a)", "1.0 / (1.0 + torch.exp(-a))", "torch.reciprocal(torch.exp(-a) + 1.0)"],
    "log1p": ["torch.log1p(d)", "torch.log(1.0 + d)", "torch.log(d + 1.0)"],
    "expm1": ["torch.expm1(a)", "torch.exp(a) - 1.0"],
    "scalar_out_of_matmul": ["(m * 0.5) @ m.T", "(m @ m.T) * 0.5", "0.5 * torch.matmul(m, m.t())"],
    "sigmoid_via_tanh": ["torch.sigmoid(d)", "0.5 * (torch.tanh(0.5 * d) + 1.0)", "0.5 * torch.tanh(d / 2) + 0.5"],
    "epsilon_guards": ["m / m.norm(dim=1, keepdim=True)", "F.normalize(m, dim=1)",
                       "m / (torch.sqrt((m * m).sum(dim=1, keepdim=True)) + 1e-8)"],
    "scale_inside_product": ["torch.tanh(a / 3.0) * b", "b * torch.tanh(a * (1.0 / 3.0))"],
}
# look-alike -> (the group it imitates, an expression computing something else)
DIFFERENT = {
    "other_power": ("square", "a ** 3"),
    "sqrt_not_rsqrt": ("rsqrt", "torch.sqrt(c)"),
    "swapped_division": ("divide_by_tensor", "c / a"),
    "swapped_subtraction": ("subtract", "b - a"),
    "sum_not_product": ("product_order", "(a * b) + c"),
    "regrouped_product_and_sum": ("mixed_chain", "a * (b + c) - d"),
    "negated_input": ("relu", "torch.relu(-a)"),
    "capped_relu": ("relu", "torch.clamp(a, min=0.0, max=0.5)"),
    "one_minus_sigmoid": ("sigmoid", "1.0 / (1.0 + torch.exp(a))"),
    "log_not_log1p": ("log1p", "torch.log(d)"),
    "untransposed_matmul": ("scalar_out_of_matmul", "(m * 0.5) @ m"),
    "sigmoid_of_double": ("sigmoid_via_tanh", "0.5 * (torch.tanh(d) + 1.0)"),
    "large_floor": ("epsilon_guards", "m / torch.clamp(m.norm(dim=1, keepdim=True), min=10.0)"),
    "scale_moved_out_of_tanh": ("scale_inside_product", "torch.tanh(a) * b / 3.0"),
}


def _module(expr: str) -> str:
    return textwrap.dedent(f"""\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class Spelling(nn.Module):
            def forward(self, z):
                {OPERANDS}
                m = z[:, :6]
                return {expr}


        def get_inputs():
            return [torch.rand(6, 9)]
        """)


def _evaluate(expr: str):
    z = (torch.rand(6, 9, generator=torch.Generator().manual_seed(0)) - 0.5) * 4
    names = {"torch": torch, "F": F, "z": z}
    exec(OPERANDS, names)  # noqa: S102 - our own expressions
    names["m"] = z[:, :6]
    return eval(expr, names)  # noqa: S307


@pytest.fixture(scope="module")
def traced():
    codes = {f"{group}/{i}": _module(expr) for group, exprs in SAME.items() for i, expr in enumerate(exprs)}
    codes.update({f"diff/{name}": _module(expr) for name, (_, expr) in DIFFERENT.items()})
    failures: dict = {}
    fps = S.fingerprint_many(codes, timeout_s=60, failures=failures)
    missing = {k: failures[k].message for k, v in fps.items() if v is None}
    assert not missing, missing
    return fps


@pytest.mark.parametrize("group", sorted(SAME))
def test_spellings_of_one_computation_compute_the_same(group):
    first, *others = SAME[group]
    for expr in others:
        torch.testing.assert_close(_evaluate(expr), _evaluate(first), rtol=1e-5, atol=1e-6, msg=expr)


@pytest.mark.parametrize("group", sorted(SAME))
def test_spellings_of_one_computation_share_one_graph(traced, group):
    prints = {SAME[group][i]: traced[f"{group}/{i}"] for i in range(len(SAME[group]))}
    canonical = {expr: fp.canonical for expr, fp in prints.items()}
    assert len(set(canonical.values())) == 1, {expr: fp.ops for expr, fp in prints.items()}


@pytest.mark.parametrize("name", sorted(DIFFERENT))
def test_lookalike_keeps_its_own_graph(traced, name):
    group, expr = DIFFERENT[name]
    assert not torch.allclose(_evaluate(expr), _evaluate(SAME[group][0]), rtol=1e-5, atol=1e-6)
    original, lookalike = traced[f"{group}/0"], traced[f"diff/{name}"]
    assert lookalike.canonical != original.canonical
    assert S.structural_similarity(original, lookalike) < THRESHOLD, (original.ops, lookalike.ops)


def test_powers_are_named_by_exponent(traced):
    assert traced["square/0"].ops.get("square") == 1
    assert traced["rsqrt/1"].ops.get("rsqrt") == 1 and "sqrt" not in traced["rsqrt/1"].ops
    assert traced["cube/0"].ops.get("pow[3]") == 1 and "mul" not in traced["cube/0"].ops


def test_chains_are_one_node_with_folded_constants(traced):
    ops = traced["product_order/0"].ops
    assert ops.get("mul") == 1, ops               # (a*b)*c is one 3-operand product
    ops = traced["constant_folding/0"].ops
    assert ops.get("mul") == 1 and ops.get("add") == 1, ops
