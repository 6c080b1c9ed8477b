"""The audit's sandboxed stages on a real local Ray instance give what the local executor gives."""
from __future__ import annotations

import re

import pytest

from kvdata.audit.benchmarks import load_benchmark
from kvdata.audit.executors import LocalExecutor, RayExecutor, make_executor
from kvdata.audit.pipeline import run_audit
from kvdata.audit.training import TrainingRows


@pytest.fixture(scope="module")
def kb_items(shared_data):
    items = load_benchmark("kernelbench", shared_data / "kernelbench" / "kernelbench_v0.1.jsonl", version="v0.1")
    names = {"19_ReLU", "23_Softmax", "1_Conv2D_ReLU_BiasAdd", "76_Gemm_Add_ReLU"}
    return [it for it in items if it.name in names]


def _train(items) -> TrainingRows:
    # renamed copies (structural similarity 1), plus a row with nothing to trace (a reason code, not a gap)
    codes = [re.sub(r"\bx\b", "inp", it.code) for it in items]
    return TrainingRows([f"copy/{it.name}" for it in items] + ["hip"],
                        codes + ["__global__ void k(float* a) { a[0] = 1.f; }"], [None] * (len(items) + 1), "t")


def test_make_executor_rejects_unknown_kind():
    with pytest.raises(ValueError, match="unknown executor"):
        make_executor("slurm")
    assert isinstance(make_executor("local"), LocalExecutor)


def test_ray_batches_cover_every_item():
    items = list(range(10))
    batches = RayExecutor(batch_size=3).batches(items)
    assert [len(b) for b in batches] == [3, 3, 3, 1] and sum(batches, []) == items


@pytest.mark.ray
def test_structural_on_ray_matches_local(kb_items, tmp_path):
    ray = pytest.importorskip("ray")
    train = _train(kb_items)
    local = run_audit(kb_items, train, measures=["structural"], progress=False, workers=1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = run_audit(kb_items, train, measures=["structural"], progress=False, executor="ray")
    finally:
        ray.shutdown()
    key = lambda res: sorted((p.bench_id, p.train_id, round(p.structural, 6)) for p in res.pairs)  # noqa: E731
    assert key(remote) == key(local)
    assert {p.train_id for p in remote.flagged} == {f"copy/{it.name}" for it in kb_items}
    cov = {r.id: r for r in remote.coverage.side("train")}
    assert cov["hip"].traced is False and cov["hip"].trace_reason
    assert all(cov[f"copy/{it.name}"].traced for it in kb_items)
