"""kvdata.score's report: intervals at 0% and 100% (a model right, or wrong, on every task) still give a report
and a plot; the report's one models × metrics table; the forest plot's width; when the few-discordant note
fires. Real files, real matplotlib; expectations from the inputs (statsmodels, scipy), not hard-coded."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from kvdata.cli import main
from kvdata.score import by_model
from kvdata.score.compare import ALPHA, FEW_DISCORDANT, compare_paired
from kvdata.score.intervals import Estimate, binomial_interval, bootstrap_interval
from kvdata.score.metrics import metrics_for
from kvdata.score.records import Attempt
from kvdata.score.report import FOREST_DPI, FOREST_WIDTH_IN, LABEL_CHARS, LABEL_LINES, _label, forest_plot
from kvdata.score.scoring import ModelScore, ScoreReport, ScoreSettings

PAGE_WIDTH_PX = 7.5 * 100          # a typical page: 7.5 in at 100 dpi


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _boundary_n() -> int:
    """A task count where statsmodels' Wilson interval misses 100% and 0% by an ulp (the reported crash), so
    the test exercises floating point, whichever statsmodels is installed; 14 where none does."""
    from statsmodels.stats.proportion import proportion_confint

    for n in range(10, 80):
        if proportion_confint(n, n, method="wilson")[1] < 1 and proportion_confint(0, n, method="wilson")[0] > 0:
            return n
    return 14


def _three_models(tmp_path: Path, n: int) -> tuple[Path, Path]:
    """``perfect`` compiles and is right on every attempt of every task, ``hopeless`` never compiles, ``mixed``
    in between; three attempts each (so comp@3 and corr@3 exist), speedups for the correct ones. And a
    clean list of every other task."""
    rng = np.random.default_rng(0)
    rows = []
    for t in range(n):
        for a in range(3):
            ok = bool(rng.random() < 0.5)
            for model, compiled, correct in (("perfect", True, True), ("hopeless", False, False),
                                             ("mixed", ok or a == 0, ok)):
                rows.append({"model": model, "task": f"t{t:02d}", "attempt": a, "compiled": compiled,
                             "correct": correct, "speedup": float(rng.lognormal(0, 0.4)) if correct else None})
    results = _write(tmp_path / "results.jsonl", rows)
    clean = tmp_path / "clean_tasks.txt"
    clean.write_text("".join(f"t{t:02d}\n" for t in range(0, n, 2)))
    return results, clean


def _estimates(data: dict):
    """Every (where, metric, estimate dict) in score.json: the models' and the clean split's."""
    for m in data["models"]:
        for name, e in m["metrics"].items():
            yield f"{m['model']}", name, e
    for s in data["clean"]:
        for part in ("all", "clean", "contaminated"):
            yield f"{s['model']} {part}", s["metric"], s[part]


# ----------------------------------------------------------------- 0% and 100%
@pytest.mark.parametrize("interval", ["wilson", "clopper-pearson"])
def test_models_right_and_wrong_on_every_task_get_a_report_a_plot_and_intervals_that_hold_them(tmp_path, interval):
    from PIL import Image
    from statsmodels.stats.proportion import proportion_confint

    n = _boundary_n()
    results, clean = _three_models(tmp_path, n)
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["score", str(results), "--clean-tasks", str(clean), "--interval", interval,
                                    "--resamples", "200", "--out", str(out)])
    assert res.exit_code == 0, res.output
    for name in ("score.json", "report.md", "report.html", "forest.png"):
        assert (out / name).stat().st_size > 0, name
    with Image.open(out / "forest.png") as im:
        assert im.format == "PNG"
    data = json.loads((out / "score.json").read_text())

    for where, metric, e in _estimates(data):
        if e["value"] is None:
            continue
        assert e["low"] <= e["value"] <= e["high"], (where, metric, e)
        if metric != "geomean_speedup":
            assert 0.0 <= e["low"] and e["high"] <= 1.0, (where, metric, e)
    for table in (data["comparisons"], data["clean_comparisons"]):
        for rows in table.values():
            for c in rows:
                assert c["low"] <= c["difference"] <= c["high"], c
    for s in data["clean"]:
        if s["low"] is not None:
            assert s["low"] <= s["difference"] <= s["high"], s

    sm = {"wilson": "wilson", "clopper-pearson": "beta"}[interval]
    models = {m["model"]: m["metrics"] for m in data["models"]}
    for metric in ("corr@3", "comp@3"):
        top = models["perfect"][metric]                       # n of n: the interval ends at exactly 1
        assert top["value"] == 1.0 and top["high"] == 1.0
        assert top["low"] == pytest.approx(proportion_confint(n, n, method=sm)[0], abs=1e-12)
        bottom = models["hopeless"][metric]                   # 0 of n: it starts at exactly 0
        assert bottom["value"] == 0.0 and bottom["low"] == 0.0
        assert bottom["high"] == pytest.approx(proportion_confint(0, n, method=sm)[1], abs=1e-12)
    md = (out / "report.md").read_text()
    assert "forest.png" in md and "Clean and contaminated tasks" in md


@pytest.mark.parametrize("method", ["wilson", "clopper-pearson"])
def test_binomial_intervals_contain_their_estimate_and_stay_in_0_1(method):
    for n in range(1, 121):
        for k in range(n + 1):
            low, high = binomial_interval(k, n, method)
            assert 0.0 <= low <= k / n <= high <= 1.0, (method, k, n, low, high)


def test_bootstrap_intervals_contain_their_statistic():
    rng = np.random.default_rng(2)
    mean = lambda x, axis: np.mean(x, axis=axis)          # noqa: E731
    for s in range(40):
        size = int(rng.integers(2, 12))
        values = (rng.random(size) < rng.random()).astype(float)     # small, lopsided samples of 0/1
        low, high, _ = bootstrap_interval((values,), mean, resamples=200, seed=s)
        assert low <= values.mean() <= high, (values, low, high)
        a, b = rng.random(size) < 0.9, rng.random(size) < 0.9
        low, high, _ = bootstrap_interval((a.astype(float), b.astype(float)),
                                          lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
                                          paired=True, resamples=200, seed=s)
        assert low <= a.mean() - b.mean() + 1e-12 and a.mean() - b.mean() - 1e-12 <= high, (a, b, low, high)


def test_forest_plot_draws_an_interval_that_misses_its_estimate(tmp_path):
    """The plot does not trust its input: an upper bound an ulp under 100% (what statsmodels gives) is drawn."""
    from PIL import Image

    below_one = float(np.nextafter(1.0, 0.0))
    est = Estimate(1.0, 0.9, below_one, "wilson", 14)
    zero = Estimate(0.0, float(np.nextafter(0.0, 1.0)), 0.2, "wilson", 14)
    report = ScoreReport(ScoreSettings(), [ModelScore("m", 14, (1, 1), {"corr@1": est, "comp@1": zero})], {})
    path = forest_plot(report, tmp_path / "forest.png")
    with Image.open(path) as im:
        assert im.format == "PNG"


# ----------------------------------------------------------------- the report's tables
def _section(text: str, title: str, level: str = "## ") -> str:
    start = text.index(f"{level}{title}")
    end = text.find(f"\n{level}", start + 1)
    return text[start: end if end >= 0 else len(text)]


def _md_tables(section: str) -> list[list[list[str]]]:
    """The Markdown tables of a section, each a list of rows of stripped cells (separator rows left out)."""
    tables, current = [], None
    for line in section.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if current is None:
                current = []
                tables.append(current)
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                current.append(cells)
        else:
            current = None
    return tables


def _cell(e: dict, metric: str, n_tasks: int) -> str:
    if metric == "geomean_speedup":
        text = f"{e['value']:.2f}× [{e['low']:.2f}, {e['high']:.2f}]"
    else:
        text = f"{100 * e['value']:.1f} [{100 * e['low']:.1f}, {100 * e['high']:.1f}]"
    return text + (f" (n = {e['n']})" if e["n"] != n_tasks else "")


def test_report_has_one_models_by_metrics_table_with_value_and_interval_in_each_cell(tmp_path):
    results, _ = _three_models(tmp_path, 20)
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["score", str(results), "--resamples", "200", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "score.json").read_text())
    md = (out / "report.md").read_text()
    section = _section(md, "Metrics")
    assert "\n### " not in section                        # no table per metric
    (table,) = _md_tables(section)                         # one table
    header, rows = table[0], table[1:]
    models = {m["model"]: m for m in data["models"]}
    metrics = list(dict.fromkeys(n for m in data["models"] for n in m["metrics"]))
    assert len(metrics) > len(models)                      # so metrics are the rows, models the columns
    assert header == ["metric", *models] and [r[0] for r in rows] == metrics
    for row in rows:
        for model, cell in zip(header[1:], row[1:]):
            e = models[model]["metrics"].get(row[0])
            assert cell == ("–" if e is None else _cell(e, row[0], models[model]["n_tasks"])), (row[0], model)
    html = (out / "report.html").read_text()
    metrics_html = html[html.index("<h2>Metrics</h2>"): html.index("<h2>", html.index("<h2>Metrics</h2>") + 1)]
    assert metrics_html.count("<table>") == 1 and "<h3>" not in metrics_html
    comparisons = _section(md, "Comparisons")
    assert len(_md_tables(comparisons)) == 1               # the comparisons, too, in one table
    assert sum(len(v) for v in data["comparisons"].values()) == len(_md_tables(comparisons)[0]) - 1


def test_report_table_has_models_as_rows_when_they_outnumber_the_metrics(tmp_path):
    counts = {"a": (13, 31), "b": (9, 31), "c": (31, 31), "d": (0, 31)}
    spec = ",".join(f"{k}={p}/{n}" for k, (p, n) in counts.items())
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["score", "--counts", spec, "--out", str(out)])
    assert res.exit_code == 0, res.output
    (table,) = _md_tables(_section((out / "report.md").read_text(), "Metrics"))
    assert table[0] == ["model", "correct"] and [r[0] for r in table[1:]] == list(counts)
    for row in table[1:]:
        p, n = counts[row[0]]
        low, high = binomial_interval(p, n)
        assert row[1] == f"{100 * p / n:.1f} [{100 * low:.1f}, {100 * high:.1f}]"
    assert (out / "forest.png").stat().st_size > 0


# ----------------------------------------------------------------- the forest plot's size
def test_forest_plot_fits_a_page_with_many_models_and_long_names(tmp_path):
    from PIL import Image

    rng = np.random.default_rng(4)
    names = [f"org/model-{i}-instruct-sft-rl-checkpoint-{1000 * i}_with_a_long_suffix" for i in range(7)]
    rows = [{"model": m, "task": f"t{t:02d}", "attempt": a, "compiled": True, "correct": ok,
             "speedup": float(rng.lognormal(0, 0.3)) if ok else None}
            for m in names for t in range(24) for a in range(3) for ok in [bool(rng.random() < 0.6)]]
    results = _write(tmp_path / "results.jsonl", rows)
    clean = tmp_path / "clean.txt"
    clean.write_text("".join(f"t{t:02d}\n" for t in range(0, 24, 3)))
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["score", str(results), "--clean-tasks", str(clean), "--resamples", "200",
                                    "--compare", f"{names[0]}:{names[1]}", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert FOREST_WIDTH_IN * FOREST_DPI <= PAGE_WIDTH_PX
    with Image.open(out / "forest.png") as im:
        width, height = im.size
        dpi = round(im.info.get("dpi", (FOREST_DPI,))[0])      # PNG stores pixels per metre: 99.9998
    assert width <= PAGE_WIDTH_PX, width
    assert width / dpi <= 7.5, (width, dpi)
    assert height > 0
    for name in names:                                    # the axis labels are wrapped and cut
        label = _label(name)
        assert len(label.splitlines()) <= LABEL_LINES and all(len(x) <= LABEL_CHARS for x in label.splitlines())
    assert len({_label(n) for n in names}) == len(names)                    # and still tell the models apart
    assert _label("short") == "short"
    assert _label("family-7b-instruct-sft") != _label("family-7b-instruct-sft-rl")


# ----------------------------------------------------------------- the few-discordant note
def _paired(n: int, only_a: int, only_b: int, both: int):
    """Two models on ``n`` tasks, one attempt each: ``only_a`` tasks only A solves, ``only_b`` only B, ``both``
    both; their corr@1 comparison."""
    attempts = []
    for t in range(n):
        a_ok = t < only_a or only_a + only_b <= t < only_a + only_b + both
        b_ok = only_a <= t < only_a + only_b + both
        attempts += [Attempt("A", f"t{t:03d}", 0, True, a_ok), Attempt("B", f"t{t:03d}", 0, True, b_ok)]
    results = by_model(attempts)
    metric = next(m for m in metrics_for(results["A"]) if m.name == "corr@1")
    return compare_paired(results["A"], results["B"], metric, resamples=2000)


def _few_note(c) -> bool:
    return any("so few" in note or "fewer than" in note for note in c.notes)


@pytest.mark.parametrize("only_a,only_b", [(4, 0), (3, 1), (FEW_DISCORDANT - 1, 0), (FEW_DISCORDANT // 2, 1)])
def test_few_discordant_note_fires_when_few_tasks_differ(only_a, only_b):
    c = _paired(60, only_a, only_b, 20)
    assert c.discordant == (only_a, only_b) and sum(c.discordant) < FEW_DISCORDANT
    assert _few_note(c), c.notes


def test_few_discordant_note_stays_quiet_with_many_even_where_bootstrap_and_mcnemar_disagree():
    from scipy.stats import binomtest

    total, n = 76, 200                                    # the reported case: 76 discordant tasks
    disagree = None
    for only_a in range(total // 2, total + 1):           # the split where the two tests part ways at 5%
        c = _paired(n, only_a, total - only_a, 50)
        assert c.p_value == pytest.approx(binomtest(only_a, total, 0.5).pvalue, abs=1e-12)
        if (c.low > 0 or c.high < 0) != (c.p_value < ALPHA):
            disagree = c
            break
        assert not _few_note(c), c.notes
    assert disagree is not None, "no split of 76 discordant tasks where the interval and the test disagree"
    assert not _few_note(disagree), disagree.notes
    assert any("borderline" in note for note in disagree.notes), disagree.notes
    at_threshold = _paired(n, FEW_DISCORDANT, 0, 50)      # FEW_DISCORDANT itself is not few
    assert sum(at_threshold.discordant) == FEW_DISCORDANT and not _few_note(at_threshold)
    assert math.isfinite(at_threshold.p_value)


# ----------------------------------------------------------------- the power solvers at the edges
def test_power_solvers_survive_differences_without_spread_and_huge_effects():
    """Every task differing by the same 1/3 (three attempts, one more right) has a standard deviation of
    1e-16, not 0: the solver then failed to converge and int(NaN) stopped the whole run."""
    from statsmodels.stats.power import TTestPower

    from kvdata.score.compare import POWER, _tasks_needed, paired_mde

    differences = np.full(31, 2 / 3) - np.full(31, 1 / 3)
    assert paired_mde(differences, 31) == (None, None)
    two = TTestPower().solve_power(effect_size=None, nobs=2, alpha=ALPHA, power=POWER, alternative="two-sided")
    for huge in (1.5 * two, 2 * two):                    # two tasks already have the power: the fewest is 2
        assert _tasks_needed(round(huge, 6)) == 2
