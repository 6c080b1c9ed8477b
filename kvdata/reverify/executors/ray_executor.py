"""Runs samples on a Ray cluster (``--executor ray``): batches of samples become Ray tasks.

Each task builds its own ``Verifier`` on the node it lands on (so the warm zygote's
start-up is paid once per batch, not once per sample) and returns result rows; the
driver appends each batch's rows to the store as soon as the task finishes, so a
killed driver resumes like a local run. GPU tasks ask Ray for one GPU each.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional, Sequence

from kvdata.reverify.config import ReverifyConfig
from kvdata.reverify.protocol import ResultRow


def _verify_batch(config: ReverifyConfig, samples: list, cache_root: Optional[str]) -> list[ResultRow]:
    from kvdata.reverify.runner import Verifier

    verifier = Verifier(config, Path(cache_root) if cache_root else None)
    try:
        return [verifier.verify(s) for s in samples]
    finally:
        verifier.close()


class RayExecutor:
    def __init__(self, config: ReverifyConfig, address: Optional[str] = None, batch_size: int = 8,
                 gpus_per_task: float = 0, cpus_per_task: float = 1, cache_root: Optional[Path] = None,
                 init_kwargs: Optional[dict] = None):
        self.config = config
        self.address, self.batch_size = address, max(1, batch_size)
        self.gpus_per_task, self.cpus_per_task = gpus_per_task, cpus_per_task
        self.cache_root = cache_root
        self.init_kwargs = init_kwargs or {}

    def run(self, samples: Sequence, on_result: Callable[[ResultRow], None]) -> None:
        import ray

        if not ray.is_initialized():
            ray.init(address=self.address, **self.init_kwargs)
        task = ray.remote(num_cpus=self.cpus_per_task, num_gpus=self.gpus_per_task)(_verify_batch)
        batches = [list(samples[i:i + self.batch_size]) for i in range(0, len(samples), self.batch_size)]
        cache = str(self.cache_root) if self.cache_root else None
        pending = [task.remote(self.config, b, cache) for b in batches]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for rows in ray.get(ready):
                for row in rows:
                    on_result(row)
