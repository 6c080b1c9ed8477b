"""`kvdata build/info/sources/push` through click, on the bundled sample."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from kvdata.cli import main
from kvdata.schema import ALL_CONFIGS, arrow_schema


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "build"
    result = CliRunner().invoke(main, ["build", "--sample", "--out", str(out), "--quiet", "--workers", "0"])
    assert result.exit_code == 0, result.output
    return out, result.output


def test_build_sample_prints_accounting(built):
    out, output = built
    assert "reconciles" not in output or "NO" not in output
    for name in json.loads((out / "accounting.json").read_text())["sources"]:
        assert name in output
    assert "wrote" in output


def test_every_config_loads_offline_with_its_columns(built):
    """A fresh interpreter with the Hub switched off loads every config with datasets.load_dataset."""
    out, _ = built
    code = ("import datasets, json, sys\n"
            "res = {}\n"
            "for c in sys.argv[2:]:\n"
            "    ds = datasets.load_dataset(sys.argv[1], c, split='train')\n"
            "    res[c] = [ds.num_rows, ds.column_names, list(ds['id'])]\n"
            "print(json.dumps(res))\n")
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HF_HOME=str(out.parent / "hf"))
    proc = subprocess.run([sys.executable, "-c", code, str(out), *ALL_CONFIGS], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    accounting = json.loads((out / "accounting.json").read_text())
    all_ids = []
    for config in ALL_CONFIGS:
        n, columns, ids = loaded[config]
        assert n > 0 and columns == arrow_schema(config).names
        assert n == accounting["configs"][config]["kept"]
        all_ids += ids
    assert len(all_ids) == len(set(all_ids))


def test_rebuild_gives_identical_ids(built, tmp_path):
    out, _ = built
    again = tmp_path / "again"
    result = CliRunner().invoke(main, ["build", "--sample", "--out", str(again), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    import pyarrow.parquet as pq

    for config in ALL_CONFIGS:
        a = [r for p in sorted((out / "data" / config).glob("*.parquet")) for r in pq.read_table(p, columns=["id"]).column("id").to_pylist()]
        b = [r for p in sorted((again / "data" / config).glob("*.parquet")) for r in pq.read_table(p, columns=["id"]).column("id").to_pylist()]
        assert a == b and a


def test_info_sources_and_push_dry_run(built):
    out, _ = built
    runner = CliRunner()
    info = runner.invoke(main, ["info", str(out)])
    assert info.exit_code == 0, info.output
    acc = json.loads((out / "accounting.json").read_text())
    for config in ALL_CONFIGS:
        assert config in info.output
    assert str(acc["totals"]["input"]) in info.output
    sources = runner.invoke(main, ["sources"])
    assert sources.exit_code == 0
    for kind in ("hip_gpumode", "hip2hip", "hip_cudaagent", "triton_table", "qa_rocm"):
        assert kind in sources.output
    push = runner.invoke(main, ["push", str(out), "--repo", "me/kv", "--dry-run"])
    assert push.exit_code == 0, push.output
    assert "README.md" in push.output and "data/qa/train-00000-of-00001.parquet" in push.output
    bad = runner.invoke(main, ["push", str(out), "--repo", "not a repo", "--dry-run"])
    assert bad.exit_code == 2 and "OWNER/NAME" in bad.output


@pytest.mark.parametrize("args, message", [
    (["--source", "nope=/tmp"], "unknown source kind 'nope'"),
    (["--source", "triton_table=/does/not/exist.jsonl"], "does not exist"),
    (["--source", "triton_table"], "KIND=PATH"),
    (["--sample", "--option", "triton_table.bogus=1"], "unknown option"),
    (["--sample", "--option", "hip_gpumode"], "KIND.key=value"),
    (["--sample", "--allow-license", "Not-A-License"], "not a known SPDX"),
    (["--config", "/does/not/exist.yaml"], "does not exist"),
    ([], "no sources"),
])
def test_bad_arguments_exit_2_with_a_message(tmp_path, args, message):
    result = CliRunner().invoke(main, ["build", "--out", str(tmp_path / "o"), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_config_file_with_options_and_threshold(tmp_path):
    table = tmp_path / "t.jsonl"
    src = os.path.join(os.path.dirname(__file__), "..", "builders", "sample", "triton", "table", "agent_outputs.jsonl")
    table.write_text(open(src).read())
    (tmp_path / "build.yaml").write_text(
        "sources:\n"
        "  - kind: triton_table\n"
        "    path: t.jsonl\n"
        "    options: {columns: {task_name: name, pytorch_code: ref, kernel_code: triton, license: lic}}\n"
        "allow_license: [MIT]\n"
        "near_dup_threshold: 0.99\n")
    out = tmp_path / "o"
    result = CliRunner().invoke(main, ["build", "--config", str(tmp_path / "build.yaml"), "--out", str(out),
                                       "--quiet", "--workers", "0"])
    assert result.exit_code == 0, result.output
    acc = json.loads((out / "accounting.json").read_text())
    assert acc["settings"]["near_dup_threshold"] == 0.99 and acc["settings"]["allow_license"] == ["MIT"]
    assert acc["sources"]["triton_table"]["input"] == len([l for l in open(src) if l.strip()])


def test_help_has_examples():
    runner = CliRunner()
    for cmd in ("build", "push", "info", "sources"):
        result = runner.invoke(main, [cmd, "--help"])
        assert result.exit_code == 0 and "Example" in result.output, cmd
