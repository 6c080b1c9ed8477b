"""A content-addressed cache of compiled kernels, shared by parallel sandboxed workers.

Re-verifying a corpus twice (after a crash, on a second shard pass, for a report) must
not compile anything twice: compiling one HIP torch extension takes 10-30 s, running it
milliseconds. An entry is keyed by everything the artifact depends on — the source, the
backend, the target arch, the toolchain versions and the flags — so a toolchain upgrade
misses and a rerun hits.

Layout under ``root`` (the sandbox binds it read-write into every worker)::

    <key[:2]>/<key>/meta.json     written last: an entry without it is not an entry
    <key[:2]>/<key>/...           the artifacts (object files, a torch extension .so)
    locks/<key>.lock              fcntl lock: one worker builds, the others wait and hit
    events.jsonl                  one line per lookup (hit or miss), appended atomically

Deterministic compiler failures are cached too (``meta["ok"] = False`` with the log), so a
rerun reports the same compile error without paying for the compile. A build that raises
(a timeout, a killed compiler) is not cached.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

META_FILE = "meta.json"


def cache_key(source: str, backend: str, arch: str, toolchain: str, flags: Sequence[str] = ()) -> str:
    """sha256 over every input that changes the compiled artifact."""
    h = hashlib.sha256()
    for part in (backend, arch, toolchain, "\x1f".join(flags), source):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")  # field separator: ("ab", "c") and ("a", "bc") differ
    return h.hexdigest()


@dataclass
class CacheEntry:
    key: str
    path: Path            # the entry's directory; artifacts live inside it
    meta: dict

    @property
    def ok(self) -> bool:
        return bool(self.meta.get("ok", True))

    def file(self, name: str) -> Path:
        return self.path / name


class CompileCache:
    """``lookup`` / ``store`` / ``lock``, and ``get_or_build`` which combines them safely."""

    def __init__(self, root: os.PathLike | str):
        self.root = Path(root)
        self.hits = 0
        self.misses = 0

    # ------------------------------------------------------------------ paths
    def entry_dir(self, key: str) -> Path:
        return self.root / key[:2] / key

    def _lock_path(self, key: str) -> Path:
        return self.root / "locks" / f"{key}.lock"

    # ------------------------------------------------------------------ primitives
    def lookup(self, key: str) -> Optional[CacheEntry]:
        """The complete entry for ``key``, or None (a half-written entry has no meta.json)."""
        path = self.entry_dir(key)
        try:
            meta = json.loads((path / META_FILE).read_text())
        except (OSError, ValueError):
            return None
        return CacheEntry(key, path, meta)

    def store(self, key: str, artifact_paths: Sequence[os.PathLike | str] = (), meta: Optional[dict] = None,
              staging: Optional[Path] = None) -> CacheEntry:
        """Publish an entry atomically: fill a staging dir, write meta.json, rename into place.

        ``artifact_paths`` are copied in; ``staging`` (a directory made by
        ``staging_dir``) is moved in whole, which is how a build directory becomes an entry.
        """
        final = self.entry_dir(key)
        stage = staging or self.staging_dir(key)
        for p in artifact_paths:
            src = Path(p)
            if src.resolve().parent != stage.resolve():
                shutil.copy2(src, stage / src.name)
        meta = dict(meta or {})
        meta.setdefault("ok", True)
        meta.setdefault("files", sorted(p.name for p in stage.iterdir() if p.name != META_FILE))
        meta["key"] = key
        meta["stored_at"] = time.time()
        (stage / META_FILE).write_text(json.dumps(meta, indent=1, sort_keys=True))
        if final.exists():           # a concurrent writer won (only possible without the lock)
            shutil.rmtree(stage, ignore_errors=True)
        else:
            os.replace(stage, final)
        return CacheEntry(key, final, json.loads((final / META_FILE).read_text()))

    def staging_dir(self, key: str) -> Path:
        """A fresh directory next to the entry's final place (same filesystem, so rename is atomic)."""
        parent = self.entry_dir(key).parent
        parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=parent))
        stage.chmod(0o755)          # mkdtemp makes 0700; entries are shared read-only with other users
        return stage

    @contextlib.contextmanager
    def lock(self, key: str) -> Iterator[None]:
        """Exclusive per-key lock across processes (fcntl; released if the holder dies)."""
        path = self._lock_path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def record(self, key: str, hit: bool, **info) -> None:
        """Count a lookup here and append it to events.jsonl (O_APPEND: atomic for one short line)."""
        if hit:
            self.hits += 1
        else:
            self.misses += 1
        self.root.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"key": key, "hit": hit, "t": time.time(), **info}) + "\n"
        fd = os.open(self.root / "events.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    def stats(self) -> dict[str, int]:
        """Hits and misses over every process that used this cache root."""
        counts = {"hits": 0, "misses": 0}
        try:
            lines = (self.root / "events.jsonl").read_text().splitlines()
        except OSError:
            return counts
        for line in lines:
            try:
                counts["hits" if json.loads(line)["hit"] else "misses"] += 1
            except (ValueError, KeyError):
                continue
        return counts

    # ------------------------------------------------------------------ the usual path
    def get_or_build(self, key: str, build: Callable[[Path], dict], **info) -> tuple[CacheEntry, bool]:
        """Return ``(entry, hit)``; on a miss run ``build(staging_dir) -> meta`` once, under the lock.

        ``build`` writes its artifacts into the staging dir and returns the entry's meta
        (``{"ok": False, "log": ...}`` for a deterministic compile failure). If it raises,
        nothing is cached and the exception propagates.
        """
        entry = self.lookup(key)
        if entry is not None:
            self.record(key, True, **info)
            return entry, True
        with self.lock(key):
            entry = self.lookup(key)          # another worker may have built it while we waited
            if entry is not None:
                self.record(key, True, **info)
                return entry, True
            stage = self.staging_dir(key)
            try:
                meta = build(stage)
            except BaseException:
                shutil.rmtree(stage, ignore_errors=True)
                raise
            entry = self.store(key, meta=meta, staging=stage)
            self.record(key, False, **info)
            return entry, False
