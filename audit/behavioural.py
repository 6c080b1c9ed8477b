"""Behavioural equivalence: two references that compute the same function are the same task.

The structural measure compares graphs, and a paraphrase can compute the same function through another graph
(``F.gelu(x, approximate="tanh")`` against the formula, ``x * torch.rsqrt(...)`` against ``x / torch.sqrt(...)``,
a raw-``Parameter`` ``F.conv2d`` against ``nn.Conv2d``). This measure runs both references on the CPU at small
sizes on shared probe inputs, with shared weights, and compares their outputs under a tolerance:

- discovery of the references in each code (``Model``, a Triton row's torch helper, a model buried in a utility
  file): :mod:`kvdata.audit.discover`;
- one size for both, the follower rebuilt to fit the provider's inputs (other sizes, reordered constructor
  arguments): :mod:`kvdata.audit._probe_sizes`;
- weights matched by shape and role and copied across, probe inputs from several seeds and scales, eval and
  train mode, the tolerance: :mod:`kvdata.audit._probe_compare`.

Only candidate pairs are probed (the caller picks them). Probing runs untrusted code, so it happens only in
:mod:`kvdata.audit._probe_worker` processes inside :class:`kvdata.sandbox.Sandbox`: many pairs per worker (torch
imported once), ``workers`` of them in parallel, a per-pair time limit, the worker tree's resident memory
watched, each worker taking the next pair from one shared queue. A pair that hangs, crashes its worker or exhausts
memory costs that pair only: the worker is killed and a fresh one continues with the next pair. Every answer crosses as one JSON line, parsed into
:class:`~kvdata.audit._probe_worker.ProbeAnswer` and checked against what was asked.

Outcomes are cached in ``cache_dir`` (SQLite) by the hash of both codes as each one comes, except a dead worker's;
a pair that ran out of time or memory is cached with the limit it ran under, and asked again only under a larger
one. So an audit stopped with Ctrl-C keeps every probe it finished, and a rerun with the same ``cache_dir`` probes
only the rest.
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence

from kvdata.audit._probe_worker import PROBER_CODES, ProbeAnswer
from kvdata.audit.discover import REASON_CODES as DISCOVERY_CODES
from kvdata.kv_store import KeyValueStore

logger = logging.getLogger(__name__)

__all__ = ["ProbeOutcome", "probe_pairs", "ProbeCache", "REASON_CODES", "PROBE_VERSION"]

PROBE_VERSION = "kvprobe-1"            # part of every cache key: bump when the probing changes
WORKER = Path(__file__).with_name("_probe_worker.py")
STARTUP_GRACE_S = 60.0                 # importing torch in a cold sandbox can take a while on a busy machine
ANSWER_GRACE_S = 10.0                  # past its own per-pair alarm, how long a worker may stay silent
MAX_LINE_BYTES = 1 << 20
REASON_CODES: dict[str, str] = {**DISCOVERY_CODES, **PROBER_CODES,
                                "worker_failed": "the probe worker itself cannot start (a broken environment)"}
NOT_CACHED = {"worker_died", "worker_failed", "probe_error"}
# A pair that ran out of time or memory is cached with the limit it ran under: a later run under the same or a
# smaller limit takes the verdict from the cache (a warm rerun does not spend the budget again), a run with a
# larger limit probes the pair again.
OUT_OF_LIMIT = {"timeout": "timeout_s", "memory": "memory_mb"}


@dataclass
class ProbeOutcome:
    bench_id: str
    train_id: str
    score: float          # 1.0 equivalent on every probe; lower = fraction/closeness; NaN when not probed
    equivalent: bool
    reason: str           # "" when probed; else a code of REASON_CODES
    detail: str = ""      # which references matched and how, e.g. "Model ~ torch_reference: ..."
    cached: bool = False  # the verdict came from the cache (an earlier, perhaps interrupted, run)


@dataclass
class _Verdict:
    """An outcome without its ids: what is cached per content key."""

    score: float
    equivalent: bool
    reason: str
    detail: str

    @classmethod
    def from_answer(cls, a: ProbeAnswer) -> "_Verdict":
        return cls(float("nan") if a.score is None else a.score, a.equivalent, a.reason, a.detail)

    def to_json(self) -> str:
        return json.dumps({"score": None if math.isnan(self.score) else self.score, "equivalent": self.equivalent,
                           "reason": self.reason, "detail": self.detail})

    @classmethod
    def from_json(cls, body: str) -> "_Verdict":
        d = json.loads(body)
        return cls(float("nan") if d["score"] is None else float(d["score"]), bool(d["equivalent"]),
                   str(d["reason"]), str(d["detail"]))


def pair_key(bench: str, train: str) -> str:
    h = hashlib.sha256()
    for part in (PROBE_VERSION, bench, train):
        h.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


class ProbeCache:
    """Verdicts by pair key, in one SQLite file (:class:`kvdata.kv_store.KeyValueStore`).

    ``timeout_s`` and ``memory_mb`` are the limits of this run: a ``timeout`` or ``memory`` verdict is stored with
    its limit and read back only while that limit is at least this run's (:data:`OUT_OF_LIMIT`).
    """

    def __init__(self, cache_dir: str | os.PathLike, timeout_s: float = 20.0, memory_mb: int = 4096):
        self._store = KeyValueStore(cache_dir, "probes.sqlite", table="probe")
        self.path = self._store.path
        self.limits = {"timeout_s": float(timeout_s), "memory_mb": float(memory_mb)}

    def get_many(self, keys: Sequence[str]) -> dict[str, _Verdict]:
        out = {}
        for k, body in self._store.get_many(keys).items():
            limit = OUT_OF_LIMIT.get(json.loads(body)["reason"])
            if limit is None or json.loads(body).get(limit, 0.0) >= self.limits[limit]:
                out[k] = _Verdict.from_json(body)     # else it ran out under a smaller limit: probe it again
        return out

    def put(self, key: str, verdict: _Verdict) -> None:
        if verdict.reason in NOT_CACHED:
            return
        body = verdict.to_json()
        limit = OUT_OF_LIMIT.get(verdict.reason)
        if limit is not None:
            body = json.dumps({**json.loads(body), limit: self.limits[limit]})
        self._store.put_many({key: body})

    def __len__(self) -> int:
        return len(self._store)


def _precheck(bench: Optional[str], train: Optional[str]) -> Optional[_Verdict]:
    """Verdicts that need no worker: no code, or code that never imports torch."""
    for label, code in (("bench", bench), ("train", train)):
        if not isinstance(code, str) or not code.strip():
            return _Verdict(float("nan"), False, "empty_code", f"{label}: no code")
        if "torch" not in code:
            return _Verdict(float("nan"), False, "no_torch_reference", f"{label}: the code never mentions torch")
    return None


def probe_pairs(pairs: Sequence[tuple[str, str]], bench_code: Mapping[str, str], train_code: Mapping[str, str], *,
                timeout_s: float = 20.0, memory_mb: int = 4096, workers: int | None = None,
                cache_dir=None, progress: bool = True) -> dict[tuple[str, str], ProbeOutcome]:
    """Probe every (bench_id, train_id) pair; one :class:`ProbeOutcome` per distinct pair.

    ``timeout_s`` bounds one pair, ``memory_mb`` the resident memory of one worker's process tree; ``workers``
    sandboxed processes run in parallel (default: one per CPU).
    """
    pairs = list(dict.fromkeys((str(b), str(t)) for b, t in pairs))
    keys, known, todo = {}, {}, {}
    for b, t in pairs:
        bench, train = bench_code.get(b), train_code.get(t)
        early = _precheck(bench, train)
        if early is not None:
            keys[(b, t)] = f"early:{b}\0{t}"
            known[keys[(b, t)]] = early
            continue
        keys[(b, t)] = key = pair_key(bench, train)
        todo.setdefault(key, (bench, train))
    cache = ProbeCache(cache_dir, timeout_s, memory_mb) if cache_dir else None
    from_cache: set = set()
    if cache is not None and todo:
        hits = cache.get_many(list(todo))
        from_cache = set(hits)
        known.update(hits)
        todo = {k: v for k, v in todo.items() if k not in known}
    if todo:
        # the longest pairs first: a worker that draws a level-3 network late would hold up the end of the run
        items = sorted(todo.items(), key=lambda kv: -(len(kv[1][0]) + len(kv[1][1])))
        bar = _progress(len(items), progress)
        try:
            found, _ = _probe_items(items, timeout_s, memory_mb, workers or os.cpu_count() or 1, bar,
                                    cache.put if cache is not None else None)     # each verdict cached as it comes
            known.update(found)
        finally:
            if bar is not None:
                bar.close()
    out = {}
    for b, t in pairs:
        v = known.get(keys[(b, t)], _Verdict(float("nan"), False, "probe_error", "no answer"))
        out[(b, t)] = ProbeOutcome(b, t, v.score, v.equivalent, v.reason, v.detail, keys[(b, t)] in from_cache)
    return out


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc="probing", unit="pair")



def _probe_items(items: list, timeout_s: float, memory_mb: int, n_workers: int, bar=None, store=None
                 ) -> tuple[dict[str, _Verdict], int]:
    """Probe ``items`` in sandboxed workers fed from one queue (:func:`kvdata.sandbox_batch.run_workers`): a
    worker that dies or stops answering costs the pair it was on, and a fresh worker continues from the next."""
    from kvdata.sandbox import Sandbox, SandboxLimits
    from kvdata.sandbox_batch import BatchWorker, run_workers

    def parse(line: bytes, index: int, key: str) -> _Verdict:
        try:
            return _Verdict.from_answer(ProbeAnswer.from_line(line, index, key))
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            return _Verdict(float("nan"), False, "probe_error", f"unusable answer: {exc}"[:500])

    def fail(stop) -> _Verdict:
        logger.warning("behavioural probe stopped: %s %s", stop.kind, stop.detail[:200])
        return _Verdict(float("nan"), False, stop.kind, stop.detail[:1000])

    def broken(stop) -> _Verdict:
        return _Verdict(float("nan"), False, "worker_failed", stop.detail[:1000])

    sandbox = Sandbox(SandboxLimits(timeout_s=timeout_s, memory_mb=memory_mb),
                      env={"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
    worker = BatchWorker(sandbox, WORKER, timeout_s, memory_mb, parse=parse, fail=fail, broken=broken,
                         startup_grace_s=STARTUP_GRACE_S, answer_grace_s=ANSWER_GRACE_S,
                         max_line_bytes=MAX_LINE_BYTES)
    return run_workers(worker, [(key, {"bench": bench, "train": train}) for key, (bench, train) in items],
                       n_workers, bar.update if bar is not None else None, on_value=store)
