"""What re-verification reads: one ``Sample`` per kernel row, from JSONL, parquet or a built config.

The columns are ``schema.REVERIFY_COLUMNS`` plus optional ``atol``/``rtol``, ``subset``,
``task_name`` and the corpus's recorded ``verification`` (used by the drift report).
JSONL and parquet need only the standard library and pyarrow, so the reverify path runs
on a GPU image without polars or datasets; a Hub id / built folder goes through
``kvdata.hub.load_config`` (imported only when used).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

from kvdata.errors import unreadable_parquet
from kvdata.schema import REVERIFY_COLUMNS


class SampleError(ValueError):
    """An input row that cannot become a Sample; the message says which and why."""


@dataclass
class Sample:
    id: str
    language: str
    pytorch_code: Optional[str]
    kernel_code: str
    pytorch_functional_code: Optional[str] = None
    atol: Optional[float] = None
    rtol: Optional[float] = None
    subset: Optional[str] = None
    task_name: Optional[str] = None
    verification: Optional[dict] = None      # what the corpus recorded, for the drift table
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: dict[str, Any], where: str = "") -> "Sample":
        missing = [c for c in ("id", "language", "kernel_code") if not row.get(c)]
        if missing:
            raise SampleError(f"{where}: missing {', '.join(missing)}")
        language = str(row["language"]).lower()
        return cls(
            id=str(row["id"]), language=language,
            pytorch_code=row.get("pytorch_code"), kernel_code=row["kernel_code"],
            pytorch_functional_code=row.get("pytorch_functional_code"),
            atol=_float_or_none(row.get("atol")), rtol=_float_or_none(row.get("rtol")),
            subset=row.get("subset"), task_name=row.get("task_name"),
            verification=row.get("verification") if isinstance(row.get("verification"), dict) else None,
        )

    def to_job(self) -> dict:
        """The fields the sandboxed worker needs (nothing else crosses into it)."""
        return {c: getattr(self, c) for c in REVERIFY_COLUMNS}


def _float_or_none(v: Any) -> Optional[float]:
    if v is None or v == "":
        return None
    return float(v)


def iter_rows_jsonl(path: Path) -> Iterator[tuple[str, dict]]:
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise SampleError(f"{path}:{n}: not JSON ({e.msg})") from None
            yield f"{path}:{n}", row


def iter_rows_parquet(path: Path) -> Iterator[tuple[str, dict]]:
    """Rows of a parquet file or of every parquet file under a folder; a file that is not readable parquet raises
    :class:`SampleError` naming it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = sorted(path.rglob("*.parquet")) if path.is_dir() else [path]
    for file in files:
        try:
            pf = pq.ParquetFile(file)
        except (pa.ArrowException, OSError) as e:
            raise unreadable_parquet(file, e, SampleError) from None
        n = 0
        for batch in pf.iter_batches(batch_size=256):
            for row in batch.to_pylist():
                n += 1
                yield f"{file}#{n}", row


def read_samples(path: str | Path) -> list[Sample]:
    """Samples from a .jsonl/.json file, a .parquet file, or a folder of parquet files."""
    path = Path(path)
    if not path.exists():
        raise SampleError(f"{path}: no such file or folder")
    if path.is_dir() or path.suffix == ".parquet":
        rows = iter_rows_parquet(path)
    elif path.suffix in (".jsonl", ".json", ".ndjson"):
        rows = iter_rows_jsonl(path)
    else:
        raise SampleError(f"{path}: expected .jsonl or .parquet")
    return [Sample.from_row(row, where) for where, row in rows]


DEFAULT_DATA = "amd/AIG-Datasets"   # AMD's release on the Hub: a raw tree, which --subset cannot read as it is


def load_subset(config: str, data: Optional[str] = None, split: str = "train") -> list[Sample]:
    """Samples of one built config, from a built folder or a Hub id (``kvdata.hub.load_config``)."""
    from kvdata.hub import load_config  # lazy: pulls in datasets

    if not data:
        raise SampleError(f"--subset {config} needs --data: a built folder (kvdata build --out DIR). The Hub repo "
                          f"{DEFAULT_DATA} is a raw release tree with no configs; build it first")
    ds = load_config(data, config, split=split)
    out = []
    for n, row in enumerate(ds):
        row.setdefault("subset", config)
        out.append(Sample.from_row(row, f"{config}#{n}"))
    return out
