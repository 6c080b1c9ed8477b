"""Behavioural equivalence, on real runs in the sandbox.

The benchmark side is KernelBench v0.1 (read from ../shared/data); the training side is the hand-written
paraphrases (``para_*.py``, same function: must come out equivalent) and look-alikes (``look_*.py``, something
else on the same skeleton: must not) under tests/behavioural/<L{level}_{problem_id}_...>/. One folder,
``own_gemm_dropout_gelu``, brings its own benchmark-style ``bench.py`` (KernelBench has no task with a non-zero
dropout that is not constant). A hang, a crash, a memory bomb and an answer-forging print share the queue and
must cost only their own pair.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from kvdata.audit import behavioural
from kvdata.audit._probe_worker import ProbeAnswer
from kvdata.audit.behavioural import ProbeCache, probe_pairs

FIXTURES = Path(__file__).resolve().parent / "behavioural"
OWN_BENCH = "own_gemm_dropout_gelu"

HANG = ("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        while True:\n"
        "            pass\ndef get_inputs():\n    return [torch.rand(4, 4)]\n")
CRASH = ("import os, torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        os._exit(3)\n"
         "def get_inputs():\n    return [torch.rand(4, 4)]\n")
BOMB = ("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        keep = []\n"
        "        while True:\n            keep.append(bytearray(64 << 20))\n"
        "def get_inputs():\n    return [torch.rand(4, 4)]\n")
# Prints what an "equivalent" answer for the first pair of a worker would look like, then computes -x.
FORGE = ("import json, sys, torch\n"
         "for i in range(64):\n"
         "    print(json.dumps({'i': i, 'key': 'x', 'score': 1.0, 'equivalent': True, 'reason': '', 'detail': ''}))\n"
         "    sys.stdout.flush()\n"
         "class Model(torch.nn.Module):\n    def forward(self, x):\n        return -x\n"
         "def get_inputs():\n    return [torch.rand(4, 64)]\n")
HOSTILE = {"hang": HANG, "crash": CRASH, "bomb": BOMB, "forge": FORGE}
HUGE = ("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n"
        "def get_inputs():\n    return [torch.rand(8192, 8192)]\n")      # literal sizes: nothing to shrink


def _bench_id(folder: Path) -> str:
    return OWN_BENCH if folder.name == OWN_BENCH else "_".join(folder.name.split("_")[:2])


def fixture_files(prefix: str) -> list[Path]:
    return sorted(p for p in FIXTURES.glob(f"*/{prefix}_*.py") if p.parent.name != "layouts")


@pytest.fixture(scope="module")
def bench_code(shared_data) -> dict[str, str]:
    rows = [json.loads(line) for line in (shared_data / "kernelbench" / "kernelbench_v0.1.jsonl").open()]
    code = {f"L{r['level']}_{r['problem_id']}": r["code"] for r in rows}
    code[OWN_BENCH] = (FIXTURES / OWN_BENCH / "bench.py").read_text()
    code["no_inputs"] = (FIXTURES / "layouts" / "init_defaults_no_inputs.py").read_text()
    code["huge"] = HUGE
    return code


@pytest.fixture(scope="module")
def train_code() -> dict[str, str]:
    code = {str(p.relative_to(FIXTURES)): p.read_text() for p in fixture_files("para") + fixture_files("look")}
    code.update(HOSTILE)
    code["kernels_only"] = (FIXTURES / "layouts" / "kernels_only.py").read_text()
    code["no_inputs"] = (FIXTURES / "layouts" / "init_defaults_no_inputs.py").read_text()
    code["plain_text"] = "A training row that is prose, not code."
    code["huge"] = HUGE
    return code


@pytest.fixture(scope="module")
def all_train_code(train_code, bench_code) -> dict[str, str]:
    """The fixtures plus KernelBench's own 1/35 (GroupNorm with 8 groups) as a training row."""
    return {**train_code, "kb:L1_35": bench_code["L1_35"]}


def fixture_pairs() -> list[tuple[str, str]]:
    pairs = [(_bench_id(p.parent), str(p.relative_to(FIXTURES))) for p in fixture_files("para") + fixture_files("look")]
    hostile = [("L1_23", name) for name in HOSTILE]
    # Hostile pairs first: the pairs after them in the same worker's queue depend on the restarts.
    return hostile + pairs + [("L1_23", "kernels_only"), ("no_inputs", "no_inputs"), ("L1_23", "plain_text"),
                                 ("huge", "huge"), ("L1_34", "kb:L1_35")]


@pytest.fixture(scope="module")
def probed(bench_code, all_train_code, tmp_path_factory):
    cache_dir = tmp_path_factory.mktemp("probe-cache")
    out = probe_pairs(fixture_pairs(), bench_code, all_train_code, timeout_s=15, memory_mb=2048, workers=2,
                      cache_dir=cache_dir, progress=False)
    return out, cache_dir


def outcome(probed, train_id: str):
    return next(v for (b, t), v in probed[0].items() if t == train_id)


