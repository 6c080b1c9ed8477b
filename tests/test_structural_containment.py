"""Structural v2, containment: a benchmark's graph found inside a larger training graph.

Real KernelBench v0.1 level-2 problems, fused here into bigger models (``tests/structural/containment/``: with
renamed parts, a composite spelled another way, other sizes), must be found inside them; the same model with one op
of the task swapped, and real unrelated KernelBench level-3 models, must not. All codes are traced for real in the
sandbox, in one batch.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvdata.audit import structural as S

THRESHOLD = 0.9
UNRELATED_MAX = 0.7        # shared normalisation layers alone reach about half
FIXTURES = Path(__file__).parent / "structural" / "containment"
# benchmark problem (level 2) -> the fixture model it is fused into
FUSED = {
    "1_Conv2D_ReLU_BiasAdd": "fused_conv_relu_biasadd",
    "88_Gemm_GroupNorm_Swish_Multiply_Swish": "fused_gemm_groupnorm_swish",
    "34_ConvTranspose3d_LayerNorm_GELU_Scaling": "fused_convtranspose_layernorm_gelu",
}
SWAPPED = {"1_Conv2D_ReLU_BiasAdd": "fused_conv_sigmoid_biasadd"}      # the task with ReLU -> sigmoid
UNRELATED = ["4_LeNet5", "44_MiniGPTBlock", "1_MLP", "35_LSTM", "8_ResNetBasicBlock"]     # level 3
SINGLE_OPS = ["19_ReLU", "23_Softmax", "26_GELU_", "40_LayerNorm"]                       # level 1


@pytest.fixture(scope="module")
def traced(shared_data):
    path = shared_data / "kernelbench" / "kernelbench_v0.1.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    by_name = {(r["level"], r["name"]): r["code"] for r in rows}
    codes = {f"kb2/{n}": by_name[(2, n)] for n in FUSED}
    codes.update({f"kb3/{n}": by_name[(3, n)] for n in UNRELATED})
    codes.update({f"kb1/{n}": by_name[(1, n)] for n in SINGLE_OPS})
    codes.update({f"fix/{p.stem}": p.read_text() for p in sorted(FIXTURES.glob("*.py"))})
    failures: dict = {}
    fps = S.fingerprint_many(codes, timeout_s=120, failures=failures)
    missing = {k: failures[k].message for k, v in fps.items() if v is None}
    assert not missing, missing
    return fps


@pytest.mark.parametrize("problem", sorted(FUSED))
def test_task_fused_into_a_bigger_model_is_contained(traced, problem):
    bench, model = traced[f"kb2/{problem}"], traced[f"fix/{FUSED[problem]}"]
    assert model.largest.n_ops >= bench.largest.n_ops + 5          # really a bigger model ...
    assert S.structural_similarity(bench, model) < 0.5               # ... that whole-graph similarity misses
    assert S.structural_containment(bench, model) >= THRESHOLD


@pytest.mark.parametrize("problem", sorted(SWAPPED))
def test_task_with_one_op_swapped_is_not_contained(traced, problem):
    score = S.structural_containment(traced[f"kb2/{problem}"], traced[f"fix/{SWAPPED[problem]}"])
    assert score < THRESHOLD
    # it shares the conv and the bias add, so it is not zero either: the score is graded
    assert score > 0.0


@pytest.mark.parametrize("problem", sorted(FUSED))
def test_unrelated_models_do_not_contain_the_task(traced, problem):
    for name in UNRELATED:
        assert S.structural_containment(traced[f"kb2/{problem}"], traced[f"kb3/{name}"]) < UNRELATED_MAX, name
    for other, model in FUSED.items():
        if other != problem:
            assert S.structural_containment(traced[f"kb2/{problem}"], traced[f"fix/{model}"]) < UNRELATED_MAX, model


def test_single_operator_benchmarks_are_never_contained(traced):
    """A lone ReLU or LayerNorm is inside most models: too small to be evidence, so containment is 0."""
    for name in SINGLE_OPS:
        bench = traced[f"kb1/{name}"]
        assert not S.containment_eligible(bench.largest)
        for model in list(FUSED.values()) + ["fused_conv_sigmoid_biasadd"]:
            assert S.structural_containment(bench, traced[f"fix/{model}"]) == 0.0
    # ... although their ops are there: the model does compute a ReLU
    assert "relu" in traced["fix/fused_conv_relu_biasadd"].ops


def test_a_graph_contains_itself(traced):
    for problem in FUSED:
        fp = traced[f"kb2/{problem}"]
        assert S.structural_containment(fp, fp) == 1.0


def test_containment_pairs_agree_with_the_pairwise_score(traced):
    bench = {k: v for k, v in traced.items() if k.startswith(("kb1/", "kb2/"))}
    train = {k: v for k, v in traced.items() if k.startswith(("kb3/", "fix/"))}
    pairs = S.containment_pairs(bench, train, threshold=THRESHOLD)
    assert {(b, t) for b, t, _ in pairs} == {(f"kb2/{p}", f"fix/{m}") for p, m in FUSED.items()}
    low = S.containment_pairs(bench, train, threshold=0.2)
    assert len(low) > len(pairs)
    for b, t, s in low:
        assert s == pytest.approx(S.structural_containment(bench[b], train[t]), abs=1e-6)
        assert not b.startswith("kb1/")
    order = [b for b, _, _ in low]
    assert order == sorted(order, key=list(bench).index)           # grouped by benchmark item, in input order
