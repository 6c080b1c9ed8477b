"""Structural v2, decompositions: a composite op and its spelled-out formula trace to the same graph.

Each case pairs a real KernelBench v0.1 problem (the composite, as the benchmark writes it) with a paraphrase
written here that spells it out (or the other way round), in another class with other sizes; every code is traced
for real, in the sandbox, in one batch. Each paraphrase is first checked to compute the same function as the
composite it stands for (both expressions are ours, so they run in-process). Look-alikes built on the same
problems compute something else and must stay below the flag threshold.
"""
from __future__ import annotations

import json
import math
import textwrap

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from kvdata.audit import structural as S  # noqa: E402

THRESHOLD = 0.9

# case id -> (KernelBench level-1 problem, the composite it computes, the paraphrase; both over `z`, and `q, k, v`
# for attention; `self.*` names come from the paraphrase's constructor below)
PARAPHRASES = {
    "gelu_formula": ("26_GELU_", "F.gelu(z)", "0.5 * z * (1.0 + torch.erf(z / math.sqrt(2.0)))"),
    "gelu_tanh_composite": ("88_MinGPTNewGelu", "F.gelu(z, approximate='tanh')",
                            "F.gelu(z, approximate='tanh')"),
    "gelu_tanh_cubed": ("88_MinGPTNewGelu", "F.gelu(z, approximate='tanh')",
                        "z * 0.5 * (1 + torch.tanh(0.7978845608028654 * (z + 0.044715 * z * z * z)))"),
    "silu": ("25_Swish", "F.silu(z)", "F.silu(z)"),
    "silu_exp": ("25_Swish", "F.silu(z)", "z / (1.0 + torch.exp(-z))"),
    "mean_sum_size": ("48_Mean_reduction_over_a_dimension", "torch.mean(z, dim=1)",
                      "z.sum(dim=self.dim) / z.size(self.dim)"),
    "layer_norm_manual": ("40_LayerNorm", "F.layer_norm(z, z.shape[1:], self.w, self.b)",
                          "(z - z.mean(dim=(1, 2, 3), keepdim=True)) / torch.sqrt("
                          "z.var(dim=(1, 2, 3), keepdim=True, unbiased=False) + 1e-5) * self.w + self.b"),
    "rms_norm_rsqrt": ("36_RMSNorm_", "z / torch.sqrt(torch.mean(z ** 2, dim=1, keepdim=True) + 1e-5)",
                       "z * torch.rsqrt(torch.mean(z * z, dim=1, keepdim=True) + self.eps)"),
    "l1_vector_norm": ("38_L1Norm_", "z / torch.mean(torch.abs(z), dim=1, keepdim=True)",
                       "z / (torch.linalg.vector_norm(z, ord=1, dim=1, keepdim=True) / z.shape[1])"),
    "l2_spelled_out": ("39_L2Norm_", "z / torch.norm(z, p=2, dim=1, keepdim=True)",
                       "z / torch.sqrt(torch.sum(z * z, dim=1, keepdim=True))"),
    "frobenius_vector_norm": ("37_FrobeniusNorm_", "z / torch.norm(z, p='fro')",
                              "z / torch.linalg.vector_norm(z)"),
    "frobenius_spelled_out": ("37_FrobeniusNorm_", "z / torch.norm(z, p='fro')", "z / (z ** 2).sum().sqrt()"),
    "softplus_log1p": ("29_Softplus", "F.softplus(z)", "torch.log1p(torch.exp(z))"),
    "softplus_log": ("29_Softplus", "F.softplus(z)", "torch.log(1.0 + torch.exp(z))"),
    "hardsigmoid_relu6": ("28_HardSigmoid", "F.hardsigmoid(z)", "F.relu6(z + 3.0) / 6.0"),
    "hardtanh_clamp": ("32_HardTanh", "F.hardtanh(z, -1.0, 1.0)", "torch.clamp(z, min=-1.0, max=1.0)"),
    "leaky_relu_where": ("20_LeakyReLU", "F.leaky_relu(z, 0.01)", "torch.where(z > 0, z, z * self.slope)"),
    "elu_where": ("31_ELU", "F.elu(z, 1.0)", "torch.where(z > 0, z, self.alpha * (torch.exp(z) - 1.0))"),
    "sigmoid_formula": ("21_Sigmoid", "torch.sigmoid(z)", "1.0 / (1.0 + torch.exp(-z))"),
    "softmax_manual": ("23_Softmax", "torch.softmax(z, dim=1)",
                       "torch.exp(z - z.max(dim=1, keepdim=True).values) / "
                       "torch.exp(z - z.max(dim=1, keepdim=True).values).sum(dim=1, keepdim=True)"),
    "log_softmax_logsumexp": ("24_LogSoftmax", "torch.log_softmax(z, dim=1)",
                              "z - torch.logsumexp(z, dim=1, keepdim=True)"),
    "attention_manual": ("97_ScaledDotProductAttention", "F.scaled_dot_product_attention(q, k, v)",
                         "torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1) @ v"),
    "batch_norm_manual": ("33_BatchNorm", "F.batch_norm(z, self.rm, self.rv, self.w, self.b, False)",
                          "(z - self.rm[None, :, None, None]) / torch.sqrt(self.rv[None, :, None, None] + 1e-5)"
                          " * self.w[None, :, None, None] + self.b[None, :, None, None]"),
    "instance_norm_manual": ("34_InstanceNorm", "F.instance_norm(z)",
                             "(z - z.mean(dim=(2, 3), keepdim=True)) / torch.sqrt("
                             "z.var(dim=(2, 3), keepdim=True, unbiased=False) + 1e-5)"),
    "group_norm_manual": ("35_GroupNorm_", "F.group_norm(z, 4, self.w, self.b)",
                          "((z.reshape(z.size(0), 4, -1) - z.reshape(z.size(0), 4, -1).mean(-1, keepdim=True))"
                          " / torch.sqrt(z.reshape(z.size(0), 4, -1).var(-1, keepdim=True, unbiased=False)"
                          " + 1e-5)).reshape(z.shape) * self.w[None, :, None, None] + self.b[None, :, None, None]"),
}
# case id -> (KernelBench problem, an expression that computes something else on the same skeleton)
LOOKALIKES = {
    "gelu_vs_relu": ("26_GELU_", "torch.relu(z)"),
    "gelu_vs_tanh_approximation": ("26_GELU_", "F.gelu(z, approximate='tanh')"),
    "swish_vs_sigmoid": ("25_Swish", "torch.sigmoid(z)"),
    "swish_vs_tanh_gate": ("25_Swish", "z * torch.tanh(z)"),
    "softmax_of_negation": ("23_Softmax", "torch.softmax(-z, dim=1)"),
    "layer_norm_vs_rms_norm": ("40_LayerNorm", "z * torch.rsqrt(torch.mean(z * z, dim=(1, 2, 3), keepdim=True)"
                                               " + 1e-5) * self.w + self.b"),
    "l1_vs_l2": ("38_L1Norm_", "z / torch.sqrt(torch.mean(z * z, dim=1, keepdim=True))"),
    "sigmoid_vs_tanh": ("21_Sigmoid", "torch.tanh(z)"),
    "softplus_of_negation": ("29_Softplus", "torch.log1p(torch.exp(-z))"),
    "leaky_relu_vs_relu": ("20_LeakyReLU", "torch.where(z > 0, z, torch.zeros_like(z))"),
    "rms_norm_vs_l1_norm": ("36_RMSNorm_", "z / torch.mean(torch.abs(z), dim=1, keepdim=True)"),
    "hardsigmoid_vs_sigmoid": ("28_HardSigmoid", "torch.sigmoid(z)"),
}
SHAPES = {"attention": "torch.rand(3, 5, 7, 16), torch.rand(3, 5, 9, 16), torch.rand(3, 5, 9, 16)",
          "4d": "torch.rand(3, 8, 6, 5)", "2d": "torch.rand(6, 40)"}
