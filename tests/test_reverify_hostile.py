"""The hostile suite: every trick in tests/hostile/ runs through the real sandboxed verifier
(Triton interpreter) and none may come out `correct`; the run finishes with exactly one
result per sample. The honest control must come out `correct`, so the suite can fail."""
from __future__ import annotations

import time
from pathlib import Path

import psutil
import pytest

from kvdata.reverify import reverify
from kvdata.reverify.config import ReverifyConfig
from kvdata.reverify.samples import Sample
from kvdata.reverify.store import read_results

HOSTILE = Path(__file__).parent / "hostile"
REFERENCE = (HOSTILE / "reference.py").read_text()

# What each trick must end as, beyond "not correct" (statuses allowed; flags required).
EXPECTED = {
    "_honest": ({"correct"}, set()),
    "freed_buffer": ({"incorrect"}, set()),
    "zero_inputs": ({"flagged"}, {"inputs_mutated"}),
    "cache_across_calls": ({"incorrect"}, set()),
    "special_seed": ({"incorrect"}, set()),
    "torch_only": ({"flagged"}, {"no_kernel_launch"}),
    "patch_allclose": ({"incorrect"}, set()),
    "gc_reference": ({"incorrect"}, set()),
    "inspect_frames": ({"incorrect", "runtime_error"}, set()),
    "hang": ({"timeout"}, set()),
    "segfault": ({"crashed"}, set()),
    "os_exit": ({"crashed"}, set()),
    "system_exit": ({"runtime_error"}, set()),
    "print_pass": ({"incorrect"}, set()),
    "memory_bomb": ({"crashed", "runtime_error"}, set()),
    "read_credentials": ({"runtime_error"}, set()),
    "write_outside": ({"runtime_error"}, set()),
    "spawn_storm": ({"crashed", "timeout", "runtime_error"}, set()),
    "kill_zygote": ({"crashed"}, set()),
}


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    home = tmp / "home"
    token_file = home / ".cache" / "huggingface" / "token"
    token_file.parent.mkdir(parents=True)
    token_file.write_text("hf_FAKE_TOKEN_for_kvdata_tests")
    outside = tmp / "escaped.txt"
    mp = pytest.MonkeyPatch()
    mp.setenv("HF_TOKEN", "hf_FAKE_TOKEN_for_kvdata_tests")
    mp.setenv("AWS_SECRET_ACCESS_KEY", "fake")
    mp.setenv("HOME", str(home))
    samples = []
    for path in sorted(HOSTILE.glob("*.py")):
        if path.name == "reference.py":
            continue
        code = path.read_text().replace("__TOKEN_FILE__", str(token_file)).replace("__OUTSIDE__", str(outside))
        samples.append(Sample(id=path.stem, language="triton", pytorch_code=REFERENCE, kernel_code=code))
    config = ReverifyConfig(backend="triton-interpreter", seeds=2, timeout_s=15, memory_mb=1500)
    out = tmp / "results.jsonl"
    t0 = time.monotonic()
    summary = reverify(samples, out, config, workers=2, cache_root=tmp / "cache", progress=False)
    mp.undo()
    rows = {r["id"]: r for r in read_results(out)}
    return {"samples": samples, "rows": rows, "summary": summary, "outside": outside,
            "wall": time.monotonic() - t0, "results": out}


def test_one_result_per_sample(hostile_run):
    ids = [s.id for s in hostile_run["samples"]]
    assert sorted(r["id"] for r in read_results(hostile_run["results"])) == sorted(ids)


def test_no_hostile_sample_is_correct(hostile_run):
    wrong = {i: r["status"] for i, r in hostile_run["rows"].items() if i != "_honest" and r["correct"]}
    assert not wrong, f"tricks that passed: {wrong}"


def test_honest_control_is_correct(hostile_run):
    row = hostile_run["rows"]["_honest"]
    assert row["status"] == "correct", row["message"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_trick_ends_as_expected(hostile_run, name):
    row = hostile_run["rows"][name]
    statuses, flags = EXPECTED[name]
    assert row["status"] in statuses, (row["status"], row["message"])
    assert flags <= set(row["flags"]), row["flags"]


def test_write_outside_scratch_did_not_land(hostile_run):
    assert not hostile_run["outside"].exists()


def test_spawned_processes_do_not_outlive_the_sample(hostile_run):
    leftovers = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = " ".join(p.info.get("cmdline") or [])
        if "kvdata-hostile-storm" in cmd:
            leftovers.append(p.pid)
    assert not leftovers
