"""Reading tables of records: JSON arrays, JSONL and parquet files, or folders of them.

Every reader yields ``(ref, row)`` pairs, one per input record, where ``row`` is the
decoded object or, for a record (or a whole file) that cannot be decoded, the
``(RejectReason, message)`` problem with it, so that the Source turns it into exactly one
Reject. ``ref`` locates the record: ``path:line`` (JSONL), ``path[i]`` (an array element or
a parquet row) or ``path`` (a file that could not be split into records at all).

JSONL lines can also be read *located* (``locate=True``): the row is then a :class:`LineAt`
(where the line is in a local file) or the line's bytes, and :func:`json_row` decodes it later.
The build lists a Source's records in its main process and checks them in worker processes, so
a located row costs the main process neither the JSON decoding nor shipping the text: the
worker reads the line itself (:class:`LineFiles`). Lines end at ``\n`` only, as JSON Lines
says: a JSON string may hold other Unicode line separators.

Used by the Triton adapters (:mod:`kvdata.builders.triton`) and the HIP result files; nothing
here knows about kernels.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Union

from kvdata.builders.common import Problem, decode, is_problem, read_text
from kvdata.schema import RejectReason

DEFAULT_BATCH_SIZE = 1024
TABLE_SUFFIXES = (".jsonl", ".json", ".parquet")

Row = Union[dict, Problem]

#: a byte-order mark: some writers put one before the first record; it is not part of it
BOM = "\ufeff"
_BOM_BYTES = BOM.encode("utf-8")


@dataclass(frozen=True)
class LineAt:
    """Where one line of a local file is: ``length`` bytes from ``offset`` (its ``\n`` included)."""

    path: str
    offset: int
    length: int


#: A line as a reader hands it on: its location in a local file, or its bytes (any other file system).
Line = Union[LineAt, bytes]


def is_local(fs) -> bool:
    """Whether an fsspec file system is the local disk (where a line can be read again by its offset)."""
    protocol = getattr(fs, "protocol", ())
    return "file" in ((protocol,) if isinstance(protocol, str) else tuple(protocol))


def iter_lines(fs, path: str, locate: bool = False) -> Iterator[tuple[int, Line]]:
    """``(line number, line)`` for every non-blank line of ``path``, numbered from 1 (blank lines count).

    ``locate`` on a local file yields each line's :class:`LineAt`, else its bytes. Raises OSError
    when the file cannot be read."""
    located = locate and is_local(fs)
    offset = 0
    with fs.open(path, "rb") as f:
        for lineno, raw in enumerate(f, start=1):
            size = len(raw)
            if lineno == 1 and raw.startswith(_BOM_BYTES):    # a byte-order mark is not part of the first record
                raw, offset, size = raw[len(_BOM_BYTES):], len(_BOM_BYTES), size - len(_BOM_BYTES)
            if raw.strip():
                yield lineno, (LineAt(str(path), offset, size) if located else raw)
            offset += size


class LineFiles:
    """Reads located lines, keeping each file open: one per process (a Source's per-process cache)."""

    def __init__(self) -> None:
        self._files: dict[str, object] = {}

    def read(self, line: Line) -> bytes:
        """The bytes of ``line``; OSError when its file is gone or shorter than when it was listed."""
        if isinstance(line, bytes):
            return line
        f = self._files.get(line.path)
        if f is None:
            f = self._files[line.path] = open(line.path, "rb", buffering=0)
        data = os.pread(f.fileno(), line.length, line.offset)
        if len(data) != line.length:
            raise OSError(f"{line.path} changed while the build read it")
        return data

    def text(self, line: Line, ref: str) -> Union[str, Problem]:
        """The decoded text of ``line``, or the problem (unreadable, not UTF-8) with it."""
        try:
            raw = self.read(line)
        except OSError as e:
            return RejectReason.UNREADABLE, f"{ref}: {e}"
        return decode(raw, ref)

    def close(self) -> None:
        for f in self._files.values():
            f.close()
        self._files.clear()

    def __del__(self) -> None:
        self.close()


def _object(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object; a key given twice with different values makes the record ambiguous (RFC 8259 leaves
    duplicate names to the reader, and ``json`` keeps the last: a record saying ``"license": "GPL-3.0-only"``
    and then ``"license": "MIT"`` would pass as MIT)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: dict[str, object] = {}
        for key, value in pairs:
            if key in seen and seen[key] != value:
                raise json.JSONDecodeError(f"key {key!r} given twice with different values", "", 0)
            seen[key] = value
    return obj


def load_json(text: str):
    """``json.loads`` for input records: a leading byte-order mark is dropped, and an object that gives one key
    two different values is a ``json.JSONDecodeError``."""
    if text.startswith(BOM):
        text = text[1:]
    return json.loads(text, object_pairs_hook=_object)


def json_row(text: Union[str, Problem], ref: str) -> Row:
    """The JSON value of one JSONL line's text, or the problem with it."""
    if is_problem(text):
        return text
    try:
        return load_json(text)
    except json.JSONDecodeError as e:
        return RejectReason.BAD_JSON, f"{ref}: not JSON ({e.msg})"


def json_object(text: Union[str, Problem], ref: str) -> Union[dict, Problem]:
    """The JSON object of a small file's text (info.json, meta.json), or the problem with it: the text's own
    (unreadable, not UTF-8), not JSON, or JSON that is not an object."""
    if is_problem(text):
        return text
    try:
        value = load_json(text)
    except json.JSONDecodeError as e:
        return RejectReason.BAD_JSON, f"{ref}: not JSON ({e.msg} at line {e.lineno})"
    if not isinstance(value, dict):
        return RejectReason.BAD_JSON, f"{ref}: a JSON {type(value).__name__}, not an object"
    return value


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
        data = load_json(text)
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


def iter_jsonl(fs, path: str, locate: bool = False) -> Iterator[tuple[str, Union[Row, Line]]]:
    """(ref, object) for each non-blank line of a JSONL file, streamed line by line; with ``locate``,
    (ref, line) for :func:`json_row` to decode later (see the module docstring).

    A file whose first non-blank byte is ``[`` and that holds one JSON value is a JSON array
    despite its name (as TritonBench-T ships its ``.jsonl``) and is read as one
    (:func:`_is_json_array`); a JSONL file whose first record is an array is still read line by line.
    """
    try:
        with fs.open(path, "rb") as f:
            head = f.read(4096)
    except OSError as e:
        yield path, (RejectReason.UNREADABLE, f"{path}: {e}")
        return
    if head.startswith(_BOM_BYTES):
        head = head[len(_BOM_BYTES):]
    if head.lstrip().startswith(b"[") and _is_json_array(fs, path):
        yield from iter_json_array(fs, path)
        return
    try:
        for lineno, line in iter_lines(fs, path, locate):
            ref = f"{path}:{lineno}"
            yield ref, (line if locate else json_row(decode(line, ref), ref))
    except OSError as e:
        yield path, (RejectReason.UNREADABLE, f"{path}: {e}")


def _is_json_array(fs, path: str) -> bool:
    """Whether a file that starts with ``[`` is one JSON document rather than JSON Lines whose first record is an
    array: it is, unless its first line holds a whole JSON value and more lines follow. (A pretty-printed array,
    even a broken one, stays one document: one ``bad_json`` for the file, not one per line.)"""
    try:
        with fs.open(path, "rb") as f:
            first = f.readline()
            try:
                load_json(first.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                return True
            for line in f:
                if line.strip():
                    return False
    except OSError:
        return True                        # iter_json_array reports the problem, once
    return True


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
               batch_size: int = DEFAULT_BATCH_SIZE, locate: bool = False) -> Iterator[tuple[str, Union[Row, Line]]]:
    """(ref, row) for every record of a JSON/JSONL/parquet file or of every such file in a folder
    (``locate``: JSONL lines are left for :func:`json_row`, see the module docstring)."""
    files = list_input_files(fs, path)
    if is_problem(files):
        yield path, files
        return
    for file in files:
        lower = file.lower()
        if lower.endswith(".parquet"):
            yield from iter_parquet(fs, file, columns, batch_size)
        elif lower.endswith(".jsonl"):
            yield from iter_jsonl(fs, file, locate)
        else:
            yield from iter_json_array(fs, file)


# ----------------------------------------------------------------- a JSON array, element by element
#: A JSON string (unrolled: no backtracking) or one of the characters that change nesting or end an element.
_ARRAY_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},"]')     # a lone " opens a string never closed
_SPACE = b" \t\r\n"


def array_elements(data) -> Optional[list[tuple[int, int]]]:
    """``(offset, length)`` of each top-level element of a JSON array held in ``data`` (bytes or an mmap), or
    None when ``data`` is not one well-nested array (the caller then parses it whole and reports the error).

    Only strings and brackets are looked at (a regex finds them, so a 700 MB release file is split at C speed);
    each element is decoded later, on its own, by :func:`json_row`."""
    start = 0
    while start < len(data) and data[start:start + 1] in (b" ", b"\t", b"\r", b"\n"):
        start += 1
    if data[start:start + 3] == _BOM_BYTES:
        start += 3
    if data[start:start + 1] != b"[":
        return None
    spans: list[tuple[int, int]] = []
    depth = 0
    element = None
    end = None
    for m in _ARRAY_TOKEN.finditer(data, start):
        token = m.group()
        if token == b'"':
            return None
        if token[:1] == b'"':
            if depth == 1 and element is None:
                element = m.start()
            continue
        if token in (b"[", b"{"):
            if depth == 1 and element is None:
                element = m.start()
            depth += 1
        elif token in (b"]", b"}"):
            depth -= 1
            if depth == 0:
                end = m.end()
                break
            if depth < 0:
                return None
        if token == b"," and depth == 1:
            if element is None:
                element = _first_byte(data, spans[-1][0] + spans[-1][1] if spans else start + 1, m.start())
                if element is None:
                    return None
            spans.append((element, _trimmed_end(data, element, m.start()) - element))
            element = None
    if end is None:
        return None
    last_end = end - 1
    if element is None:
        element = _first_byte(data, (spans[-1][0] + spans[-1][1] + 1) if spans else start + 1, last_end)
    if element is not None:
        spans.append((element, _trimmed_end(data, element, last_end) - element))
    elif spans:
        return None                      # a trailing comma: not JSON
    if data[end:].strip(_SPACE) if isinstance(data, bytes) else bytes(data[end:]).strip(_SPACE):
        return None                      # something after the array
    return spans


def _first_byte(data, lo: int, hi: int) -> Optional[int]:
    """The first byte in ``data[lo:hi]`` that is not white space (a number, true, false, null), or None."""
    for i in range(lo, hi):
        if data[i:i + 1] not in (b" ", b"\t", b"\r", b"\n", b","):
            return i
    return None


def _trimmed_end(data, lo: int, hi: int) -> int:
    while hi > lo and data[hi - 1:hi] in (b" ", b"\t", b"\r", b"\n"):
        hi -= 1
    return hi


def iter_json_array_located(fs, path: str) -> Iterator[tuple[str, Union[Row, Line]]]:
    """``(path[i], located element)`` for each element of a JSON array file, for :func:`json_row` to decode
    later (in the build's workers); a file that does not split as one array is read whole by
    :func:`iter_json_array`, which names its problem. A single object is a table of one."""
    import mmap

    local = is_local(fs)
    try:
        if local:
            with open(path, "rb") as f:
                if os.fstat(f.fileno()).st_size == 0:
                    spans, data = None, b""
                else:
                    with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                        spans = array_elements(data)
        else:
            with fs.open(path, "rb") as f:
                data = f.read()
            spans = array_elements(data)
    except OSError as e:
        yield path, (RejectReason.UNREADABLE, f"{path}: {e}")
        return
    if spans is None:
        yield from iter_json_array(fs, path)
        return
    for i, (offset, length) in enumerate(spans):
        yield f"{path}[{i}]", (LineAt(str(path), offset, length) if local else bytes(data[offset:offset + length]))


def table_format(fs, path: str) -> Union[str, Problem]:
    """What a table file holds, from its bytes rather than its name: ``parquet`` (its magic), ``json`` (one JSON
    document: an array, or an object) or ``jsonl`` (one JSON value a line), or the problem reading it."""
    try:
        with fs.open(path, "rb") as f:
            head = f.read(4096)
    except OSError as e:
        return RejectReason.UNREADABLE, f"{path}: {e}"
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.startswith(_BOM_BYTES):
        head = head[len(_BOM_BYTES):]
    stripped = head.lstrip()
    if stripped.startswith(b"["):
        return "json" if _is_json_array(fs, path) else "jsonl"
    if stripped.startswith(b"{"):
        return "jsonl" if _first_line_is_whole_value(fs, path) else "json"
    return "json"


def _first_line_is_whole_value(fs, path: str) -> bool:
    """Whether the first line of a file that starts with ``{`` is a whole JSON value (JSON Lines, or a file of one
    object on one line: both read the same)."""
    try:
        with fs.open(path, "rb") as f:
            first = f.readline()
        load_json(first.decode("utf-8"))
        return True
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False


def iter_any_table(fs, path: str, columns: Optional[Iterable[str]] = None, batch_size: int = DEFAULT_BATCH_SIZE,
                   locate: bool = False) -> Iterator[tuple[str, Union[Row, Line]]]:
    """Like :func:`iter_table`, but each file's format is told from its content (:func:`table_format`), and with
    ``locate`` JSON array elements are located as JSONL lines are: a release's ``.json`` may be JSON Lines, and its
    JSON arrays can be hundreds of megabytes."""
    files = list_input_files(fs, path)
    if is_problem(files):
        yield path, files
        return
    for file in files:
        kind = table_format(fs, file)
        if is_problem(kind):
            yield file, kind
        elif kind == "parquet":
            yield from iter_parquet(fs, file, columns, batch_size)
        elif kind == "jsonl":
            yield from iter_jsonl(fs, file, locate)
        elif locate:
            yield from iter_json_array_located(fs, file)
        else:
            yield from iter_json_array(fs, file)
