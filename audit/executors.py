"""Where the audit's sandboxed stages (tracing, probing) run: here, or as tasks on a Ray cluster.

An executor only schedules. It takes a stage function and its work split into batches, and yields each
batch's result as soon as it is ready; it knows nothing of what a batch holds. The stage functions
(:func:`kvdata.audit.structural.fingerprint_many`, :func:`kvdata.audit.behavioural.probe_pairs`) start their
own sandboxed worker processes wherever they run, so a Ray task is one batch run by those functions on the node
it lands on, with the sandbox there. What crosses the boundary is the stage's own data classes (pickled).

- ``local``: one batch holding everything, run in this process; the stage function parallelises it over
  ``workers`` sandboxed processes itself.
- ``ray``: batches of ``batch_size`` items become Ray tasks (``num_cpus`` each); ``address`` selects the cluster
  (``None``: start or join a local one, as ``ray.init`` does).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional, Sequence

__all__ = ["LocalExecutor", "RayExecutor", "make_executor", "EXECUTORS"]

EXECUTORS = ("local", "ray")


@dataclass
class LocalExecutor:
    """Runs a stage in this process, on all its items at once (the stage forks its own workers)."""

    workers: Optional[int] = None

    def batches(self, items: Sequence) -> list[Sequence]:
        return [items] if len(items) else []

    def map(self, fn: Callable[..., Any], items: Sequence, **kwargs) -> Iterator[Any]:
        for batch in self.batches(items):
            yield fn(batch, workers=self.workers, **kwargs)


@dataclass
class RayExecutor:
    """Runs a stage as Ray tasks, one per batch of ``batch_size`` items, each with one sandboxed worker."""

    address: Optional[str] = None
    batch_size: int = 64
    cpus_per_task: float = 1.0
    init_kwargs: Optional[dict] = None

    def batches(self, items: Sequence) -> list[Sequence]:
        size = max(1, self.batch_size)
        return [items[i:i + size] for i in range(0, len(items), size)]

    def map(self, fn: Callable[..., Any], items: Sequence, **kwargs) -> Iterator[Any]:
        import ray

        if not ray.is_initialized():
            ray.init(address=self.address, **(self.init_kwargs or {}))
        task = ray.remote(num_cpus=self.cpus_per_task)(_run_batch)
        pending = [task.remote(fn, list(batch), kwargs) for batch in self.batches(items)]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for result in ray.get(ready):
                yield result


def _run_batch(fn: Callable[..., Any], batch: list, kwargs: dict) -> Any:
    # One sandboxed worker per task: Ray already spreads the tasks over the cluster's CPUs.
    return fn(batch, workers=1, **kwargs)


def make_executor(kind: str = "local", *, workers: Optional[int] = None, ray_address: Optional[str] = None,
                  batch_size: int = 64):
    """The executor named ``kind`` (one of :data:`EXECUTORS`)."""
    if kind == "local":
        return LocalExecutor(workers=workers)
    if kind == "ray":
        return RayExecutor(address=ray_address, batch_size=batch_size)
    raise ValueError(f"unknown executor {kind!r}; expected one of {', '.join(EXECUTORS)}")
