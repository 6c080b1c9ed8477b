"""RayExecutor against a real local Ray instance (ray.init(num_cpus=2)); skipped without ray."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from kvdata.reverify import reverify  # noqa: E402
from kvdata.reverify.config import ReverifyConfig  # noqa: E402
from kvdata.reverify.samples import Sample  # noqa: E402
from kvdata.reverify.store import read_results  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from reverify_samples import rows  # noqa: E402


def test_ray_executor_runs_samples(tmp_path):
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        samples = [Sample.from_row(r) for r in rows(1, 1)]
        summary = reverify(samples, tmp_path / "r.jsonl",
                           ReverifyConfig(backend="triton-interpreter", seeds=2, timeout_s=120, memory_mb=3000),
                           executor="ray", cache_root=tmp_path / "cache", progress=False)
        got = {r["id"]: r["status"] for r in read_results(summary.results)}
        assert got == {"ok-0": "correct", "bad-0": "incorrect"}
    finally:
        ray.shutdown()