FOUR_D = {"40_LayerNorm", "33_BatchNorm", "34_InstanceNorm", "35_GroupNorm_", "36_RMSNorm_", "37_FrobeniusNorm_"}
CONSTRUCTOR = """
        self.dim, self.eps, self.slope, self.alpha = 1, 1e-5, 0.01, 1.0
        self.w = nn.Parameter(torch.rand({w_shape}))
        self.b = nn.Parameter(torch.rand({w_shape}))
        self.register_buffer("rm", torch.rand(8))
        self.register_buffer("rv", torch.rand(8) + 0.5)
"""


def _shape(problem: str) -> str:
    return "attention" if "Attention" in problem else "4d" if problem in FOUR_D else "2d"


def _w_shape(problem: str) -> tuple:
    return (8, 6, 5) if problem == "40_LayerNorm" else (8,)


def _paraphrase(problem: str, expr: str) -> str:
    shape = _shape(problem)
    args = "q, k, v" if shape == "attention" else "z"
    w_shape = ", ".join(map(str, _w_shape(problem)))
    return textwrap.dedent(f"""\
        import math
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class Rewritten(nn.Module):
            def __init__(self):
                super().__init__()
        """) + CONSTRUCTOR.format(w_shape=w_shape) + textwrap.dedent(f"""
            def forward(self, {args}):
                return {expr}


        def get_inputs():
            return [{SHAPES[shape]}]


        def get_init_inputs():
            return []
        """)


