"""Many untrusted items through one sandboxed worker script, restarted after whatever kills it.

The audit's tracer and prober both work this way: a worker script (run with ``python -I`` inside
:class:`kvdata.sandbox.Sandbox`) reads ``inputs.jsonl`` from its scratch dir and answers one JSON line per item,
in order, on its protocol channel. Importing torch once per worker, not once per item, is what makes that cheap;
the price is that one item can hang, crash or bloat the worker. This module holds the one loop that handles it:

- the parent watches the worker tree's memory and a deadline that restarts with every answer (the worker's own
  per-item alarm ends a slow item first; past that plus a grace, the worker is wedged and killed);
- the item a worker stopped on gets the failure (``memory``, ``timeout`` or ``worker_died``) and a fresh worker
  carries on from the next item;
- two workers in a row that die before answering anything mean the worker cannot run here at all: the remaining
  items all get the ``broken`` verdict, so a broken environment costs seconds, not one start per item.

What the caller supplies is only what differs: the script, each item's payload, how to parse one answer line,
and what a failure becomes (its own record type). ``on_value(key, result)`` hands each result over as it comes
(the prober caches it at once, so an interrupted audit keeps what it probed), and setting ``cancel`` stops the
loop at the next answer or quarter second, killing the worker: an interrupted audit does not wait for it.
"""
from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from kvdata.sandbox import Sandbox, kill_tree, tree_rss_mb

__all__ = ["WorkerStop", "BatchWorker"]



def shards(items: Sequence, n: int) -> list[list]:
    """``items`` dealt round-robin into at most ``n`` non-empty shards, one per worker. Callers list their work
    in an order that groups heavy items (a benchmark by level: level-3 networks last); dealing, not cutting,
    spreads those over every worker instead of leaving one worker with all of them."""
    return [list(items[i::n]) for i in range(min(n, len(items)))]

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
    """Why a worker stopped before answering every item: ``memory``, ``timeout``, ``worker_died`` or
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

    def run(self, items: Sequence[tuple[str, dict]], on_result: Optional[Callable[[], None]] = None,
            on_value: Optional[Callable[[str, Any], None]] = None, cancel: Optional[threading.Event] = None
            ) -> tuple[dict[str, Any], int]:
        """Every item's result by key (those answered before ``cancel`` was set, if it was), and the number of
        workers started. ``items``: (key, JSON payload)."""
        results = _Results(on_value)
        start, starts, silent_deaths = 0, 0, 0
        items = list(items)
        while start < len(items):
            if cancel is not None and cancel.is_set():
                break
            starts += 1
            done, stop = self._one_worker(items[start:], results, on_result, cancel)
            if stop is not None and stop.kind == "cancelled":
                break
            silent_deaths = silent_deaths + 1 if (done == 0 and stop is not None
                                                  and stop.kind == "worker_died") else 0
            if silent_deaths >= 2:
                for key, _ in items[start:]:
                    results[key] = self.broken(stop)
                break
            start += done
            if stop is not None and start < len(items):
                results[items[start][0]] = self.fail(stop)
                if on_result is not None:
                    on_result()
                start += 1
        return dict(results), starts

    def _one_worker(self, items, results, on_result, cancel=None) -> tuple[int, Optional[WorkerStop]]:
        scratch = self.sandbox.make_scratch()
        try:
            with open(scratch / "inputs.jsonl", "w", encoding="utf-8") as f:
                for key, payload in items:
                    f.write(json.dumps({"key": key, **payload}) + "\n")
            with tempfile.TemporaryFile() as err:
                proc, _ = self.sandbox.popen([sys.executable, "-I", str(self.script), "inputs.jsonl",
                                              f"{self.timeout_s:g}"], scratch=scratch, stdin=subprocess.DEVNULL,
                                             stdout=subprocess.PIPE, stderr=err)
                lines: queue.Queue = queue.Queue()
                threading.Thread(target=_read_lines, args=(proc.stdout, lines, self.max_line_bytes),
                                 daemon=True).start()
                answered, stop = 0, None
                deadline = time.monotonic() + self.startup_grace_s + self.timeout_s
                while answered < len(items):
                    if cancel is not None and cancel.is_set():
                        stop = WorkerStop("cancelled", "the caller stopped the run")
                        break
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
                    key = items[answered][0]
                    results[key] = self.parse(line, answered, key)
                    answered += 1
                    if on_result is not None:
                        on_result()
                    deadline = time.monotonic() + self.timeout_s + self.answer_grace_s
                kill_tree(proc)
                proc.wait()
                return answered, stop
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def _read_lines(stream, sink: queue.Queue, limit: int) -> None:
    for line in iter(lambda: stream.readline(limit), b""):
        sink.put(line)
    sink.put(None)


def _tail(f, limit: int = 1500) -> str:
    f.seek(0)
    return f.read().decode("utf-8", "replace").strip()[-limit:]
