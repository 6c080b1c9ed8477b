"""Tracing codes in sandboxed worker processes: :func:`fingerprint_many`.

Tracing runs untrusted code, so it happens in :mod:`._trace_worker` inside :class:`kvdata.sandbox.Sandbox`, many
codes per worker process (torch imports once), with a per-item time limit; a hang or crash costs that item only
(the parent restarts a worker after it). What comes back is parsed as data and nothing more. Every code that
gets no fingerprint gets a :class:`~.records.TraceError` with a reason code.
"""
from __future__ import annotations

import json
import logging
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .cache import FingerprintCache, content_key
from .graph import fingerprint_from_worker
from .records import REASON_CODES, Fingerprint, TraceError

logger = logging.getLogger(__name__)

WORKER = Path(__file__).with_name("_trace_worker.py")
STARTUP_GRACE_S = 60.0          # importing torch in a cold sandbox can take a while on a busy machine
ANSWER_GRACE_S = 10.0           # past its own per-item alarm, how long a worker may stay silent before the kill
MAX_LINE_BYTES = 64 * 2**20     # a worker line larger than this is not a fingerprint we want
_DEF_NAME = re.compile(r"^\s*def\s+([A-Za-z_]\w*)\s*\(", re.MULTILINE)


@dataclass
class TraceStats:
    """What the last :func:`fingerprint_many` call did (tests and the audit report read it)."""

    cached: int = 0
    traced: int = 0
    failed: int = 0
    worker_starts: int = 0
    reasons: Counter = field(default_factory=Counter)     # reason code -> codes that failed with it


def _static_failure(code) -> Optional[TraceError]:
    """A failure known without running the code (most corpus rows, HIP or Triton, have nothing to trace)."""
    from kvdata.audit.discover import INPUT_HELPER

    if not isinstance(code, str) or not code.strip():
        return TraceError("empty or non-text code", code="empty_code")
    if "torch" not in code:
        return TraceError("the code never mentions torch", code="no_torch_reference")
    if "get_inputs" not in code and not any(INPUT_HELPER.match(n) for n in _DEF_NAME.findall(code)):
        return TraceError("no get_inputs() or inputs helper in the code", code="no_inputs")
    return None


def fingerprint_many(codes: dict, cache_dir=None, timeout_s: float = 60, workers: Optional[int] = None,
                     memory_mb: int = 6144, errors: Optional[dict] = None,
                     stats: Optional[TraceStats] = None, progress: bool = False,
                     failures: Optional[dict] = None) -> dict:
    """Trace and fingerprint every code: ``{id: Fingerprint | None}`` (None: could not trace).

    For every None, ``errors`` (if given) receives ``{id: message}`` and ``failures`` ``{id: TraceError}`` (with
    its reason ``code``). ``timeout_s`` bounds one code; ``workers`` sandboxed processes run in parallel
    (default: up to 4, one per core).
    """
    stats = stats if stats is not None else TraceStats()
    errors = errors if errors is not None else {}
    failures = failures if failures is not None else {}
    keys = {cid: content_key(code if isinstance(code, str) else "") for cid, code in codes.items()}
    cache = FingerprintCache(cache_dir) if cache_dir else None
    known: dict[str, Fingerprint | TraceError] = cache.get_many(list(keys.values())) if cache is not None else {}
    stats.cached += sum(1 for k in keys.values() if k in known)
    todo: dict[str, str] = {}
    for cid, key in keys.items():
        if key not in known and key not in todo:
            failure = _static_failure(codes[cid])
            if failure is not None:
                known[key] = failure
            else:
                todo[key] = codes[cid]
    if todo:
        n_workers = max(1, min(workers or min(4, os.cpu_count() or 1), len(todo)))
        bar = _progress(len(todo), progress)

        def store(key, value):
            known[key] = value
            if cache is not None:
                cache.put(key, value)
        try:
            # the longest codes first: a worker that draws a level-3 network late would hold up the end of the run
            found, starts = _trace_items(sorted(todo.items(), key=lambda kv: -len(kv[1])), timeout_s, memory_mb,
                                         n_workers, bar, store)
        finally:
            if bar is not None:
                bar.close()
        stats.worker_starts += starts
        stats.traced += sum(1 for v in found.values() if isinstance(v, Fingerprint))
    result: dict = {}
    for cid, key in keys.items():
        value = known.get(key, TraceError("not traced", final=False, code="not_traced"))
        if isinstance(value, Fingerprint):
            result[cid] = value
        else:
            result[cid] = None
            errors[cid] = value.message
            failures[cid] = value
            stats.failed += 1
            stats.reasons[value.code] += 1
    return result


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc="tracing", unit="code")



def _trace_items(items: list[tuple[str, str]], timeout_s: float, memory_mb: int, n_workers: int,
                 bar=None, store=None) -> tuple[dict[str, Fingerprint | TraceError], int]:
    """Trace ``items`` in sandboxed workers fed from one queue (:func:`kvdata.sandbox_batch.run_workers`): a
    worker that dies or stops answering costs the item it was on, and a fresh worker continues from the next.

    Returns (results by content key, number of workers started)."""
    from kvdata.sandbox import Sandbox, SandboxLimits
    from kvdata.sandbox_batch import BatchWorker, run_workers

    def fail(stop):
        return TraceError(stop.detail, final=stop.kind != "worker_died", code=stop.kind)

    def broken(stop):
        return TraceError(f"trace worker cannot run: {stop.detail}", final=False, code="worker_broken")

    sandbox = Sandbox(SandboxLimits(timeout_s=timeout_s, memory_mb=memory_mb),
                      env={"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
    worker = BatchWorker(sandbox, WORKER, timeout_s, memory_mb,
                         parse=lambda line, i, key: _parse_line(line, i, key)[1], fail=fail, broken=broken,
                         startup_grace_s=STARTUP_GRACE_S, answer_grace_s=ANSWER_GRACE_S,
                         max_line_bytes=MAX_LINE_BYTES)
    return run_workers(worker, [(key, {"code": code}) for key, code in items], n_workers,
                       bar.update if bar is not None else None, on_value=store)


def _parse_line(line: bytes, index: int, expected_key: str) -> tuple[str, Fingerprint | TraceError]:
    """One worker answer, checked against what was asked; anything unexpected is a failure of that item."""
    try:
        d = json.loads(line)
        if not isinstance(d, dict) or d.get("i") != index or d.get("key") != expected_key:
            raise ValueError("answer out of order")
        if d.get("ok") is True:
            return expected_key, fingerprint_from_worker(expected_key, d.get("graphs"))
        code = d.get("code")
        return expected_key, TraceError(str(d.get("error", "unknown error"))[:2000],
                                        code=code if code in REASON_CODES else "forward_failed")
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as err:
        return expected_key, TraceError(f"unusable worker output: {type(err).__name__}: {err}"[:2000],
                                        code="bad_output")
