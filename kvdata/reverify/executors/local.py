"""Runs samples on this machine: one worker slot per GPU (``--gpus N``) or per CPU worker (``--workers N``).

Each slot is a thread in the parent that owns a ``Verifier`` (and so its own warm,
sandboxed zygote, pinned to its GPU through ``CUDA_VISIBLE_DEVICES``); slots pull samples
from a shared queue, and every result is appended to the store the moment it exists.

``keep_warm=True`` (the RL reward, ``kvdata.reward``): the slot threads and their verifiers, and so their zygotes,
outlive ``run``: the next call finds them warm, and ``close()`` ends them. The slots are threads of their own, not
the caller's: a zygote is started with ``--die-with-parent`` (``PR_SET_PDEATHSIG``), which fires when the *thread*
that started it ends. Calls made at the same time, from any threads, share the slots through one queue.
"""
from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Callable, Optional, Sequence

from kvdata.reverify.config import ReverifyConfig
from kvdata.reverify.protocol import ResultRow
from kvdata.reverify.runner import Verifier


class LocalExecutor:
    def __init__(self, config: ReverifyConfig, workers: int = 1, gpus: Optional[int] = None,
                 cache_root: Optional[Path] = None, scratch_root: Optional[Path] = None, keep_warm: bool = False):
        self.config = config
        self.gpus = gpus
        self.slots = gpus if gpus else max(1, workers)
        self.cache_root, self.scratch_root = cache_root, scratch_root
        self.keep_warm = keep_warm
        self._jobs: "queue.Queue" = queue.Queue()       # keep_warm: (sample, _Batch), or None to stop a slot
        self._warm: list[threading.Thread] = []
        self._verifiers: list[Verifier] = []
        self._lock = threading.Lock()

    def run(self, samples: Sequence, on_result: Callable[[ResultRow], None]) -> None:
        if self.keep_warm:
            return self._run_warm(samples, on_result)
        todo: "queue.Queue" = queue.Queue()
        for s in samples:
            todo.put(s)
        errors: list[BaseException] = []

        def slot(index: int) -> None:
            device = str(index) if self.gpus else None
            verifier = Verifier(self.config, self.cache_root, self.scratch_root, visible_device=device)
            try:
                while True:
                    try:
                        sample = todo.get_nowait()
                    except queue.Empty:
                        return
                    on_result(verifier.verify(sample))
            except BaseException as e:  # noqa: BLE001 - surfaced after the other slots finish
                errors.append(e)
            finally:
                verifier.close()

        threads = [threading.Thread(target=slot, args=(i,), daemon=True) for i in range(min(self.slots, len(samples)))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]

    # ------------------------------------------------------------------ keep_warm
    @property
    def verifiers(self) -> list[Verifier]:
        """The warm slots' verifiers (keep_warm; empty before the first call and after ``close``)."""
        with self._lock:
            return list(self._verifiers)

    def _run_warm(self, samples: Sequence, on_result: Callable[[ResultRow], None]) -> None:
        """Queue the samples for the warm slots (started on first use) and wait for all of them."""
        batch = _Batch(len(samples), on_result)
        with self._lock:
            while len(self._warm) < self.slots:
                t = threading.Thread(target=self._warm_slot, args=(len(self._warm),), daemon=True,
                                     name=f"kvdata-warm-slot-{len(self._warm)}")
                self._warm.append(t)
                t.start()
        for s in samples:
            self._jobs.put((s, batch))
        batch.wait()
        if batch.errors:
            raise batch.errors[0]

    def _warm_slot(self, index: int) -> None:
        """One slot for the executor's life: its verifier, made in this thread, so its zygote lives as long as it.
        A verifier that raised is closed and replaced before the next sample."""
        device = str(index) if self.gpus else None
        verifier = None
        try:
            while True:
                job = self._jobs.get()
                if job is None:
                    return
                sample, batch = job
                if verifier is None:
                    verifier = Verifier(self.config, self.cache_root, self.scratch_root, visible_device=device)
                    with self._lock:
                        self._verifiers.append(verifier)
                try:
                    row = verifier.verify(sample)
                except BaseException as e:  # noqa: BLE001 - the batch raises it once its other samples are done
                    with self._lock:
                        self._verifiers.remove(verifier)
                    verifier.close()
                    verifier = None
                    batch.done(error=e)
                    continue
                batch.done(row=row)
        finally:
            if verifier is not None:
                with self._lock:
                    self._verifiers.remove(verifier)
                verifier.close()

    def close(self) -> None:
        """End the warm slots and their zygotes (after the samples already queued)."""
        with self._lock:
            threads, self._warm = self._warm, []
        for _ in threads:
            self._jobs.put(None)
        for t in threads:
            t.join()


class _Batch:
    """One ``run`` call's samples in the warm queue: results go to its ``on_result`` as they come (an exception
    there is kept like a failed sample's); ``wait`` returns when every sample is done."""

    def __init__(self, n: int, on_result: Callable[[ResultRow], None]):
        self.left, self.on_result = n, on_result
        self.errors: list[BaseException] = []
        self._cond = threading.Condition()

    def done(self, row: Optional[ResultRow] = None, error: Optional[BaseException] = None) -> None:
        if row is not None:
            try:
                self.on_result(row)
            except BaseException as e:  # noqa: BLE001 - surfaced by wait(), in the caller's thread
                error = e
        with self._cond:
            if error is not None:
                self.errors.append(error)
            self.left -= 1
            self._cond.notify_all()

    def wait(self) -> None:
        with self._cond:
            while self.left > 0:
                self._cond.wait()
