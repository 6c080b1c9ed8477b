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
from kvdata.sandbox import landlock_abi

HOSTILE = Path(__file__).parent / "hostile"
LANDLOCK = landlock_abi() > 0
REFERENCE = (HOSTILE / "reference.py").read_text()

# What each trick must end as, beyond "not correct" (statuses allowed; flags required).
EXPECTED = {
    "_honest": ({"correct"}, set()),
    "freed_buffer": ({"incorrect"}, set()),
    "zero_inputs": ({"flagged"}, {"inputs_mutated"}),
    "cache_across_calls": ({"incorrect"}, set()),
    "special_seed": ({"incorrect"}, set()),
    "torch_only": ({"flagged"}, {"no_kernel_launch", "torch_compute"}),
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
    # issue #3 hardening: the bait runs on fresh inputs; round A is sealed before it runs
    "steal_bait_gc": ({"incorrect"}, {"inconsistent_runs"}),
    "steal_bait_module": ({"incorrect"}, set()),
    "rewrite_round_a": ({"flagged"}, {"tampered_outputs"}),
    # its "second round" now starts in the knockout, before the seal is sent: its forged seal goes down
    # every pipe it kept, the done pipe included, and the zygote ends it (crashed, as forge_reference)
    "withhold_seal": ({"flagged", "crashed"}, set()),
    "forge_reference": ({"flagged", "incorrect", "crashed"}, set()),   # crashed: it wrote the done pipe too
    # the next sample's process is forked while this one runs: stopping it must not hurt that sample
    "stop_next_sample": ({"incorrect", "runtime_error"}, set()),
    # writes beyond its own job dir and compile cache are refused where Landlock exists
    "plant_for_others": ({"incorrect"} if LANDLOCK else {"incorrect", "runtime_error"}, set()),
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
            "wall": time.monotonic() - t0, "results": out, "cache": tmp / "cache"}


def test_one_result_per_sample(hostile_run):
    ids = [s.id for s in hostile_run["samples"]]
    assert sorted(r["id"] for r in read_results(hostile_run["results"])) == sorted(ids)


def test_no_hostile_sample_is_correct(hostile_run):
    wrong = {i: r["status"] for i, r in hostile_run["rows"].items() if i != "_honest" and r["correct"]}
    assert not wrong, f"tricks that passed: {wrong}"


def test_honest_control_is_correct(hostile_run):
    row = hostile_run["rows"]["_honest"]
    assert row["status"] == "correct", row["message"]
    assert "torch_compute" not in row["flags"]          # allocation and views are not math


