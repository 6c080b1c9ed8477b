"""Which pairs the behavioural prober runs (kvdata.audit.candidates)."""
from kvdata.audit.candidates import op_overlap_pairs, probe_candidates
from kvdata.audit.pairs import PairScores


def test_top_k_by_each_measure_whatever_the_values():
    pairs = [PairScores("b", f"t{i}", jaccard=0.1 + i / 100) for i in range(10)]
    pairs += [PairScores("b", "cos", cosine=0.3), PairScores("b", "zero", jaccard=0.0)]
    got = probe_candidates(pairs, {}, {}, top_k=3)
    assert got == sorted([("b", "t9"), ("b", "t8"), ("b", "t7"), ("b", "cos")])


def test_op_overlap_ranks_a_row_by_its_best_graph():
    bench = {("b", 0): {"conv2d": 1, "relu": 1, "add": 1}}
    train = {("utils", 0): {"embedding": 3, "matmul": 2},          # another module of the same file
             ("utils", 1): {"conv2d": 1, "relu": 1, "add": 1},     # the task, buried in it
             ("other", 0): {"conv2d": 1, "sigmoid": 1, "mul": 2}}
    pairs = op_overlap_pairs(bench, train, floor=0.5, top=5)
    assert [(b, t) for b, t, _ in pairs] == [(("b", 0), ("utils", 1))]
    assert probe_candidates([], bench, train, top_ops=5) == [("b", "utils")]


def test_only_pairs_with_something_to_probe_on_both_sides():
    pairs = [PairScores("b", "hip", jaccard=0.9), PairScores("b", "torch", jaccard=0.8)]
    assert probe_candidates(pairs, {}, {}, probeable=({"b"}, {"torch"})) == [("b", "torch")]


def test_probe_forecast_counts_pairs_by_level_and_says_how_to_trim():
    from kvdata.audit.steps import PROBE_SECONDS, probe_forecast

    todo = [("b1", "t1"), ("b1", "t2"), ("b3", "t1")]
    text = probe_forecast(todo, {"b1": 1, "b3": 3}, workers=2)
    assert "3 pairs to probe (level 1: 2, level 3: 1)" in text and "--levels 1,2" in text
    minutes = (2 * PROBE_SECONDS[1] + PROBE_SECONDS[3]) / 2 / 60
    assert f"about {minutes:.1f} min on 2 worker(s)" in text
