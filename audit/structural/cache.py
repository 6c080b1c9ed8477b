"""Fingerprints by content, cached in one SQLite file, so a re-audit traces only new code.

The key is the hash of the code, :data:`~.records.FINGERPRINT_VERSION` and the torch version (the decompositions
a trace uses differ between torch releases, so fingerprints from two releases are not mixed). Deterministic
failures (``no_inputs``, a constructor that raises) are cached with their reason code too; transient ones (a
worker that died) are not.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path

from .records import FINGERPRINT_VERSION, Fingerprint, TraceError


@functools.lru_cache(maxsize=1)
def torch_version() -> str:
    """The installed torch's version, read from its metadata (torch itself is not imported)."""
    from importlib import metadata
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "none"


def content_key(code: str) -> str:
    text = f"{FINGERPRINT_VERSION}\0{torch_version()}\0{code}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class FingerprintCache:
    """Fingerprints (or deterministic failures) by content key."""

    def __init__(self, cache_dir: str | os.PathLike):
        self.path = Path(cache_dir) / "fingerprints.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS fp (key TEXT PRIMARY KEY, body TEXT NOT NULL)")
        self._db.commit()
        self._lock = threading.Lock()

    def get_many(self, keys: list[str]) -> dict[str, Fingerprint | TraceError]:
        found: dict[str, Fingerprint | TraceError] = {}
        unique = list(dict.fromkeys(keys))
        with self._lock:
            for i in range(0, len(unique), 500):
                part = unique[i:i + 500]
                rows = self._db.execute(
                    f"SELECT key, body FROM fp WHERE key IN ({','.join('?' * len(part))})", part).fetchall()
                for key, body in rows:
                    d = json.loads(body)
                    found[key] = TraceError.from_json(d) if "error" in d else Fingerprint.from_json(d)
        return found

    def put(self, key: str, value: Fingerprint | TraceError) -> None:
        if isinstance(value, TraceError) and not value.final:
            return
        body = json.dumps(value.to_json())
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO fp (key, body) VALUES (?, ?)", (key, body))
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM fp").fetchone()[0]
