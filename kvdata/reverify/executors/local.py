"""Runs samples on this machine: one worker slot per GPU (``--gpus N``) or per CPU worker (``--workers N``).

Each slot is a thread in the parent that owns a ``Verifier`` (and so its own warm,
sandboxed zygote, pinned to its GPU through ``CUDA_VISIBLE_DEVICES``); slots pull samples
from a shared queue, and every result is appended to the store the moment it exists.
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
                 cache_root: Optional[Path] = None, scratch_root: Optional[Path] = None):
        self.config = config
        self.gpus = gpus
        self.slots = gpus if gpus else max(1, workers)
        self.cache_root, self.scratch_root = cache_root, scratch_root

    def run(self, samples: Sequence, on_result: Callable[[ResultRow], None]) -> None:
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
