"""Reading tables of records: JSON arrays, JSONL and parquet files, or folders of them.

Every reader yields ``(ref, row)`` pairs, one per input record, where ``row`` is the
decoded object or, for a record (or a whole file) that cannot be decoded, the
``(RejectReason, message)`` problem with it, so that the Source turns it into exactly one
Reject. ``ref`` locates the record: ``path:line`` (JSONL), ``path[i]`` (an array element or
a parquet row) or ``path`` (a file that could not be split into records at all).

Used by the Triton adapters (:mod:`kvdata.builders.triton`); nothing here knows about kernels.
"""
from __future__ import annotations

import json
from typing import Iterable, Iterator, Optional, Union

from kvdata.builders.common import Problem, decode, is_problem, read_text
from kvdata.schema import RejectReason

DEFAULT_BATCH_SIZE = 1024
TABLE_SUFFIXES = (".jsonl", ".json", ".parquet")

Row = Union[dict, Problem]


def list_input_files(fs, root: str, suffixes: Iterable[str] = TABLE_SUFFIXES) -> Union[list[str], Problem]:
    """The table files a Source reads: ``root`` itself, or the matching files under a folder, sorted.

    Sorted order keeps item order (and so dedup winners) the same from one build to the next.
    """
    suffixes = tuple(suffixes)
    try:
        if not fs.exists(root):
            return RejectReason.MISSING_FILE, f"{root} does not exist"
        if not fs.isdir(root):
            return [root]
        found = [p for p in fs.find(root) if str(p).lower().endswith(suffixes)]
    except OSError as e:
        return RejectReason.UNREADABLE, f"{root}: {e}"
    if not found:
        return RejectReason.MISSING_FILE, f"{root} holds no {'/'.join(suffixes)} file"
    return sorted(str(p) for p in found)


def iter_json_array(fs, path: str) -> Iterator[tuple[str, Row]]:
    """(ref, element) for each element of a JSON array file; one problem if the file is not one."""
    text = read_text(fs, path)
    if is_problem(text):
        yield path, text
        return
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        yield path, (RejectReason.BAD_JSON, f"{path}: not JSON ({e.msg} at line {e.lineno})")
        return
    if isinstance(data, dict):      # a single object is a table of one
        data = [data]
    if not isinstance(data, list):
        yield path, (RejectReason.BAD_JSON, f"{path}: expected a JSON array of objects, got {type(data).__name__}")
        return
    for i, element in enumerate(data):
        yield f"{path}[{i}]", element


def iter_jsonl(fs, path: str) -> Iterator[tuple[str, Row]]:
    """(ref, object) for each non-blank line of a JSONL file, streamed line by line.

    A file whose first non-blank byte is ``[`` is a JSON array despite its name (as
    TritonBench-T ships its ``.jsonl``) and is read as one.
    """
    try:
        with fs.open(path, "rb") as f:
            head = f.read(4096).lstrip()
    except OSError as e:
        yield path, (RejectReason.UNREADABLE, f"{path}: {e}")
        return
    if head.startswith(b"["):
        yield from iter_json_array(fs, path)
        return
    try:
        with fs.open(path, "rb") as f:
            for lineno, raw in enumerate(f, start=1):
                if not raw.strip():
                    continue
                ref = f"{path}:{lineno}"
                line = decode(raw, ref)
                if is_problem(line):
                    yield ref, line
                    continue
                try:
                    yield ref, json.loads(line)
                except json.JSONDecodeError as e:
                    yield ref, (RejectReason.BAD_JSON, f"{ref}: not JSON ({e.msg})")
    except OSError as e:
        yield path, (RejectReason.UNREADABLE, f"{path}: {e}")


def iter_parquet(fs, path: str, columns: Optional[Iterable[str]] = None,
                 batch_size: int = DEFAULT_BATCH_SIZE) -> Iterator[tuple[str, Row]]:
    """(ref, row dict) for each row of a parquet file, read in record batches.

    Only ``columns`` that the file has are read (KernelBook rows carry large code columns
    we do not need). A file pyarrow cannot open counts as one unreadable record.
    """
    import pyarrow.parquet as pq

    try:
        f = fs.open(path, "rb")
    except OSError as e:
        yield path, (RejectReason.UNREADABLE, f"{path}: {e}")
        return
    with f:
        try:
            pf = pq.ParquetFile(f)
        except Exception as e:  # pyarrow raises ArrowInvalid, OSError...: any means "not parquet"
            yield path, (RejectReason.UNREADABLE, f"{path}: not a parquet file ({e})")
            return
        names = pf.schema_arrow.names
        wanted = None if columns is None else [c for c in dict.fromkeys(columns) if c in names]
        index = 0
        for batch in pf.iter_batches(batch_size=batch_size, columns=wanted):
            for row in batch.to_pylist():
                yield f"{path}[{index}]", row
                index += 1


def iter_table(fs, path: str, columns: Optional[Iterable[str]] = None,
               batch_size: int = DEFAULT_BATCH_SIZE) -> Iterator[tuple[str, Row]]:
    """(ref, row) for every record of a JSON/JSONL/parquet file or of every such file in a folder."""
    files = list_input_files(fs, path)
    if is_problem(files):
        yield path, files
        return
    for file in files:
        lower = file.lower()
        if lower.endswith(".parquet"):
            yield from iter_parquet(fs, file, columns, batch_size)
        elif lower.endswith(".jsonl"):
            yield from iter_jsonl(fs, file)
        else:
            yield from iter_json_array(fs, file)
