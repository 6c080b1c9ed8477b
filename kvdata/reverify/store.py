"""Append-only results: one JSON line per sample, flushed and fsync'd as each sample finishes.

A run killed at any moment (SIGKILL included) loses at most the sample in flight; on
restart ``ResultStore`` drops a half-written last line and reports which keys are done,
so nothing is redone and nothing is lost. A key is ``id|backend|config_hash``: the
same sample re-verified on another backend, or under other tolerances, is a new result.
Parquet output is written from the JSONL at the end (pyarrow only, no polars needed), with the
columns of ``schema.RESULT_SCHEMA``; columns outside it (diagnostics) stay in the JSONL only.
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Iterable, Iterator, Optional

from kvdata.errors import unreadable_parquet
from kvdata.schema import RESULT_SCHEMA


def result_key(row: dict) -> str:
    return f"{row['id']}|{row.get('backend')}|{row.get('config_hash')}"


class ResultStore:
    """Results of one run, in ``path`` (JSONL). Thread-safe appends."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._repair_tail()
        self.done: set[str] = {result_key(r) for r in self.rows()}

    def _repair_tail(self) -> None:
        """Cut a half-written last line (the run was killed mid-write)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with open(self.path, "rb+") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 1))
            if f.read(1) == b"\n":
                return
            # Find the last newline; everything after it is a torn record.
            pos = size
            while pos > 0:
                step = min(65536, pos)
                f.seek(pos - step)
                chunk = f.read(step)
                i = chunk.rfind(b"\n")
                if i >= 0:
                    f.truncate(pos - step + i + 1)
                    return
                pos -= step
            f.truncate(0)

    def rows(self) -> Iterator[dict]:
        if self.path.exists():
            yield from _rows_of(self.path)

    def is_done(self, key: str) -> bool:
        return key in self.done

    def append(self, row: dict) -> None:
        line = json.dumps(row, default=_jsonable, allow_nan=True) + "\n"
        with self._lock:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
            self.done.add(result_key(row))

    def write_parquet(self, out: str | Path, keys: Optional[Iterable[str]] = None) -> Path:
        """Write the results (optionally only ``keys``) as parquet, through a temp file."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        wanted = set(keys) if keys is not None else None
        rows = [r for r in self.rows() if wanted is None or result_key(r) in wanted]
        table = pa.Table.from_pylist([{f.name: r.get(f.name) for f in RESULT_SCHEMA} for r in rows],
                                     schema=RESULT_SCHEMA)
        out = Path(out)
        tmp = out.with_name(out.name + ".tmp")
        pq.write_table(table, tmp)
        os.replace(tmp, out)
        return out


def _jsonable(v):
    if isinstance(v, (set, frozenset)):
        return sorted(v)
    return str(v)


def check_results_file(path: str | Path, option: str = "--out") -> None:
    """``path`` is absent or an earlier results file (which a rerun resumes from and replaces); anything else (the
    user's own parquet, the rows being verified) would be overwritten or appended to, so it raises ValueError."""
    import json

    path = Path(path)
    if not path.exists():
        return
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder; give a results file (.jsonl or .parquet)")
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            names = set(pq.read_schema(path).names)
        except (pa.ArrowException, OSError):
            names = set()
    else:
        names = set()
        with open(path, encoding="utf-8", errors="replace") as f:
            first = next((line for line in f if line.strip()), None)
        if first is None:
            return                                    # an empty file: nothing to lose
        try:
            row = json.loads(first)
            names = set(row) if isinstance(row, dict) else set()
        except json.JSONDecodeError:
            pass
    if not {"id", "status", "backend"} <= names:
        raise ValueError(f"{option} {path} exists and is not a `kvdata reverify` results file; it would be "
                         "overwritten: give a new file name")


def read_results(path: str | Path) -> list[dict]:
    """Results from a JSONL or parquet results file, as dicts (stdlib + pyarrow)."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            return pq.read_table(path).to_pylist()
        except (pa.ArrowException, OSError) as e:
            raise unreadable_parquet(path, e) from None
    return list(_rows_of(path))


def _rows_of(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    continue