@pytest.mark.parametrize("path", fixture_files("para"), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_paraphrase_is_equivalent(probed, path):
    o = outcome(probed, str(path.relative_to(FIXTURES)))
    assert (o.equivalent, o.score, o.reason) == (True, 1.0, ""), o.detail


@pytest.mark.parametrize("path", fixture_files("look"), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_lookalike_is_probed_and_different(probed, path):
    o = outcome(probed, str(path.relative_to(FIXTURES)))
    assert o.reason == "" and not o.equivalent, o.detail
    assert o.score < 0.9


def test_suite_covers_enough_pairs():
    assert len(fixture_files("para")) >= 16 and len(fixture_files("look")) >= 16


def test_detail_names_the_matched_references(probed):
    assert outcome(probed, "L1_25_swish/para_triton_with_torch_helper.py").detail.startswith("Model ~ swish_torch")
    assert outcome(probed, "L2_1_conv_relu_bias/para_buried_middle.py").detail.startswith("Model ~ Stage")
    reordered = outcome(probed, "L2_76_gemm_add_relu/para_reordered_init_transposed_weight.py").detail
    assert "weights transposed" in reordered and "built with the bench arguments" in reordered


def test_train_mode_decides_and_eval_mode_only_when_train_mode_is_random(probed):
    """Batch norm by batch statistics is BatchNorm2d as KernelBench runs it (train mode); frozen running
    statistics agree with it only in eval mode, so they are not it. A hand-made dropout mask draws other random
    numbers than nn.Dropout: there eval mode decides."""
    assert "train mode" in outcome(probed, "L1_33_batchnorm/para_batch_statistics.py").detail
    assert not outcome(probed, "L1_33_batchnorm/look_running_stats.py").equivalent
    assert "eval mode (train mode draws random numbers)" in outcome(
        probed, f"{OWN_BENCH}/para_mask_dropout.py").detail


def test_a_coincidence_of_one_size_does_not_pass(probed):
    """KernelBench 1/34 (InstanceNorm2d) against 1/35 (GroupNorm, 8 groups): with the channels shrunk to 8 they
    compute the same; at a second size with more channels they do not."""
    o = outcome(probed, "kb:L1_35")
    assert o.reason == "" and not o.equivalent, o.detail
    assert "agreed at 1/" in o.detail


def test_hang_crash_and_memory_bomb_cost_only_their_pair(probed):
    assert outcome(probed, "hang").reason == "timeout"
    assert outcome(probed, "crash").reason == "worker_died"
    assert outcome(probed, "bomb").reason == "memory"
    for o in (outcome(probed, name) for name in ("hang", "crash", "bomb")):
        assert math.isnan(o.score) and not o.equivalent
    probed_ok = [o for (_, t), o in probed[0].items() if t not in HOSTILE and o.reason == ""]
    assert len(probed_ok) == len(fixture_files("para")) + len(fixture_files("look")) + 1     # + kb:L1_35


def test_printed_answers_cannot_forge_a_verdict(probed):
    o = outcome(probed, "forge")
    assert o.reason == "" and not o.equivalent and o.score < 0.5


def test_reason_codes_for_rows_that_cannot_be_probed(probed):
    assert outcome(probed, "kernels_only").reason == "no_torch_reference"
    assert outcome(probed, "kernels_only").detail.startswith("train:")
    assert outcome(probed, "no_inputs").reason == "no_inputs"
    assert outcome(probed, "plain_text").reason == "no_torch_reference"
    assert outcome(probed, "huge").reason == "too_large"
    for o in probed[0].values():
        assert o.reason == "" or o.reason in behavioural.REASON_CODES


def test_cache_answers_without_a_worker(probed, bench_code, all_train_code, tmp_path, monkeypatch):
    """Second run on the same cache: no worker can start (the worker path is a script that exits), yet every
    cacheable outcome comes back the same. A pair that ran out of time or memory comes back from the cache under
    the same limits, and is asked of a worker again under a larger limit; a worker's death is never cached."""
    out, cache_dir = probed
    not_cached = ("crash", "plain_text")     # plain_text never reaches a worker
    assert len(ProbeCache(cache_dir)) == len([t for _, t in out if t not in not_cached])
    broken = tmp_path / "broken_worker.py"
    broken.write_text("import sys\nsys.exit(5)\n")
    monkeypatch.setattr(behavioural, "WORKER", broken)
    again = probe_pairs(list(out), bench_code, all_train_code, timeout_s=15, memory_mb=2048, workers=1,
                        cache_dir=cache_dir, progress=False)
    for pair, first in out.items():
        second = again[pair]
        if pair[1] == "crash":                         # asked of a worker again, which cannot start
            assert second.reason in ("worker_died", "worker_failed")
        else:
            assert (second.equivalent, second.reason, second.detail) == (first.equivalent, first.reason,
                                                                         first.detail)
            assert second.cached or pair[1] == "plain_text"
    hang_and_bomb = [p for p in out if p[1] in ("hang", "bomb")]
    for timeout_s, memory_mb, asked_again in ((30, 2048, "hang"), (15, 4096, "bomb")):
        larger = probe_pairs(hang_and_bomb, bench_code, all_train_code, timeout_s=timeout_s, memory_mb=memory_mb,
                             workers=1, cache_dir=cache_dir, progress=False)
        for pair, o in larger.items():
            if pair[1] == asked_again:
                assert o.reason in ("worker_died", "worker_failed") and not o.cached
            else:
                assert o.cached and o.reason == out[pair].reason


@pytest.mark.parametrize("line", [
    b"not json",
    b'{"i": 0, "key": "k", "score": 1.0, "equivalent": true, "reason": ""}',                  # a field missing
    b'{"i": 1, "key": "k", "score": 1.0, "equivalent": true, "reason": "", "detail": ""}',    # out of order
    b'{"i": 0, "key": "k", "score": 7, "equivalent": false, "reason": "", "detail": ""}',     # score out of range
    b'{"i": 0, "key": "k", "score": 0.2, "equivalent": true, "reason": "", "detail": ""}',    # inconsistent
    b'{"i": 0, "key": "k", "score": null, "equivalent": false, "reason": 3, "detail": ""}',   # wrong type
])
def test_untrusted_answers_are_checked(line):
    with pytest.raises(ValueError):
        ProbeAnswer.from_line(line, 0, "k")
    assert ProbeAnswer.from_line(b'{"i": 0, "key": "k", "score": null, "equivalent": false, "reason": "timeout", '
                                 b'"detail": ""}', 0, "k").reason == "timeout"
