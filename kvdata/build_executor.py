"""Where the build's work runs: in this process, or in a pool of forked worker processes.

The pipeline (:mod:`kvdata.pipeline`) says *what* to do with a chunk of records; an executor
says *where* it is done. Keeping the two apart (as datatrove keeps its pipeline steps apart
from its local / Slurm executors) means the pipeline has no pools, futures or read-ahead
queues in it, and an executor can be tested on its own.

Both executors offer the same two calls:

* :meth:`imap` runs ``fn(task, *args)`` for every task of an iterator and yields
  ``(task, result)`` **strictly in task order**, whatever order the workers finish in. The
  consumer's work on one result (the pipeline's ledger, spill and candidates) is done before
  the next task is drawn from the iterator, so a consumer may steer what the iterator yields
  next (the pipeline stops reading a Source after its crash). That order is why the output of
  a build does not depend on the number of workers.
* :meth:`run_each` runs independent jobs (one per config when writing shards) and returns
  their results in job order.

:class:`PoolExecutor` keeps up to ``2 * workers`` tasks in flight: while the workers process
them, the main process reads ahead (the iterator is advanced to submit the next task), and
results that are already done are handed on as soon as all earlier ones are. The time the
main process spends waiting for a result is recorded as the step ``wait``.

Tasks and results cross a process boundary in :class:`PoolExecutor` (pickled), so they must
be picklable; :attr:`Executor.ships_tasks` tells a caller whether they do, so that it sends
the cheapest form of a task (the pipeline then sends raw units and lets the workers run the
builder's costly half as well).
"""
from __future__ import annotations

import contextlib
from collections import deque
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

__all__ = ["Executor", "LocalExecutor", "PoolExecutor", "make_executor", "PARALLEL_CHUNK"]

#: items per chunk sent to a worker: small enough that every worker gets work and the chunks in
#: flight stay small, large enough that pickling and the per-chunk overhead are paid rarely
PARALLEL_CHUNK = 1_000


class Executor:
    """The interface both executors share; use one as a context manager (``with``) so that
    its workers, if any, are shut down when the build ends or fails."""

    #: worker processes (0: none, everything runs in the calling process)
    workers: int = 0
    #: whether tasks and results are pickled to and from other processes
    ships_tasks: bool = False

    def chunk_size(self, batch_size: int) -> int:
        """Items per task for a build whose configured batch is ``batch_size``."""
        return batch_size

    def imap(self, fn: Callable[..., Any], tasks: Iterable[Any], *args: Any,
             times: Optional[Any] = None) -> Iterator[tuple[Any, Any]]:
        """``(task, fn(task, *args))`` for every task, in task order. ``times`` (a
        :class:`kvdata.pipeline.StepTimes`, or anything with ``timed(step)``) receives the
        seconds spent waiting for workers."""
        raise NotImplementedError

    def run_each(self, fn: Callable[..., Any], jobs: Sequence[tuple]) -> list[Any]:
        """``[fn(*job) for job in jobs]``, the jobs possibly run in parallel."""
        return [fn(*job) for job in jobs]

    def close(self) -> None:
        """Release the workers; tasks not yet started are cancelled."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class LocalExecutor(Executor):
    """Runs every task in the calling process, one after the other: no pickling, no read-ahead.

    The default on small machines, where a worker only competes with the main process for the
    same cores (see docs/notes/build-pipeline.md)."""

    def imap(self, fn, tasks, *args, times=None):
        for task in tasks:
            yield task, fn(task, *args)


class PoolExecutor(Executor):
    """``workers`` forked processes, with read-ahead, results handed on strictly in task order.

    Fork rather than spawn where the platform has it: a function or a Source class defined
    anywhere (even in a test module) then reaches the workers without being importable by
    name. The workers are started when the executor is made, before the build opens files or
    starts threads (progress bars, Arrow writers), so that they are forked from a quiet process.
    """

    ships_tasks = True

    def __init__(self, workers: int, worker_setup: Optional[Callable[[], Any]] = None) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        if workers < 1:
            raise ValueError(f"a pool needs at least one worker, got {workers}")
        self.workers = workers
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self._pool = ProcessPoolExecutor(workers, mp_context=context, initializer=worker_setup)
        self._pool.submit(int).result()     # fork the workers now (see the class docstring)

    def chunk_size(self, batch_size: int) -> int:
        """Smaller chunks than in-process keep every worker busy and the chunks in flight small."""
        return min(batch_size, PARALLEL_CHUNK)

    @property
    def depth(self) -> int:
        """Tasks in flight at most (then the main process waits): two per worker, so a worker
        that finishes finds its next task already queued."""
        return 2 * self.workers

    def imap(self, fn, tasks, *args, times=None):
        pending: deque = deque()
        for task in tasks:
            pending.append((task, self._pool.submit(fn, task, *args)))
            while len(pending) > self.depth or (pending and pending[0][1].done()):
                yield self._collect(pending.popleft(), times)
        while pending:
            yield self._collect(pending.popleft(), times)

    @staticmethod
    def _collect(entry: tuple[Any, Any], times: Optional[Any]) -> tuple[Any, Any]:
        task, future = entry
        with (times.timed("wait") if times is not None else contextlib.nullcontext()):
            result = future.result()
        return task, result

    def run_each(self, fn, jobs):
        """One job runs here (sending it to a worker would only add the pickling); more run in
        the workers, all submitted at once."""
        if len(jobs) < 2:
            return [fn(*job) for job in jobs]
        futures = [self._pool.submit(fn, *job) for job in jobs]
        return [f.result() for f in futures]

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)


def make_executor(workers: int, worker_setup: Optional[Callable[[], Any]] = None) -> Executor:
    """The executor for ``BuildConfig.workers``: in-process for 0 (or less), else a pool of that many.

    ``worker_setup`` (picklable, no arguments) runs once in each worker process as it starts."""
    return PoolExecutor(workers, worker_setup) if workers > 0 else LocalExecutor()
