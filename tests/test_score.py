"""kvdata.score: estimators against brute force and closed forms, libraries' numbers, coverage, join errors,
the two harnesses' result formats."""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from kvdata.cli import main
from kvdata.score import JoinError, ResultsFormatError, by_model, parse_counts, read_results, score
from kvdata.score.compare import compare_counts, mcnemar_exact
from kvdata.score.intervals import binomial_interval, bootstrap_interval, cluster_robust_se, estimate
from kvdata.score.metrics import metrics_for, pass_at_k
from kvdata.score.records import Attempt

INPUTS = Path(__file__).parent / "score_inputs"


def _table(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


# ----------------------------------------------------------------- estimators
def test_pass_at_k_equals_brute_force_over_k_subsets():
    rng = np.random.default_rng(0)
    for _ in range(60):
        n = int(rng.integers(1, 9))
        c = int(rng.integers(0, n + 1))
        outcomes = [True] * c + [False] * (n - c)
        for k in range(1, n + 1):
            subsets = list(itertools.combinations(range(n), k))
            brute = sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)
            assert pass_at_k(n, c, k) == pytest.approx(brute, abs=1e-12), (n, c, k)


def test_pass_at_k_per_model_is_the_mean_of_the_task_estimates():
    attempts = [Attempt("m", f"t{t}", a, True, bool(ok)) for t, row in enumerate([[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 0]])
                for a, ok in enumerate(row)]
    r = by_model(attempts)["m"]
    metric = {m.name: m for m in metrics_for(r)}
    want = np.mean([pass_at_k(4, 2, 2), pass_at_k(4, 0, 2), pass_at_k(4, 3, 2)])
    assert float(metric["pass@2"].aggregate(metric["pass@2"].per_task(r))) == pytest.approx(want)
    assert "pass@4" in metric and "pass@5" not in metric
    assert float(metric["corr@1"].aggregate(metric["corr@1"].per_task(r))) == pytest.approx(2 / 3)


