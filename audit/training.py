"""The training side of an overlap audit: rows with an id, the code to compare, and (optionally) a PyTorch reference.

Accepted inputs: a built kvdata folder (``data/<config>/*.parquet``; all kernel configs, or the ones named), one
config folder of parquet shards, a single JSONL / JSON / parquet file with ``id`` and ``code`` columns (names
overridable), or a folder of source files (``*.py``, ``*.cu``, ``*.hip``, ``*.cpp``, ...: one row per file, its id
the path inside the folder), such as a tree of Triton files mined from packages. Parquet is read directly with pyarrow: no ``datasets`` cache, no copy.
Without an input, :func:`bundled_sample_rows` builds the bundled sample into a temporary folder.
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from kvdata.errors import unreadable_parquet
from kvdata.public import public_path

__all__ = ["TrainingRows", "load_training", "bundled_sample_rows", "source_files", "SOURCE_SUFFIXES"]


@dataclass
class TrainingRows:
    """Training rows as parallel lists (ids unique). ``pytorch`` holds the PyTorch reference where there is one;
    ``source`` names the input as reports publish it (relative, :func:`kvdata.public.public_path`)."""

    ids: list[str]
    code: list[str]
    pytorch: list[Optional[str]]
    source: str

    def __len__(self) -> int:
        return len(self.ids)


def _read_rows(path: Path, columns: Sequence[str]) -> list[dict]:
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            names = pq.read_schema(path).names
            return pq.read_table(path, columns=[c for c in columns if c in names]).to_pylist()
        except (pa.ArrowException, OSError) as e:
            raise unreadable_parquet(path, e) from None
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file (JSON, JSON Lines or parquet expected)") from None
    if path.suffix == ".json" or text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
        return data if isinstance(data, list) else [data]
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not a JSON line ({exc.msg})") from exc
    return rows


def _built_config_files(folder: Path, configs: Optional[Sequence[str]]) -> list[Path]:
    """The parquet shards of a built folder's kernel configs (QA rows hold no kernel code)."""
    from kvdata.schema import KERNEL_CONFIGS

    wanted = list(configs) if configs else list(KERNEL_CONFIGS)
    files = []
    for config in wanted:
        files.extend(sorted((folder / "data" / config).glob("*.parquet")))
    return files


SOURCE_SUFFIXES = (".py", ".cu", ".cuh", ".hip", ".cpp", ".cc", ".h", ".hpp")


def source_files(folder: Path) -> list[Path]:
    """Source files under ``folder`` (recursively, hidden folders skipped), in a stable order."""
    return sorted(f for f in folder.rglob("*") if f.is_file() and f.suffix in SOURCE_SUFFIXES
                  and not any(part.startswith(".") for part in f.relative_to(folder).parts))


def load_training(path: str | Path, *, id_column: str = "id", code_column: str = "code",
                  pytorch_column: str = "pytorch_code", configs: Optional[Sequence[str]] = None) -> TrainingRows:
    """Training rows from a built folder, a folder of parquet shards, or one file.

    A built folder's rows use ``kernel_code`` as code and ``pytorch_code`` as reference; a file uses
    ``code_column`` (``code``), falling back to ``kernel_code`` when absent.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"training input {p} does not exist")
    if p.is_dir():
        files = _built_config_files(p, configs) if (p / "data").is_dir() else sorted(p.glob("*.parquet"))
        if not files:
            sources = source_files(p)
            if sources:
                return TrainingRows([f.relative_to(p).as_posix() for f in sources],
                                    [f.read_text(encoding="utf-8", errors="replace") for f in sources],
                                    [None] * len(sources), public_path(p))
            raise ValueError(f"{p}: no parquet shards (expected a built folder data/<config>/*.parquet) and no "
                             f"source files ({', '.join(SOURCE_SUFFIXES)})")
        code_column = "kernel_code"
    else:
        files = [p]
    ids: list[str] = []
    code: list[str] = []
    pytorch: list[Optional[str]] = []
    for file in files:
        rows = _read_rows(file, [id_column, code_column, "kernel_code", pytorch_column])
        for n, row in enumerate(rows):
            text = row.get(code_column, row.get("kernel_code"))
            if id_column not in row or text is None:
                raise ValueError(f"{file}: row {n} lacks {id_column!r} or {code_column!r} "
                                 f"(columns: {sorted(row)}); set the column names")
            ids.append(str(row[id_column]))
            code.append(text)
            pytorch.append(row.get(pytorch_column))
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        dup = [i for i in ids if i in seen or seen.add(i)]
        raise ValueError(f"{p}: duplicate training ids, e.g. {dup[:5]}")
    return TrainingRows(ids, code, pytorch, public_path(p))


def bundled_sample_rows(workdir: Optional[str | Path] = None) -> TrainingRows:
    """The bundled sample, built by the build pipeline into ``workdir`` (a temporary folder when None)."""
    from kvdata.buildconfig import make_build_config
    from kvdata.pipeline import build

    out = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="kvdata-audit-sample-"))
    build(make_build_config(sample=True), out, progress=False)
    rows = load_training(out)
    rows.source = "bundled sample"
    return rows