@pytest.fixture(scope="module")
def kernelbench(shared_data) -> dict:
    path = shared_data / "kernelbench" / "kernelbench_v0.1.jsonl"
    rows = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return {r["name"]: r["code"] for r in rows if r["level"] == 1}


@pytest.fixture(scope="module")
def traced(kernelbench):
    problems = {p for p, *_ in PARAPHRASES.values()} | {p for p, _ in LOOKALIKES.values()}
    codes = {f"kb/{p}": kernelbench[p] for p in problems}
    codes.update({f"para/{case}": _paraphrase(p, expr) for case, (p, _, expr) in PARAPHRASES.items()})
    codes.update({f"look/{case}": _paraphrase(p, expr) for case, (p, expr) in LOOKALIKES.items()})
    failures: dict = {}
    fps = S.fingerprint_many(codes, timeout_s=60, failures=failures)
    return fps, failures


def _evaluate(expr: str, problem: str):
    """Our own expression (composite or paraphrase) on fixed small inputs, in-process."""
    shape = _shape(problem)
    gen = torch.Generator().manual_seed(0)
    dims = {"attention": [(3, 5, 7, 16), (3, 5, 9, 16), (3, 5, 9, 16)], "4d": [(3, 8, 6, 5)], "2d": [(6, 40)]}
    inputs = [torch.rand(s, generator=gen) + 0.1 for s in dims[shape]]
    w_shape = _w_shape(problem)

    class Holder:
        dim, eps, slope, alpha = 1, 1e-5, 0.01, 1.0
        w = torch.rand(w_shape, generator=torch.Generator().manual_seed(1))
        b = torch.rand(w_shape, generator=torch.Generator().manual_seed(2))
        rm = torch.rand(8, generator=torch.Generator().manual_seed(3))
        rv = torch.rand(8, generator=torch.Generator().manual_seed(4)) + 0.5

    names = {"torch": torch, "F": F, "math": math, "self": Holder()}
    if shape == "attention":
        names.update(q=inputs[0], k=inputs[1], v=inputs[2])
    else:
        names["z"] = (inputs[0] - 0.5) * 6      # both signs, past the clamps' corners
    return eval(expr, names)  # noqa: S307 - our own expressions


@pytest.mark.parametrize("case", sorted(PARAPHRASES))
def test_paraphrase_fixture_computes_the_composite(case):
    problem, composite, paraphrase = PARAPHRASES[case]
    torch.testing.assert_close(_evaluate(paraphrase, problem), _evaluate(composite, problem), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", sorted(PARAPHRASES))
def test_composite_and_spelled_out_form_meet(traced, case):
    fps, failures = traced
    problem = PARAPHRASES[case][0]
    ref, para = fps[f"kb/{problem}"], fps[f"para/{case}"]
    assert ref is not None, failures.get(f"kb/{problem}")
    assert para is not None, failures.get(f"para/{case}")
    assert S.structural_similarity(ref, para) >= THRESHOLD, (ref.ops, para.ops)


@pytest.mark.parametrize("case", sorted(LOOKALIKES))
def test_lookalike_stays_below_threshold(traced, case):
    fps, failures = traced
    problem = LOOKALIKES[case][0]
    look = fps[f"look/{case}"]
    assert look is not None, failures.get(f"look/{case}")
    assert S.structural_similarity(fps[f"kb/{problem}"], look) < THRESHOLD, look.ops


def test_lookalike_fixtures_compute_something_else():
    for case, (problem, expr) in LOOKALIKES.items():
        composite = next(c for p, c, _ in PARAPHRASES.values() if p == problem)
        a, b = _evaluate(expr, problem), _evaluate(composite, problem)
        assert not torch.allclose(a, b, rtol=1e-5, atol=1e-6), case


def test_decomposed_ops_are_what_the_fingerprint_counts(traced):
    """GELU is traced through its formula (erf, no gelu op), the source count keeps the one op the code wrote."""
    fps, _ = traced
    gelu = fps["kb/26_GELU_"].largest
    assert "gelu" not in gelu.ops and gelu.ops.get("erf") == 1
    assert gelu.source_ops == {"gelu": 1} and gelu.n_source_ops == 1
    norm = fps["kb/40_LayerNorm"].largest
    assert "layer_norm" not in norm.ops and norm.ops.get("rsqrt") == 1 and norm.source_ops == {"layer_norm": 1}
