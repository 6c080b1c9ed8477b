"""`kvdata reward score` and `kvdata reward serve`: a file of completions scored against an rl export (table,
--json, --out), one-line errors, and the Ray actor pool started by `serve --ray ADDRESS --detach` in another
process, used by `score --ray`, then stopped with `--stop` (a real local Ray started by this test)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from consumer_helpers import rl_export, rl_rows  # noqa: E402

from kvdata.cli import main  # noqa: E402

FAST = ["--backend", "triton-interpreter", "--seeds", "2"]


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    return rl_export(tmp_path_factory.mktemp("rl"))


def _completions(export: Path, path: Path) -> Path:
    rows = {r["extra_info"]["task_name"]: r for r in rl_rows(export)}
    wrong = rows["relu_tail_dropped"]["extra_info"]
    lines = [{"id": rows["add"]["extra_info"]["id"],
              "completion": f"```python\n{rows['add']['extra_info']['reference_kernel']}\n```"},
             {"id": wrong["id"],
              "completion": [{"role": "assistant", "content": f"```python\n{wrong['reference_kernel']}\n```"}]},
             {"id": rows["exp"]["extra_info"]["id"], "completion": "no code today"}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_score_prints_a_summary_writes_verdicts_and_reports_json(export, tmp_path):
    comps = _completions(export, tmp_path / "completions.jsonl")
    env = {"KVDATA_CACHE": str(tmp_path / "kvcache")}
    res = CliRunner().invoke(main, ["reward", "score", "--input", str(comps), "--data", str(export), "--out",
                                    str(tmp_path / "verdicts.jsonl"), *FAST], env=env)
    assert res.exit_code == 0, res.output
    assert "3 completions: mean reward 0.600, 1 correct, 2 compiled" in res.output
    assert "unparsed:no_code_block" in res.output and "incorrect" in res.output
    verdicts = [json.loads(x) for x in (tmp_path / "verdicts.jsonl").read_text().splitlines()]
    assert [v["score"] for v in verdicts] == [pytest.approx(1.4), pytest.approx(0.4), 0.0]
    assert verdicts[0]["row"]["status"] == "correct" and verdicts[0]["row"]["knockout"]

    res = CliRunner().invoke(main, ["reward", "score", "--input", str(comps), "--data", str(export), "--json",
                                    "--cache-dir", str(tmp_path / "verdicts-cache"), *FAST], env=env)
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert got["completions"] == 3 and got["mean_reward"] == pytest.approx(0.6) and got["correct"] == 1
    assert got["counts"] == {"correct": 1, "incorrect": 1, "unparsed:no_code_block": 1}
    assert all("row" not in v for v in got["verdicts"]) and got["cache"]["runs"] == 2
    again = json.loads(CliRunner().invoke(main, ["reward", "score", "--input", str(comps), "--data", str(export),
                                                 "--json", "--cache-dir", str(tmp_path / "verdicts-cache"), *FAST],
                                          env=env).output)
    assert again["cache"]["runs"] == 0 and again["cache"]["hits"] == 2 and again["mean_reward"] == got["mean_reward"]


@pytest.mark.parametrize("args, message", [
    (["--flag-cost", "timer_tampered=no_speedup"], "a hack never earns more than the compile term"),
    (["--flag-cost", "kernel_not_needed"], "--flag-cost expects FLAG=COST"),
    (["--no-data"], "give --data"),
])
def test_score_errors_are_one_line(export, tmp_path, args, message):
    comps = _completions(export, tmp_path / "c.jsonl")
    data = [] if args == ["--no-data"] else ["--data", str(export)]
    res = CliRunner().invoke(main, ["reward", "score", "--input", str(comps), *data,
                                    *[a for a in args if a != "--no-data"], *FAST])
    assert res.exit_code != 0 and message in res.output, res.output
    errors = [line for line in res.output.splitlines() if line.startswith("Error:")]
    assert "Traceback" not in res.output and len(errors) == 1 and message in errors[0], res.output


def test_help_shows_examples():
    for cmd in (["reward", "--help"], ["reward", "score", "--help"], ["reward", "serve", "--help"]):
        res = CliRunner().invoke(main, cmd)
        assert res.exit_code == 0 and "Examples:" in res.output and "kvdata reward" in res.output


@pytest.mark.ray
def test_serve_on_ray_then_score_through_the_served_actors_then_stop(export, tmp_path):
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        address = ray.get_runtime_context().gcs_address
        env = {**os.environ, "KVDATA_CACHE": str(tmp_path / "kvcache")}
        kvdata = [sys.executable, "-m", "kvdata.cli"]
        serve = subprocess.run([*kvdata, "reward", "serve", "--ray", address, "--actors", "1", "--workers", "1",
                                "--detach", "--namespace", "kvdata-reward-test", *FAST],
                               capture_output=True, text=True, timeout=300, env=env)
        assert serve.returncode == 0, serve.stdout + serve.stderr
        assert "1 kvdata reward actor(s), 1 warm slot(s)" in serve.stdout
        assert "KVDATA_REWARD_RAY=" + address in serve.stdout
        named = [a for a in ray.util.list_named_actors(all_namespaces=True) if a["namespace"] == "kvdata-reward-test"]
        assert [a["name"] for a in named] == ["kvdata-reward-0"]

        comps = _completions(export, tmp_path / "completions.jsonl")
        res = CliRunner().invoke(main, ["reward", "score", "--input", str(comps), "--data", str(export), "--json",
                                        "--ray", address, "--namespace", "kvdata-reward-test", *FAST])
        assert res.exit_code == 0, res.output
        got = json.loads(res.output)
        assert [v["score"] for v in got["verdicts"]] == [pytest.approx(1.4), pytest.approx(0.4), 0.0]
        assert got["cache"]["runs"] == 2
        # the served actors outlive the scoring client; --stop ends them
        assert any(a["namespace"] == "kvdata-reward-test" for a in ray.util.list_named_actors(all_namespaces=True))
        stop = subprocess.run([*kvdata, "reward", "serve", "--ray", address, "--stop", "--namespace",
                               "kvdata-reward-test"], capture_output=True, text=True, timeout=300, env=env)
        assert stop.returncode == 0 and "stopped 1" in stop.stdout, stop.stdout + stop.stderr
        assert not any(a["namespace"] == "kvdata-reward-test" for a in ray.util.list_named_actors(all_namespaces=True))
        nothing = CliRunner().invoke(main, ["reward", "score", "--input", str(comps), "--data", str(export),
                                            "--ray", address, "--namespace", "kvdata-reward-test", *FAST])
        assert nothing.exit_code != 0 and "no kvdata reward actors" in nothing.output, nothing.output
    finally:
        ray.shutdown()
