"""Many untrusted items through sandboxed worker scripts, each restarted after whatever kills it.

The audit's tracer and prober both work this way: a worker script (run with ``python -I`` inside
:class:`kvdata.sandbox.Sandbox`) reads one JSON line per item on its stdin and answers one JSON line per item,
in order, on its protocol channel. Importing torch once per worker, not once per item, is what makes that cheap;
the price is that one item can hang, crash or bloat the worker. This module holds the one loop that handles it:

- the items wait in one :class:`WorkQueue` shared by every worker of a run (:func:`run_workers`), and a worker is
  handed the next item only when it has answered the last. A worker held up by one slow item (a level-3 network)
  leaves the rest to the others, so a run ends close to total work / workers, not with one worker's share of the
  slow items;
- the parent watches the worker tree's memory and a deadline that restarts with every item handed over (the
  worker's own per-item alarm ends a slow item first; past that plus a grace, the worker is wedged and killed);
- the item a worker stopped on gets the failure (``memory``, ``timeout`` or ``worker_died``) and a fresh worker
  carries on with the next item of the queue;
- two workers in a row that die before answering anything mean the worker cannot run here at all: that item and
  every item left in the queue get the ``broken`` verdict, so a broken environment costs seconds, not one start
  per item.

What the caller supplies is only what differs: the script, each item's payload, how to parse one answer line,
and what a failure becomes (its own record type). ``on_value(key, result)`` hands each result over as it comes
(the prober caches it at once, so an interrupted audit keeps what it probed), and setting ``cancel`` stops the
loop at the next answer or quarter second, killing the worker: an interrupted audit does not wait for it.
"""
from __future__ import annotations

import collections
import json
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from kvdata.sandbox import Sandbox, kill_tree, tree_rss_mb

__all__ = ["WorkerStop", "BatchWorker", "WorkQueue", "run_workers"]


class WorkQueue:
    """Items handed out one at a time, in order, to whichever worker asks first (thread-safe)."""

    def __init__(self, items: Sequence[tuple[str, dict]]) -> None:
        self._items = collections.deque(items)
        self._lock = threading.Lock()

    def take(self) -> Optional[tuple[str, dict]]:
        with self._lock:
            return self._items.popleft() if self._items else None

    def drain(self) -> list[tuple[str, dict]]:
        with self._lock:
            out = list(self._items)
            self._items.clear()
            return out

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


class _Results(dict):
    """The results of a run, each handed to ``on_value`` as it is recorded."""

    def __init__(self, on_value: Optional[Callable[[str, Any], None]]) -> None:
        super().__init__()
        self._on_value = on_value

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        if self._on_value is not None:
            self._on_value(key, value)


@dataclass
class WorkerStop:
    """Why a worker stopped before the queue was empty: ``memory``, ``timeout``, ``worker_died`` or
    ``cancelled`` (the caller's ``cancel`` event)."""

    kind: str
    detail: str


