"""``RewardService``: completions in, ``Verdict``s out: parse, look up the cache, verify what is new on the warm
pool (local slots or a Ray actor pool), apply the reward formula.

One service per process and per setting (``service_for``): veRL and TRL call the reward once per batch or once
per completion, and every call finds the same warm workers and the same cache. Duplicates are verified once, in a
batch and across calls made at the same time (the second waits for the first's verdict). ``close_all`` runs at
exit, so the sandboxed workers end with the trainer.

What a completion does (no code, a crash, a hang, a hack) is its verdict, never an exception; kvdata's own failure
mid-batch is an ``error`` verdict (reward 0, not cached). A configuration error raises, at the first batch, rather
than paying 0 for everything: a row that is not a kernel task (``items.UnsupportedTask``), a HIP row on a backend
that needs the functional reference it lacks, no verifier pool (no served Ray actors).
"""
from __future__ import annotations

import atexit
import dataclasses
import logging
import threading
import time
from concurrent.futures import Future
from typing import Optional, Sequence

from kvdata.reward.cache import VerdictCache, content_id, verdict_key
from kvdata.reward.config import RewardConfig, ServeConfig
from kvdata.reward.formula import reward_of
from kvdata.reward.items import RewardItem, UnsupportedTask
from kvdata.reward.parse import parse_completion
from kvdata.reward.verdict import Verdict

logger = logging.getLogger(__name__)


