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

from kvdata.kv_store import KeyValueStore

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
    """Fingerprints (or deterministic failures) by content key (:class:`kvdata.kv_store.KeyValueStore`)."""

    def __init__(self, cache_dir: str | os.PathLike):
        self._store = KeyValueStore(cache_dir, "fingerprints.sqlite", table="fp")
        self.path = self._store.path

    def get_many(self, keys: list[str]) -> dict[str, Fingerprint | TraceError]:
        found: dict[str, Fingerprint | TraceError] = {}
        for key, body in self._store.get_many(keys).items():
            d = json.loads(body)
            found[key] = TraceError.from_json(d) if "error" in d else Fingerprint.from_json(d)
        return found

    def put(self, key: str, value: Fingerprint | TraceError) -> None:
        if isinstance(value, TraceError) and not value.final:
            return
        self._store.put_many({key: json.dumps(value.to_json())})

    def __len__(self) -> int:
        return len(self._store)
