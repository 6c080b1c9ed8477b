"""Warm verifier slots on this machine: reverify's own ``LocalExecutor`` with ``keep_warm=True``, so its sandboxed
zygotes (``kvdata.reverify.worker``) stay up from one trainer batch to the next.

There is no second sandbox or worker pool here: each slot is a ``runner.Verifier`` with its warm worker, one per
GPU (``gpus``) or ``workers`` of them on the CPU. A batch is spread over the slots; batches that arrive at the same
time (veRL scores each completion in its own thread) share them. A completion that crashes, hangs or eats memory
is ended by the sandbox and gets its own verdict (``crashed``, ``timeout``); its worker is restarted for the next
one. If kvdata itself fails (a bug, a slot that cannot start), ``verify`` reports it for the samples it left
without a verdict and never raises.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from kvdata.reward.config import ServeConfig

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Verified:
    """What a pool hands back for a batch (across Ray's process boundary too): the verifier's ``ResultRow`` per
    sample id, and kvdata's own failure, if any, which left the other samples without one."""

    rows: dict = field(default_factory=dict)
    error: Optional[str] = None


class LocalPool:
    """``verify(samples) -> Verified`` on warm local slots."""

    def __init__(self, serve: ServeConfig):
        from kvdata.reverify.executors.local import LocalExecutor

        self.serve = serve
        self.config = serve.reverify_config()
        self.executor = LocalExecutor(self.config, workers=serve.workers, gpus=serve.gpus,
                                      cache_root=Path(serve.verifier_cache_root) if serve.verifier_cache_root else None,
                                      keep_warm=True)
        self.runs = 0
        self._lock = threading.Lock()

    @property
    def slots(self) -> int:
        return self.executor.slots

    def verify(self, samples: Sequence) -> Verified:
        rows: dict = {}

        def on_result(row) -> None:
            rows[row.id] = row

        error = None
        try:
            self.executor.run(list(samples), on_result)
        except Exception as e:  # noqa: BLE001 - kvdata's failure costs these samples their verdicts, not the trainer
            logger.exception("kvdata.reward: the verifier failed on a batch of %d", len(samples))
            error = f"{type(e).__name__}: {e}"
        with self._lock:
            self.runs += len(rows)
        return Verified(rows, error)

    def close(self) -> None:
        self.executor.close()
