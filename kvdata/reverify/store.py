"""Append-only results: one JSON line per sample, flushed and fsync'd as each sample finishes.

A run killed at any moment (SIGKILL included) loses at most the sample in flight; on
restart ``ResultStore`` drops a half-written last line and reports which keys are done,
so nothing is redone and nothing is lost. A key is ``id|backend|config_hash``: the
same sample re-verified on another backend, or under other tolerances, is a new result.
Parquet output is written from the JSONL at the end (pyarrow only, no polars needed).
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Iterable, Iterator, Optional

RESULT_FIELDS: tuple[tuple[str, str], ...] = (
    ("id", "string"), ("status", "string"), ("correct", "bool"), ("flags", "list<string>"),
    ("message", "string"), ("max_abs_err", "float64"), ("ref_ms", "float64"), ("kernel_ms", "float64"),
    ("speedup", "float64"), ("backend", "string"), ("portability", "bool"), ("hardware", "string"),
    ("arch", "string"), ("torch_version", "string"), ("triton_version", "string"),
    ("rocm_version", "string"), ("compiler", "string"), ("isolation", "string"),
    ("compile_ok", "bool"), ("cache_hit", "bool"), ("seeds", "list<int64>"), ("atol", "float64"),
    ("rtol", "float64"), ("config_hash", "string"), ("subset", "string"), ("task_name", "string"),
    ("language", "string"), ("wall_s", "float64"), ("overhead_s", "float64"), ("peak_rss_mb", "float64"),
    ("verified_at", "string"),
)


def result_key(row: dict) -> str:
    return f"{row['id']}|{row.get('backend')}|{row.get('config_hash')}"


def arrow_schema():
    import pyarrow as pa

    types = {"string": pa.string(), "bool": pa.bool_(), "float64": pa.float64(),
             "list<string>": pa.list_(pa.string()), "list<int64>": pa.list_(pa.int64())}
    return pa.schema([pa.field(name, types[kind]) for name, kind in RESULT_FIELDS])


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
        schema = arrow_schema()
        table = pa.Table.from_pylist([{f.name: r.get(f.name) for f in schema} for r in rows], schema=schema)
        out = Path(out)
        tmp = out.with_name(out.name + ".tmp")
        pq.write_table(table, tmp)
        os.replace(tmp, out)
        return out


def _jsonable(v):
    if isinstance(v, (set, frozenset)):
        return sorted(v)
    return str(v)


def read_results(path: str | Path) -> list[dict]:
    """Results from a JSONL or parquet results file, as dicts (stdlib + pyarrow)."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
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

