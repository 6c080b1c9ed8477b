"""End to end on this box: re-verify the bundled Triton samples as two "models" (the samples, and a copy with
planted failures), audit them against (a slice of) KernelBench, and `kvdata score` the two with --audit."""
from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from kvdata.cli import main

# tasks of the bundled Triton sample whose kernels are swapped in the planted copy: each gets another
# elementwise task's kernel, so it runs and returns the wrong function
PLANTED = {"relu": "sigmoid", "tanh": "exp", "softplus": "silu", "clamp": "abs_val"}


def _run(args):
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, (args[0], res.output[-3000:])
    return res


def test_reverify_audit_then_score_two_models(tmp_path, shared_data):
    _run(["build", "--sample", "--out", str(tmp_path / "built"), "--quiet", "--workers", "0"])
    rows = pq.read_table(sorted((tmp_path / "built" / "data" / "triton").glob("*.parquet"))).to_pylist()
    by_task = {r["task_name"]: r for r in rows}
    assert set(PLANTED) | set(PLANTED.values()) <= set(by_task)
    import pyarrow as pa

    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "samples.parquet")
    planted = [dict(r, kernel_code=by_task[PLANTED[r["task_name"]]]["kernel_code"]) if r["task_name"] in PLANTED
               else r for r in rows]
    pq.write_table(pa.Table.from_pylist(planted), tmp_path / "planted.parquet")
    for name in ("samples", "planted"):
        _run(["reverify", "--input", str(tmp_path / f"{name}.parquet"), "--out", str(tmp_path / f"reverify-{name}.parquet"),
              "--backend", "triton-interpreter", "--seeds", "1", "--workers", "2",
              "--cache-dir", str(tmp_path / "cache")])

    # the audit: the samples' references as the benchmark side, KernelBench level 1's activations and norms as
    # the "training" side (all of KernelBench traces for minutes; these 22 are what the samples resemble)
    (tmp_path / "bench.jsonl").write_text("".join(json.dumps({"id": r["task_name"], "code": r["pytorch_code"]}) + "\n"
                                                  for r in rows))
    kb = [json.loads(line) for line in (shared_data / "kernelbench" / "kernelbench_v0.1.jsonl").read_text().splitlines()]
    (tmp_path / "kb.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kb
                                               if r["level"] == 1 and 19 <= r["problem_id"] <= 40))
    _run(["audit-overlap", "--bench", "generic", "--bench-path", str(tmp_path / "bench.jsonl"), "--train",
          str(tmp_path / "kb.jsonl"), "--id-column", "name", "--code-column", "code", "--measures", "lexical,structural",
          "--out", str(tmp_path / "audit"), "--quiet", "--cache-dir", str(tmp_path / "acache")])
    clean = set((tmp_path / "audit" / "clean_tasks.txt").read_text().split())
    assert 0 < len(clean) < len(rows)

    res = _run(["score", f"samples={tmp_path / 'reverify-samples.parquet'}",
                f"planted={tmp_path / 'reverify-planted.parquet'}", "--audit", str(tmp_path / "audit"),
                "--out", str(tmp_path / "score"), "--resamples", "500", "--json"])
    report = json.loads(res.output)
    models = {m["model"]: m for m in report["models"]}
    assert set(models) == {"samples", "planted"} and {m["n_tasks"] for m in models.values()} == {len(rows)}
    verdicts = {n: {r["task_name"]: r["status"] for r in pq.read_table(tmp_path / f"reverify-{n}.parquet").to_pylist()}
                for n in ("samples", "planted")}
    lost = sorted(t for t in PLANTED if verdicts["samples"][t] == "correct" and verdicts["planted"][t] != "correct")
    assert lost, verdicts                                                   # the planted failures show
    for m in models.values():                                              # intervals
        e = m["metrics"]["correct_rate"]
        assert e["low"] <= e["value"] <= e["high"] and e["method"] == "wilson"
    assert models["samples"]["metrics"]["correct_rate"]["value"] == pytest.approx(
        sum(v == "correct" for v in verdicts["samples"].values()) / len(rows))
    (pair,) = report["comparisons"]["corr@1"]                              # the paired test
    assert pair["test"] == "McNemar exact" and tuple(pair["discordant"]) == (len(lost), 0)
    assert pair["difference"] == pytest.approx(len(lost) / len(rows))
    split = {s["model"]: s for s in report["clean"] if s["metric"] == "correct_rate"}   # clean / contaminated
    assert {s["n_clean"] for s in split.values()} == {len(clean)}
    assert {s["n_contaminated"] for s in split.values()} == {len(rows) - len(clean)}
    on_clean = sum(verdicts["samples"][t] == "correct" for t in clean) / len(clean)
    assert split["samples"]["clean"]["value"] == pytest.approx(on_clean)
    assert split["samples"]["p_contaminated_higher"] is not None
    md = (tmp_path / "score" / "report.md").read_text()
    assert "Clean and contaminated tasks" in md and "McNemar exact" in md
    assert (tmp_path / "score" / "forest.png").stat().st_size > 1000