def _wilson_closed_form(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize("k,n", [(13, 31), (9, 31), (0, 31), (31, 31), (61, 184), (1, 5)])
def test_wilson_and_clopper_pearson_match_closed_forms_and_statsmodels(k, n):
    from scipy.stats import beta
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = binomial_interval(k, n, "wilson")
    assert (lo, hi) == pytest.approx(_wilson_closed_form(k, n), abs=1e-9)
    assert (lo, hi) == pytest.approx(proportion_confint(k, n, method="wilson"), abs=1e-12)
    lo, hi = binomial_interval(k, n, "clopper-pearson")
    cp = (0.0 if k == 0 else beta.ppf(0.025, k, n - k + 1), 1.0 if k == n else beta.ppf(0.975, k + 1, n - k))
    assert (lo, hi) == pytest.approx(cp, abs=1e-9)


def test_mcnemar_exact_is_the_binomial_test_on_discordant_tasks():
    from scipy.stats import binomtest

    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b = rng.random(31) < 0.45, rng.random(31) < 0.3
        p, (only_a, only_b) = mcnemar_exact(a, b)
        assert (only_a, only_b) == (int((a & ~b).sum()), int((~a & b).sum()))
        want = 1.0 if only_a + only_b == 0 else binomtest(only_a, only_a + only_b, 0.5).pvalue
        assert p == pytest.approx(want, abs=1e-12)


def test_fisher_and_newcombe_from_counts_match_scipy_and_the_published_formula():
    from scipy.stats import fisher_exact

    a, b = parse_counts("ours=13/31,gpt5=9/31")
    c = compare_counts(a.as_results(), b.as_results())
    assert c.p_value == pytest.approx(fisher_exact([[13, 18], [9, 22]]).pvalue)
    # Newcombe's method 10: the difference's bounds from each proportion's Wilson interval
    l1, u1 = _wilson_closed_form(13, 31)
    l2, u2 = _wilson_closed_form(9, 31)
    p1, p2 = 13 / 31, 9 / 31
    low = p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = p1 - p2 + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    assert (c.low, c.high) == pytest.approx((low, high), abs=1e-9)
    assert c.mde > 0.25 and c.tasks_for_5_points > 1000     # 31 tasks cannot see 5 points


def test_counts_parse_errors_are_clear():
    for bad in ("a=14/13", "a=-1/31", "a=13/0", "a=13.5/31", "a", "a=1/3,a=2/3", "a=33.3%/7"):
        with pytest.raises(ValueError, match="--counts"):
            parse_counts(bad)
    assert parse_counts("rl=33.2%/184")[0].passed == 61


def test_cluster_robust_se_is_statsmodels_and_wider_than_naive_for_correlated_attempts():
    rng = np.random.default_rng(5)
    p = rng.beta(0.5, 0.5, 40)                      # tasks differ a lot: attempts of one task agree
    attempts = [Attempt("m", f"t{t}", a, True, bool(rng.random() < p[t])) for t in range(40) for a in range(5)]
    r = by_model(attempts)["m"]
    se = cluster_robust_se(r, "correct")
    y = r.correct.ravel().astype(float)
    naive = y.std(ddof=1) / math.sqrt(y.size)
    assert se > 1.3 * naive


# ----------------------------------------------------------------- coverage
def _coverage_wilson(n_tasks, p, sims, rng):
    hits = 0
    for _ in range(sims):
        k = int(rng.binomial(n_tasks, p))
        lo, hi = binomial_interval(k, n_tasks)
        hits += lo <= p <= hi
    return hits / sims


@pytest.mark.parametrize("n_tasks", [31, 184])
def test_wilson_covers_the_true_rate_93_to_97_percent(n_tasks):
    rng = np.random.default_rng(11 + n_tasks)
    for p in (0.3, 0.42):
        cov = _coverage_wilson(n_tasks, p, 2000, rng)
        assert 0.93 <= cov <= 0.97, (n_tasks, p, cov)


@pytest.mark.parametrize("n_tasks", [31, 184])
def test_bootstrap_pass_at_k_covers_the_true_value_93_to_97_percent(n_tasks):
    from scipy.special import beta as beta_fn

    rng = np.random.default_rng(23 + n_tasks)
    a, b, attempts, k = 2.0, 3.0, 5, 2
    truth = 1 - beta_fn(a, b + k) / beta_fn(a, b)        # E[1 - (1 - p)^k], p ~ Beta(a, b) over tasks
    hits = 0
    sims = 2000
    for s in range(sims):
        c = rng.binomial(attempts, rng.beta(a, b, n_tasks))
        values = np.array([pass_at_k(attempts, int(x), k) for x in c])
        lo, hi, _ = bootstrap_interval((values,), lambda x, axis: np.mean(x, axis=axis), resamples=999, seed=s)
        hits += lo <= truth <= hi
    assert 0.93 <= hits / sims <= 0.97, hits / sims


# ----------------------------------------------------------------- paired comparisons and the report
def _two_models(tmp_path, n=31, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(n):
        skill = rng.random()
        for model, boost in (("A", 0.25), ("B", 0.0)):
            for a in range(3):
                ok = rng.random() < min(1.0, skill + boost)
                rows.append({"model": model, "task": f"task{t:02d}", "attempt": a, "compiled": True, "correct": ok,
                             "speedup": float(rng.lognormal(0.1, 0.3)) if ok else None})
    return _table(tmp_path / "results.jsonl", rows)


def test_paired_comparison_uses_the_same_tasks_and_holm(tmp_path):
    report = score(read_results(_two_models(tmp_path)))
    names = [m.model for m in report.models]
    assert names == ["A", "B"]
    corr = report.comparisons["corr@1"][0]
    assert corr.paired and corr.test == "McNemar exact" and corr.n_tasks == 31
    assert corr.low <= corr.difference <= corr.high and corr.p_holm == pytest.approx(corr.p_value)
    assert corr.mde is not None and corr.tasks_for_5_points > 31
    speed = report.comparisons["geomean_speedup"][0]
    assert speed.low <= speed.difference <= speed.high and speed.difference > 0


def test_cli_writes_json_markdown_html_and_a_forest_plot(tmp_path):
    res = CliRunner().invoke(main, ["score", str(_two_models(tmp_path)), "--out", str(tmp_path / "out"),
                                    "--resamples", "500"])
    assert res.exit_code == 0, res.output
    assert res.output.count("31 tasks x 3 attempts") == 2
    data = json.loads((tmp_path / "out" / "score.json").read_text())
    assert {m["model"] for m in data["models"]} == {"A", "B"}
    assert (tmp_path / "out" / "forest.png").stat().st_size > 1000
    md = (tmp_path / "out" / "report.md").read_text()
    assert "McNemar exact" in md and "pass@3" in md
    assert "<table>" in (tmp_path / "out" / "report.html").read_text()


# ----------------------------------------------------------------- join errors
def test_join_errors_say_how_many_rows_and_which(tmp_path):
    base = [{"model": m, "task": t, "compiled": True, "correct": True} for m in ("A", "B") for t in ("t1", "t2", "t3")]
    # a task missing in one model
    missing = _table(tmp_path / "missing.jsonl", [r for r in base if not (r["model"] == "B" and r["task"] == "t3")])
    with pytest.raises(JoinError, match=r"not scored on the same tasks .*: 1 — t3 \(only A\)"):
        score(read_results(missing))
    # duplicate attempts
    dup = _table(tmp_path / "dup.jsonl", base + [dict(base[0], attempt=0), dict(base[0], attempt=0)])
    with pytest.raises(JoinError, match="duplicate attempts"):
        score(read_results(dup))
    # malformed rows: the line numbers
    bad = _table(tmp_path / "bad.jsonl", base + [{"model": "A", "task": "t4", "compiled": "maybe", "correct": True}])
    with pytest.raises(JoinError, match=r"rows that are not valid results: 1 — bad.jsonl:line 7 task 't4' \(compiled='maybe'\)"):
        read_results(bad)
    # ids the clean list does not know (an audit folder lists every benchmark id)
    import pyarrow as pa
    import pyarrow.parquet as pq

    audit = tmp_path / "audit"
    audit.mkdir()
    pq.write_table(pa.table({"bench_id": ["bench/t1", "bench/t2"], "clean": [True, False]}), audit / "summary.parquet")
    from kvdata.score.clean import read_labels

    with pytest.raises(JoinError, match=r"not found among the audit's benchmark ids .*: 1 — t3"):
        score(read_results(_table(tmp_path / "ok.jsonl", base)), labels=read_labels(audit=audit))
    # the CLI: a clear error and a non-zero exit
    res = CliRunner().invoke(main, ["score", str(missing), "--out", str(tmp_path / "o")])
    assert res.exit_code != 0 and "t3 (only A)" in res.output


def test_unjudged_reverify_rows_are_an_error_unless_told(tmp_path):
    rows = [{"id": f"s{i}", "task_name": f"t{i}", "status": st, "correct": st == "correct", "compile_ok": True}
            for i, st in enumerate(["correct", "incorrect", "toolchain_error"])]
    path = _table(tmp_path / "reverify-m.jsonl", rows)
    with pytest.raises(JoinError, match=r"did not judge.*: 1 — s2 \(toolchain_error\)"):
        read_results(path)
    assert len(read_results(path, unjudged="drop")) == 2
    kept = read_results(path, unjudged="fail")
    assert [a.correct for a in kept] == [True, False, False] and kept[0].model == "m"


# ----------------------------------------------------------------- harness formats
def test_kernelbench_eval_results_both_formats(shared_data):
    run = INPUTS / "kernelbench" / "current" / "runs" / "demo_level1"
    baseline = INPUTS / "kernelbench" / "baseline" / "results" / "timing" / "H100_Modal" / "baseline_time_torch.json"
    attempts = read_results(run, bench_path=shared_data / "kernelbench" / "kernelbench_v0.1.jsonl", baseline=baseline)
    assert attempts[0].model == "demo_level1"
    assert all(a.task.startswith("kernelbench/v0.1/level1/") for a in attempts)
    timed = [a for a in attempts if a.speedup is not None]
    assert timed and all(a.correct for a in timed)
    base = json.loads(baseline.read_text())["level1"]
    first = timed[0]
    name = first.task.rsplit("/", 1)[1]
    runtime = json.loads((run / "eval_results.json").read_text())[first.origin.rsplit(" ", 1)[1]][first.attempt]["runtime"]
    assert first.speedup == pytest.approx(base[name + ".py"]["mean"] / runtime)
    legacy = read_results(INPUTS / "kernelbench" / "legacy_pre_2025-10" / "eval_results.json", level=1)
    assert {a.attempt for a in legacy} == {0} and len(legacy) == len(json.loads(
        (INPUTS / "kernelbench" / "legacy_pre_2025-10" / "eval_results.json").read_text()))
    with pytest.raises(ResultsFormatError, match="--level"):
        read_results(INPUTS / "kernelbench" / "legacy_pre_2025-10" / "eval_results.json")


def test_geak_eval_results_tritonbench_and_rocmbench(shared_data):
    gens = INPUTS / "geak_eval" / "current_tbg" / "gens"
    every = read_results(gens)                                  # the folder: its *_all_passes.json
    per_pass = read_results(gens / "gen_0") + read_results(gens / "gen_1")
    assert sorted((a.task, a.attempt, a.correct, a.speedup) for a in every) == \
        sorted((a.task, a.attempt, a.correct, a.speedup) for a in per_pass)
    assert all(a.speedup is None for a in every if not a.correct)
    rocm = read_results(INPUTS / "geak_eval" / "current_rocm" / "rocm_pass",
                        bench_path=shared_data / "geak_eval" / "ROCm_eval_complex_instruct_v1.json")
    perf = json.loads((INPUTS / "geak_eval" / "current_rocm" / "rocm_pass" / "out_perf_0.json").read_text())
    timed = {a.task: a.speedup for a in rocm if a.speedup is not None}
    assert sorted(timed.values()) == sorted(v["ms"] for v in perf.values() if v and v["ms"] >= 0)
    legacy = read_results(INPUTS / "geak_eval" / "legacy_no_speedup" / "gen_0")
    assert legacy and all(a.speedup is None for a in legacy)


def test_reverify_results_parquet_are_read_by_their_schema(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kvdata.schema import RESULT_SCHEMA

    rows = [{f.name: None for f in RESULT_SCHEMA} | {"id": f"s{i}", "task_name": "t" + str(i // 2), "status": st,
                                                     "correct": st == "correct", "compile_ok": st != "compile_error",
                                                     "speedup": 1.5 if st == "correct" else None}
            for i, st in enumerate(["correct", "incorrect", "compile_error", "correct"])]
    path = tmp_path / "reverify-ours.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=RESULT_SCHEMA), path)
    attempts = read_results(path)
    assert [(a.model, a.task, a.attempt, a.compiled, a.correct) for a in attempts] == [
        ("ours", "t0", 0, True, True), ("ours", "t0", 1, True, False),
        ("ours", "t1", 0, False, False), ("ours", "t1", 1, True, True)]
    r = by_model(attempts)["ours"]
    est = estimate(r, next(m for m in metrics_for(r) if m.name == "geomean_speedup"))
    assert est.value == pytest.approx(1.5)
