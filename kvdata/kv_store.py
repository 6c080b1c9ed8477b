"""A content-keyed cache in one SQLite file: the one store behind the audit's embedding, fingerprint and probe
caches.

Keys are content hashes chosen by the caller (they include whatever version makes an old value stale), values are
bytes or text. WAL mode lets concurrent readers share the file with one writer; a lock makes one store safe to use
from the threads of one process. Each ``put_many`` is one transaction, so an interrupted run keeps what it wrote.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Iterable, Sequence, Union

__all__ = ["KeyValueStore"]

Value = Union[bytes, str]
_BATCH = 500        # keys per SELECT ... IN (...): well under SQLite's variable limit


class KeyValueStore:
    """``get_many(keys) -> {key: value}`` and ``put_many({key: value})`` over ``cache_dir/filename``."""

    def __init__(self, cache_dir: str | os.PathLike, filename: str, table: str = "kv"):
        if not table.isidentifier():
            raise ValueError(f"table name {table!r} is not an identifier")
        self.path = Path(cache_dir) / filename
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._table = table
        self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, body BLOB NOT NULL)")
        self._db.commit()
        self._lock = threading.Lock()

    def get_many(self, keys: Sequence[str]) -> dict[str, Value]:
        found: dict[str, Value] = {}
        unique = list(dict.fromkeys(keys))
        with self._lock:
            for i in range(0, len(unique), _BATCH):
                part = unique[i:i + _BATCH]
                rows = self._db.execute(f"SELECT key, body FROM {self._table} WHERE key IN "
                                        f"({','.join('?' * len(part))})", part).fetchall()
                found.update(rows)
        return found

    def put_many(self, items: dict[str, Value] | Iterable[tuple[str, Value]]) -> None:
        pairs = list(items.items() if isinstance(items, dict) else items)
        if not pairs:
            return
        with self._lock:
            self._db.executemany(f"INSERT OR REPLACE INTO {self._table} (key, body) VALUES (?, ?)", pairs)
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute(f"SELECT COUNT(*) FROM {self._table}").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