class RewardService:
    """Scores ``RewardItem``s with ``reward`` (a ``RewardConfig``) on verdicts obtained as ``serve`` says."""

    def __init__(self, reward: Optional[RewardConfig] = None, serve: Optional[ServeConfig] = None, pool=None,
                 cache: Optional[VerdictCache] = None):
        self.reward = reward or RewardConfig()
        self.serve = serve or ServeConfig()
        self._pool = pool
        self._pool_lock = threading.Lock()
        self.cache = cache if cache is not None else VerdictCache(self.serve.cache_dir, self.serve.cache_size)
        self._reverify_config = self.serve.reverify_config()
        self._config_hash = self._reverify_config.config_hash()
        self._inflight: dict[str, Future] = {}
        self._runs: dict[str, int] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the pool, started on first need
    @property
    def pool(self):
        with self._pool_lock:
            if self._pool is None:
                if self.serve.ray_address is not None:
                    from kvdata.reward.ray_pool import RayPool

                    self._pool = RayPool.connect(self.serve)
                else:
                    from kvdata.reward.pool import LocalPool

                    self._pool = LocalPool(self.serve)
            return self._pool

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None
        self.cache.close()

    def stats(self) -> dict:
        """The cache's counters and the harness runs this service asked for."""
        with self._lock:
            runs = sum(self._runs.values())
        return {**self.cache.stats(), "runs": runs}

    # ------------------------------------------------------------------ scoring
    def score(self, items: Sequence[RewardItem]) -> list[Verdict]:
        """One verdict per item, in order; a completion's failure is its verdict, never an exception."""
        t0 = time.monotonic()
        verdicts: list[Optional[Verdict]] = [None] * len(items)
        todo: dict[str, tuple] = {}            # key -> (sample, [indices])
        waits: dict[str, tuple] = {}           # key -> (future, [indices]) run by another call
        mine: dict[str, Future] = {}
        samples: dict[int, tuple] = {}         # first every item's sample: a configuration error raises here,
        for i, item in enumerate(items):       # before this call holds any key another call could wait on
            parsed = parse_completion(item.completion, item.language, self.reward.max_code_chars)
            if parsed.ok:
                samples[i] = self._sample(item, parsed.code)
            else:
                verdicts[i] = Verdict(score=0.0, status="unparsed", reason=f"unparsed:{parsed.reason}",
                                      parse_reason=parsed.reason, message=parsed.detail, task_id=item.task_id)
        try:
            for i, (sample, key) in samples.items():
                item = items[i]
                if key in waits:                 # a duplicate of one in flight, here or in another call
                    waits[key][1].append(i)
                    continue
                row = self.cache.get(key)
                if row is not None:
                    verdicts[i] = self._verdict(row, item, key, cache_hit=True)
                    continue
                with self._lock:
                    other = self._inflight.get(key)
                    if other is None:
                        mine[key] = self._inflight[key] = Future()
                if other is not None:
                    waits[key] = (other, [i])
                else:
                    todo[key] = (sample, [i])
            if todo:
                self._run(todo, mine, items, verdicts)
        finally:                               # whatever happened, no other call waits forever on these keys
            for key, future in mine.items():
                if not future.done():
                    with self._lock:
                        self._inflight.pop(key, None)
                    future.set_result("kvdata failed while verifying this completion")
        for key, (future, indices) in waits.items():
            row = future.result()
            for i in indices:
                verdicts[i] = (self._verdict(row, items[i], key, cache_hit=True) if isinstance(row, dict)
                               else self._error(items[i], key, row))
        wall = time.monotonic() - t0
        return [dataclasses.replace(v, wall_s=round(wall, 4)) for v in verdicts]

    def _run(self, todo: dict, mine: dict, items, verdicts: list) -> None:
        samples = [sample for sample, _ in todo.values()]
        pool = self.pool                 # no pool (no served actors, no Ray) is a configuration error: it raises
        try:
            verified = pool.verify(samples)
            rows, error = verified.rows, verified.error
        except Exception as e:  # noqa: BLE001 - e.g. the Ray cluster went away mid-batch
            logger.exception("kvdata.reward: the verifier pool failed")
            rows, error = {}, f"{type(e).__name__}: {e}"
        for key, (sample, indices) in todo.items():
            row = rows.get(sample.id)
            if row is not None:
                row = row.to_dict()
                self.cache.put(key, row)
                with self._lock:
                    self._runs[key] = self._runs.get(key, 0) + 1
            outcome = row if row is not None else (error or "the verifier returned no verdict")
            for n, i in enumerate(indices):
                verdicts[i] = (self._verdict(row, items[i], key, cache_hit=n > 0) if row is not None
                               else self._error(items[i], key, outcome))
            with self._lock:
                self._inflight.pop(key, None)
            mine[key].set_result(outcome)

    def _sample(self, item: RewardItem, code: str):
        from kvdata.reverify.backends import BackendUnavailable, backend_class, resolve_backend
        from kvdata.reverify.samples import Sample

        cid = content_id(item.language, code, item.reference, item.functional_code)
        try:
            backend = resolve_backend(item.language, self.serve.backend)
        except BackendUnavailable:
            backend = None
        if item.language == "hip" and backend and not item.functional_code and not backend_class(backend).compile_only:
            raise UnsupportedTask(f"task {item.task_id or '?'}: the {backend} backend runs a HIP extension in place of "
                                  "module_fn from the reference's functional form (pytorch_functional_code), which "
                                  "this row's extra_info does not carry (the rl export does not write it yet); "
                                  "score HIP with backend='hip-compile' (compile term only)")
        sample = Sample(id=cid, language=item.language, pytorch_code=item.reference, kernel_code=code,
                        pytorch_functional_code=item.functional_code, task_name=item.task_name,
                        subset=item.task)
        return sample, verdict_key(cid, backend, self._config_hash)

    def _verdict(self, row: dict, item: RewardItem, key: str, cache_hit: bool) -> Verdict:
        terms = reward_of(row.get("status", ""), row.get("compile_ok"), row.get("flags"), row.get("speedup"),
                          self.reward)
        with self._lock:
            runs = self._runs.get(key, 0)
        return Verdict(score=terms.reward, status=row.get("status", ""), reason=terms.reason,
                       compiled=terms.compiled, correct=row.get("status") == "correct" and terms.correct > 0,
                       compile_term=terms.compile, correct_term=terms.correct, speedup_term=terms.speedup,
                       speedup=row.get("speedup"), flags=tuple(row.get("flags") or ()), costs=terms.costs,
                       message=(row.get("message") or "")[:2000], backend=row.get("backend"), task_id=item.task_id,
                       key=key, cache_hit=cache_hit, runs=runs, row=row)

    def _error(self, item: RewardItem, key: str, message: str) -> Verdict:
        return Verdict(score=0.0, status="error", reason="error", message=str(message)[:2000], task_id=item.task_id,
                       key=key)


# ---------------------------------------------------------------------- one service per process and setting
_SERVICES: dict[tuple, RewardService] = {}
_SERVICES_LOCK = threading.Lock()


def service_for(reward: Optional[RewardConfig] = None, serve: Optional[ServeConfig] = None) -> RewardService:
    """The process's service for this (reward, serve) setting, created on first use."""
    reward, serve = reward or RewardConfig(), serve or ServeConfig()
    with _SERVICES_LOCK:
        service = _SERVICES.get((reward, serve))
        if service is None:
            service = _SERVICES[(reward, serve)] = RewardService(reward, serve)
        return service


def close_all() -> None:
    """End every service's workers (registered with atexit)."""
    with _SERVICES_LOCK:
        services = list(_SERVICES.values())
        _SERVICES.clear()
    for s in services:
        try:
            s.close()
        except Exception:  # noqa: BLE001 - at exit, one failing close must not stop the others
            logger.exception("kvdata.reward: closing a service failed")


atexit.register(close_all)