@dataclass
class BatchWorker:
    """Runs ``script`` over items; ``parse(line, index, key)`` turns an answer into a result, ``fail(stop)`` makes
    the result of the item a worker stopped on, ``broken(stop)`` that of every item left when it cannot run."""

    sandbox: Sandbox
    script: Path
    timeout_s: float
    memory_mb: int
    parse: Callable[[bytes, int, str], Any]
    fail: Callable[[WorkerStop], Any]
    broken: Callable[[WorkerStop], Any]
    startup_grace_s: float = 60.0      # importing torch in a cold sandbox can take a while on a busy machine
    answer_grace_s: float = 10.0       # past its own per-item alarm, how long a worker may stay silent
    max_line_bytes: int = 64 * 2**20

    def run(self, source: WorkQueue, on_result: Optional[Callable[[], None]] = None,
            on_value: Optional[Callable[[str, Any], None]] = None, cancel: Optional[threading.Event] = None
            ) -> tuple[dict[str, Any], int]:
        """The result of every item this worker took from ``source`` (a queue of (key, JSON payload) pairs it may
        share with other workers), by key: those answered before ``cancel`` was set, if it was. Also the number of
        worker processes started."""
        results = _Results(on_value)
        starts, silent_deaths = 0, 0
        while len(source) and not (cancel is not None and cancel.is_set()):
            starts += 1
            answered, stop, current = self._one_worker(source, results, on_result, cancel)
            if stop is None or stop.kind == "cancelled" or current is None:
                break
            silent_deaths = silent_deaths + 1 if (answered == 0 and stop.kind == "worker_died") else 0
            if silent_deaths >= 2:
                for key, _ in [current] + source.drain():
                    results[key] = self.broken(stop)
                break
            results[current[0]] = self.fail(stop)
            if on_result is not None:
                on_result()
        return dict(results), starts

    def _one_worker(self, source: WorkQueue, results, on_result, cancel=None
                    ) -> tuple[int, Optional[WorkerStop], Optional[tuple[str, dict]]]:
        """One worker process, fed from ``source`` until it is empty or the worker stops: (items answered, why it
        stopped or None, the item it stopped on or None)."""
        scratch = self.sandbox.make_scratch()
        try:
            with tempfile.TemporaryFile() as err:
                proc, _ = self.sandbox.popen([sys.executable, "-I", str(self.script), f"{self.timeout_s:g}"],
                                             scratch=scratch, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=err)
                lines: queue.Queue = queue.Queue()
                threading.Thread(target=_read_lines, args=(proc.stdout, lines, self.max_line_bytes),
                                 daemon=True).start()
                answered, stop, current = 0, None, None
                deadline = time.monotonic() + self.startup_grace_s + self.timeout_s
                while True:
                    if cancel is not None and cancel.is_set():
                        stop = WorkerStop("cancelled", "the caller stopped the run")
                        break
                    if current is None:
                        current = source.take()
                        if current is None:                # the queue is empty: this worker is done
                            break
                        _send(proc, current)
                    try:
                        line = lines.get(timeout=0.25)
                    except queue.Empty:
                        if tree_rss_mb(proc.pid) > self.memory_mb:
                            stop = WorkerStop("memory", f"memory limit ({self.memory_mb} MB) exceeded")
                        elif time.monotonic() > deadline:
                            stop = WorkerStop("timeout", f"worker stopped answering (> {self.timeout_s:g} s)")
                        else:
                            continue
                        break
                    if line is None:                      # the worker exited
                        proc.wait()
                        stop = WorkerStop("worker_died", f"worker died (exit {proc.returncode}): {_tail(err)}")
                        break
                    results[current[0]] = self.parse(line, answered, current[0])
                    answered, current = answered + 1, None
                    if on_result is not None:
                        on_result()
                    deadline = time.monotonic() + self.timeout_s + self.answer_grace_s
                kill_tree(proc)
                proc.wait()
                return answered, stop, current
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def run_workers(worker: BatchWorker, items: Sequence[tuple[str, dict]], n_workers: int,
                on_result: Optional[Callable[[], None]] = None, on_value: Optional[Callable[[str, Any], None]] = None,
                cancel: Optional[threading.Event] = None) -> tuple[dict[str, Any], int]:
    """``items`` through up to ``n_workers`` processes of ``worker`` (a :class:`BatchWorker` holds no state of a
    run, so one serves every thread), each in its own thread, fed from one :class:`WorkQueue`: every item's
    result by key, and the number of worker processes started.

    On KeyboardInterrupt ``cancel`` (made here if not given) is set, so every worker stops at its next answer;
    what was answered by then has gone through ``on_value``.
    """
    source = WorkQueue(list(items))
    cancel = cancel if cancel is not None else threading.Event()
    results: dict[str, Any] = {}
    starts = 0
    pool = ThreadPoolExecutor(max(1, n_workers))
    try:
        futures = [pool.submit(worker.run, source, on_result, on_value, cancel)
                   for _ in range(max(1, min(n_workers, len(source))))]
        for fut in futures:
            part, n = fut.result()
            results.update(part)
            starts += n
    except KeyboardInterrupt:
        cancel.set()
        raise
    finally:
        pool.shutdown(wait=True)
    return results, starts


def _send(proc: subprocess.Popen, item: tuple[str, dict]) -> None:
    """Hand one item to a worker; a worker that already exited shows as ``worker_died`` on its next read."""
    key, payload = item
    try:
        proc.stdin.write((json.dumps({"key": key, **payload}) + "\n").encode("utf-8"))
        proc.stdin.flush()
    except (BrokenPipeError, OSError):
        pass


def _read_lines(stream, sink: queue.Queue, limit: int) -> None:
    for line in iter(lambda: stream.readline(limit), b""):
        sink.put(line)
    sink.put(None)


def _tail(f, limit: int = 1500) -> str:
    f.seek(0)
    return f.read().decode("utf-8", "replace").strip()[-limit:]
