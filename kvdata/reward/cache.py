"""Content-addressed verdicts: the same completion for the same task, under the same verifier settings, gets the
verifier's earlier result row without running again.

The key is reverify's own ``store.result_key`` (``id|backend|config_hash``) with, as the id, a sha256 of what the
verdict depends on: the language, the extracted kernel code, the PyTorch reference (and its functional form). So
a GRPO group's duplicate completions, and the same answer met again in a later epoch, are judged once; and
changing the harness's settings (tolerances, seeds count, checks: ``ReverifyConfig.config_hash``) or the backend
is a new key. The reward weights are not in it: the cache holds verdicts, and the reward is computed from them
on every read, so a new ``RewardConfig`` reuses every verdict.

Rows live in memory (least recently used dropped past ``size``) and, with a ``cache_dir``, in SQLite
(``kvdata.kv_store.KeyValueStore``, WAL: veRL's several reward workers may share one file). Only verdicts of the
harness are stored, never kvdata's own errors. ``stats()`` counts hits, misses and stores.
"""
from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Optional

from kvdata.reverify.store import result_key


def content_id(language: str, code: str, reference: str, functional_code: Optional[str] = None) -> str:
    """``sha256:<hex>`` of what a verdict depends on besides the verifier's settings."""
    blob = json.dumps([language, code, reference, functional_code], ensure_ascii=False).encode("utf-8")
    return "sha256:" + hashlib.sha256(blob).hexdigest()[:40]


def verdict_key(cid: str, backend: Optional[str], config_hash: str) -> str:
    """reverify's result key for this content: ``id|backend|config_hash``."""
    return result_key({"id": cid, "backend": backend, "config_hash": config_hash})


class VerdictCache:
    """Result rows (dicts) by ``verdict_key``; thread-safe."""

    def __init__(self, cache_dir: Optional[str | Path] = None, size: int = 100_000):
        self.size = max(1, size)
        self._rows: "OrderedDict[str, dict]" = OrderedDict()
        self._lock = threading.Lock()
        self._store = None
        if cache_dir:
            from kvdata.kv_store import KeyValueStore

            self._store = KeyValueStore(cache_dir, "reward-verdicts.sqlite", table="verdicts")
        self.hits = self.misses = self.stores = 0

    def get(self, key: str) -> Optional[dict]:
        with self._lock:
            row = self._rows.get(key)
            if row is not None:
                self._rows.move_to_end(key)
                self.hits += 1
                return row
        if self._store is not None:
            found = self._store.get_many([key]).get(key)
            if found is not None:
                row = json.loads(found)
                with self._lock:
                    self._remember(key, row)
                    self.hits += 1
                return row
        with self._lock:
            self.misses += 1
        return None

    def put(self, key: str, row: dict) -> None:
        with self._lock:
            self._remember(key, row)
            self.stores += 1
        if self._store is not None:
            self._store.put_many({key: json.dumps(row, default=str)})

    def _remember(self, key: str, row: dict) -> None:
        self._rows[key] = row
        self._rows.move_to_end(key)
        while len(self._rows) > self.size:
            self._rows.popitem(last=False)

    def stats(self) -> dict:
        with self._lock:
            return {"hits": self.hits, "misses": self.misses, "stores": self.stores, "in_memory": len(self._rows)}

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