def test_a_token_launch_beside_torch_math_fails_the_knockout(tmp_path):
    """One dummy launch satisfies the launch counter; with it knocked out the answer is still
    right, so the kernel did not compute it (``kernel_not_needed``). ``torch_compute`` stays as
    information, with the ops torch ran."""
    honest = (HOSTILE / "_honest.py").read_text()
    token = honest.replace("        return launch(x, self.w)",
                           "        launch(x[:1, :1].contiguous(), self.w)\n        return torch.tanh(x) * self.w")
    assert token != honest
    samples = [Sample(id="token_launch", language="triton", pytorch_code=REFERENCE, kernel_code=token),
               Sample(id="honest", language="triton", pytorch_code=REFERENCE, kernel_code=honest)]
    out = tmp_path / "results.jsonl"
    reverify(samples, out, ReverifyConfig(backend="triton-interpreter", seeds=2, timeout_s=30), workers=1,
             cache_root=tmp_path / "cache", progress=False)
    rows = {r["id"]: r for r in read_results(out)}
    token_row, honest_row = rows["token_launch"], rows["honest"]
    assert token_row["status"] == "flagged" and "kernel_not_needed" in token_row["flags"]
    assert "no_kernel_launch" not in token_row["flags"] and "torch_compute" in token_row["flags"]
    assert {"tanh", "mul"} <= set(token_row["torch_compute_ops"])
    assert honest_row["status"] == "correct" and "torch_compute" not in honest_row["flags"]
    assert "kernel_not_needed" not in honest_row["flags"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_trick_ends_as_expected(hostile_run, name):
    row = hostile_run["rows"][name]
    statuses, flags = EXPECTED[name]
    assert row["status"] in statuses, (row["status"], row["message"])
    assert flags <= set(row["flags"]), row["flags"]


def test_write_outside_scratch_did_not_land(hostile_run):
    assert not hostile_run["outside"].exists()


@pytest.mark.skipif(not LANDLOCK, reason="this kernel has no Landlock: the shared cache stays writable")
def test_nothing_planted_in_the_compile_cache(hostile_run):
    """Each sample may write only its own cache (by-source/<hash of its kernel>) and job dir."""
    assert not list(hostile_run["cache"].rglob("planted*"))
    assert all(r["isolation"].endswith("+landlock") for r in hostile_run["rows"].values()
               if r["status"] not in ("crashed", "timeout"))


def test_spawned_processes_do_not_outlive_the_sample(hostile_run):
    leftovers = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = " ".join(p.info.get("cmdline") or [])
        if "kvdata-hostile-storm" in cmd:
            leftovers.append(p.pid)
    assert not leftovers


def test_a_sample_cannot_stall_the_next_one(tmp_path):
    """`stop_next_sample` stops the process pre-forked for the next sample (and tries to write its
    memory); the honest samples after it, on the same worker, still come out `correct` in time."""
    honest = (HOSTILE / "_honest.py").read_text()
    samples = [Sample(id="stop_next_sample", language="triton", pytorch_code=REFERENCE,
                      kernel_code=(HOSTILE / "stop_next_sample.py").read_text())]
    samples += [Sample(id=f"honest_{i}", language="triton", pytorch_code=REFERENCE, kernel_code=honest)
                for i in range(2)]
    config = ReverifyConfig(backend="triton-interpreter", seeds=2, timeout_s=20)
    out = tmp_path / "results.jsonl"
    reverify(samples, out, config, workers=1, cache_root=tmp_path / "cache", progress=False)
    rows = {r["id"]: r for r in read_results(out)}
    assert rows["stop_next_sample"]["status"] == "incorrect", rows["stop_next_sample"]["message"]
    for i in range(2):
        row = rows[f"honest_{i}"]
        assert row["status"] == "correct", (row["status"], row["message"])     # within its timeout, on the same worker


# ----------------------------------------------------------------------------- in-process pieces
def test_every_hostile_sample_has_an_expectation():
    names = {p.stem for p in HOSTILE.glob("*.py") if p.name != "reference.py"}
    assert names == set(EXPECTED)


def test_bait_runs_on_fresh_inputs_and_leaves_no_reference_class(tmp_path):
    """The bait's outputs answer other inputs than the compared seeds', and its Model class is gone after."""
    import gc
    import sys

    import torch

    from kvdata.reverify import harness
    from kvdata.reverify.protocol import Job
    from kvdata.reverify.runner import draw_bait_seeds, draw_seeds

    seeds = draw_seeds(2)
    job = Job(sample={"pytorch_code": REFERENCE}, seeds=seeds, bait_seeds=draw_bait_seeds(seeds), decoy_seed=0,
              timing_seed=0, device="cpu", backend="triton-interpreter", cache_dir=str(tmp_path))
    bait = harness._run_reference_bait(job, tmp_path, "cpu")
    assert harness.BAIT_MODULE not in sys.modules
    assert not [o for o in gc.get_objects()
                if issubclass(type(o), type) and vars(o).get("__module__") == harness.BAIT_MODULE]
    assert not list(tmp_path.iterdir())                 # the bait's source file is unlinked too
    module = harness.load_source_module(REFERENCE, tmp_path / "ref.py", "kv_test_reference")
    try:
        compared = [harness.build_reference_case(module, s, "cpu")["outputs"] for s in seeds]
    finally:
        harness.forget_module("kv_test_reference")
    assert len(bait) == len(compared)
    for stolen in bait:
        for right in compared:
            assert stolen[0].shape == right[0].shape
            assert not torch.allclose(stolen[0], right[0], atol=1e-3, rtol=1e-4)


def test_bait_seeds_never_meet_compared_seeds():
    from kvdata.reverify.harness import bait_seeds
    from kvdata.reverify.protocol import Job
    from kvdata.reverify.runner import draw_bait_seeds

    seeds = [5, 6, 7]
    assert not set(draw_bait_seeds(seeds)) & set(seeds)
    assert not set(draw_bait_seeds(seeds, fixed=5)) & set(seeds)
    assert len(draw_bait_seeds(seeds)) == 3
    # a job naming a compared seed as bait seed (or none at all) still gets fresh ones
    def job(bait):
        return Job(sample={}, seeds=seeds, bait_seeds=bait, decoy_seed=0, timing_seed=0, device="cpu",
                   backend="triton-interpreter", cache_dir="/nonexistent")

    got = bait_seeds(job([6, 9]))
    assert 9 in got and not set(got) & set(seeds) and len(got) == 3
    assert not set(bait_seeds(job([]))) & set(seeds)


def test_seal_matches_only_the_sealed_bytes(tmp_path):
    import torch

    from kvdata.reverify import checks, tensor_blob

    path = tmp_path / "a.blob"
    with open(path, "wb") as f:
        sink = tensor_blob.SealingSink(f.write)
        writer = tensor_blob.BlobWriter(sink)
        writer.finish({"A": [[writer.add(torch.randn(4, 64))]]})
    seal = sink.seal()
    assert len(seal) == tensor_blob.SEAL.size
    data = bytearray(path.read_bytes())
    assert checks.check_round_sealed(seal, data) == []
    assert checks.check_round_sealed(seal, tensor_blob.open_blob_file(path)) == []
    flipped = bytearray(data)
    flipped[7] ^= 1
    assert checks.check_round_sealed(seal, flipped) == ["tampered_outputs"]
    assert checks.check_round_sealed(seal, data + b"\0") == ["tampered_outputs"]
    assert checks.check_round_sealed(seal, data[:-1]) == ["tampered_outputs"]
    assert checks.check_round_sealed(None, data) == ["tampered_outputs"]
    assert checks.check_round_sealed(b"x" * tensor_blob.SEAL.size, data) == ["tampered_outputs"]


def test_inputs_that_ignore_the_seed_are_flagged():
    from kvdata.reverify import checks
    from kvdata.reverify.tensor_blob import fingerprint

    import torch

    same = [fingerprint([torch.ones(3)]) for _ in range(3)]
    varied = [fingerprint([torch.randn(3)]) for _ in range(3)]
    assert checks.check_inputs_vary(same) == ["fixed_inputs"]
    assert checks.check_inputs_vary(varied) == []
    assert checks.check_inputs_vary(same[:1]) == []
