"""Raw tensor blobs: how tensors leave the sandboxed worker and reach the trusted parent.

Why not ``torch.save``: a pickle costs a serialization pass, a ``BytesIO`` copy and a
``getvalue`` copy on the way out, and an unpickling pass on the way in; for 3 seeds of
4096x4096 float32 outputs that was seconds per sample. A blob is the tensors' bytes laid
end to end (each 64-byte aligned), then a JSON index, then the index's length and a magic
tag. The worker writes bytes straight from tensor memory (no clone, no pickle); the
parent maps them with ``torch.frombuffer`` (no copy) after validating every index entry
against the blob's size. Nothing is ever unpickled, so a forged blob can at worst be
rejected, never run code.

The tree stored is JSON: dicts with string keys, lists, numbers, strings, ``None`` and
``{"__tensor__": i}`` leaves standing for tensor ``i`` of the index. Values JSON cannot
hold (a ``torch.dtype`` argument, say) are stored as ``{"__repr__": repr(x)}``.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import math
import mmap
import os
import stat
import struct
import warnings
from pathlib import Path
from typing import Any, Callable, Optional

MAGIC = b"KVBLOB01"
TRAILER = struct.Struct("<Q8s")          # index length, magic
ALIGN = 64
MAX_INDEX_BYTES = 64 << 20


class BlobError(ValueError):
    """A blob that is not what the worker should have written (truncated, forged, inconsistent)."""


@functools.lru_cache(maxsize=1)
def _dtypes() -> dict:
    """torch's dtypes by name, built once: scanning ``vars(torch)`` per tensor entry dominated reading a blob."""
    import torch

    return {str(v).removeprefix("torch."): v for v in vars(torch).values() if isinstance(v, torch.dtype)}


def tensor_bytes(t) -> memoryview:
    """A read-only byte view of a contiguous CPU tensor's memory, without copying it."""
    n = t.numel() * t.element_size()
    if n == 0:
        return memoryview(b"")
    return memoryview((ctypes.c_char * n).from_address(t.data_ptr())).cast("B")


def _host_contiguous(t):
    """The tensor's values as a dense CPU tensor: a device copy on a GPU, no copy when already so."""
    t = t.detach()
    if t.device.type != "cpu":
        t = t.to("cpu")
    return t.contiguous()


# ----------------------------------------------------------------------------- writing
class BlobWriter:
    """Appends tensors as they are produced (so the worker never holds a second copy), then the index.

    ``write`` is any ``bytes-like -> None`` sink: an ``os.write`` loop on a pipe, or a file.
    ``add`` snapshots the tensor's values at the time of the call (they are written out
    immediately), so later writes to that memory cannot change what the parent reads.
    """

    def __init__(self, write: Callable[[memoryview], None]):
        self._write = write
        self._pos = 0
        self.index: list[dict] = []

    def _emit(self, data) -> None:
        data = memoryview(data).cast("B")
        if data.nbytes:
            self._write(data)
            self._pos += data.nbytes

    def add(self, tensor) -> dict:
        """Write one tensor's bytes; return the leaf that stands for it in the tree."""
        pad = -self._pos % ALIGN
        if pad:
            self._emit(b"\0" * pad)
        host = _host_contiguous(tensor)
        entry = {"dtype": str(host.dtype).removeprefix("torch."), "shape": list(host.shape),
                 "offset": self._pos, "nbytes": host.numel() * host.element_size()}
        self._emit(tensor_bytes(host))
        self.index.append(entry)
        return {"__tensor__": len(self.index) - 1}

    def encode(self, value: Any) -> Any:
        """``value`` as a JSON tree, writing every tensor in it."""
        import torch

        if isinstance(value, torch.Tensor):
            return self.add(value)
        if isinstance(value, (list, tuple)):
            return [self.encode(v) for v in value]
        if isinstance(value, dict):
            return {str(k): self.encode(v) for k, v in value.items()}
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else {"__float__": repr(value)}
        return {"__repr__": repr(value)}

    def finish(self, tree: Any) -> None:
        """Write the index (tensor table + tree) and the trailer; the blob is complete."""
        index = json.dumps({"tensors": self.index, "tree": tree}, allow_nan=False).encode()
        self._emit(index)
        self._emit(TRAILER.pack(len(index), MAGIC))


def fd_sink(fd: int) -> Callable[[memoryview], None]:
    """A sink writing everything to ``fd`` (os.write may take less than asked on a pipe)."""

    def write(view: memoryview) -> None:
        while view.nbytes:
            n = os.write(fd, view)
            view = view[n:]

    return write


# ----------------------------------------------------------------------------- seals
SEAL_MAGIC = b"KVSEAL01"
SEAL = struct.Struct("<8sQ32s")          # magic, size of the sealed blob, its chunked sha256
SEAL_CHUNK = 8 << 20                     # bytes per leaf of the chunked hash
_THREADED_BYTES = 1 << 20                # views at least this big are hashed while they are written


class _ChunkedSha256:
    """sha256 over the sha256 digests of consecutive ``SEAL_CHUNK``-byte chunks.

    As collision resistant as sha256, but the chunks can be hashed in parallel: the
    parent checks a GPU-sized round (hundreds of MB) on every core (``chunked_sha256``).
    """

    def __init__(self):
        self.leaves: list[bytes] = []
        self._chunk = hashlib.sha256()
        self._fill = 0

    def update(self, view: memoryview) -> None:
        while view.nbytes:
            take = min(SEAL_CHUNK - self._fill, view.nbytes)
            self._chunk.update(view[:take])
            self._fill += take
            view = view[take:]
            if self._fill == SEAL_CHUNK:
                self.leaves.append(self._chunk.digest())
                self._chunk, self._fill = hashlib.sha256(), 0

    def digest(self) -> bytes:
        leaves = self.leaves + ([self._chunk.digest()] if self._fill else [])
        return hashlib.sha256(b"".join(leaves)).digest()


def chunked_sha256(buffer, workers: Optional[int] = None) -> bytes:
    """``_ChunkedSha256`` of a whole buffer, its chunks hashed on ``workers`` threads (hashlib drops the GIL)."""
    view = memoryview(buffer).cast("B")
    chunks = [view[i:i + SEAL_CHUNK] for i in range(0, view.nbytes, SEAL_CHUNK)]
    workers = min(len(chunks), workers or os.cpu_count() or 1)
    if workers <= 1:
        leaves = [hashlib.sha256(c).digest() for c in chunks]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers) as pool:
            leaves = list(pool.map(lambda c: hashlib.sha256(c).digest(), chunks))
    return hashlib.sha256(b"".join(leaves)).digest()


class SealingSink:
    """Wraps a sink, hashing every byte that goes through it, so a blob can be sealed once written.

    Why: round A's blob lies in the job dir, which the candidate's process can reopen and
    rewrite later (after the bait ran). The worker sends ``seal()`` — the blob's size and
    chunked sha256, computed over the bytes as they were written, not read back — through
    a pipe before the bait runs; the parent checks the file against it (``seal_matches``).
    A large view is hashed on a helper thread while it is written (both drop the GIL),
    so sealing costs little more than the write itself.
    """

    def __init__(self, write: Callable[[memoryview], None]):
        self._write = write
        self._hash = _ChunkedSha256()
        self._pool = None
        self.size = 0

    def __call__(self, view: memoryview) -> None:
        self.size += view.nbytes
        if view.nbytes < _THREADED_BYTES:
            self._hash.update(view)
            self._write(view)
            return
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(1)
        hashed = self._pool.submit(self._hash.update, view)
        try:
            self._write(view)
        finally:
            hashed.result()                     # the view's memory must outlive its hashing

    def seal(self) -> bytes:
        """The seal record (``SEAL.size`` bytes: fits in one atomic pipe write)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        return SEAL.pack(SEAL_MAGIC, self.size, self._hash.digest())


def seal_matches(record: Optional[bytes], buffer) -> bool:
    """True when ``buffer`` is exactly the blob ``record`` sealed (size and hash); False for anything else."""
    if not isinstance(record, (bytes, bytearray)) or len(record) != SEAL.size:
        return False
    magic, size, digest = SEAL.unpack(bytes(record))
    view = memoryview(buffer).cast("B")
    return magic == SEAL_MAGIC and view.nbytes == size and chunked_sha256(view) == digest


def dump(tree: Any, write: Callable[[memoryview], None]) -> None:
    """Write a whole tree (tensors anywhere in it) as one blob."""
    writer = BlobWriter(write)
    writer.finish(writer.encode(tree))


# ----------------------------------------------------------------------------- reading
def open_blob_file(path: Path, max_bytes: Optional[int] = None):
    """Map a blob file read-only, refusing links, FIFOs and devices a sandboxed sample might plant."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BlobError(f"{Path(path).name} is not a regular file")
        if max_bytes is not None and st.st_size > max_bytes:
            raise BlobError(f"{Path(path).name} is {st.st_size} bytes, over the {max_bytes} limit")
        if st.st_size < TRAILER.size:
            raise BlobError(f"{Path(path).name} is truncated ({st.st_size} bytes)")
        return mmap.mmap(fd, st.st_size, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)


class Blob:
    """A validated blob: its tree, with tensors that are zero-copy views of ``buffer``."""

    def __init__(self, buffer):
        self.buffer = buffer
        self.view = memoryview(buffer).cast("B")
        size = self.view.nbytes
        if size < TRAILER.size:
            raise BlobError("blob truncated")
        n_index, magic = TRAILER.unpack(self.view[size - TRAILER.size:])
        if magic != MAGIC:
            raise BlobError("not a tensor blob (bad magic)")
        data_end = size - TRAILER.size - n_index
        if n_index > MAX_INDEX_BYTES or data_end < 0:
            raise BlobError("blob index length out of range")
        try:
            index = json.loads(bytes(self.view[data_end:size - TRAILER.size]))
            self.entries = index["tensors"]
            self.raw_tree = index["tree"]
        except (ValueError, KeyError, TypeError) as e:
            raise BlobError(f"blob index unreadable: {e}") from None
        if not isinstance(self.entries, list):
            raise BlobError("blob tensor table is not a list")
        self._checked = [self._check_entry(e, data_end) for e in self.entries]

    @staticmethod
    def _check_entry(entry: Any, data_end: int) -> tuple:
        import torch

        try:
            dtype = _dtypes()[entry["dtype"]]
            shape = [int(s) for s in entry["shape"]]
            offset, nbytes = int(entry["offset"]), int(entry["nbytes"])
        except (KeyError, TypeError, ValueError):
            raise BlobError(f"bad tensor entry {str(entry)[:200]}") from None
        if any(s < 0 for s in shape) or len(shape) > 64:
            raise BlobError(f"bad tensor shape {shape}")
        numel = math.prod(shape)
        itemsize = torch.empty((), dtype=dtype).element_size()
        if nbytes != numel * itemsize or offset < 0 or offset % ALIGN or offset + nbytes > data_end:
            raise BlobError(f"tensor entry out of the blob's bounds: {str(entry)[:200]}")
        return dtype, shape, offset, nbytes, numel

    def tensor(self, i: int):
        """Tensor ``i``: a view of the blob's bytes (no copy), read-only by convention."""
        import torch

        if not isinstance(i, int) or not 0 <= i < len(self._checked):
            raise BlobError(f"tree refers to tensor {i!r}, not in the table")
        dtype, shape, offset, nbytes, numel = self._checked[i]
        if numel == 0:
            return torch.empty(shape, dtype=dtype)
        with warnings.catch_warnings():          # a read-only map: we never write to these tensors
            warnings.simplefilter("ignore")
            return torch.frombuffer(self.buffer, dtype=dtype, count=numel, offset=offset).view(shape)

    def tensor_bytes(self, i: int) -> memoryview:
        """Tensor ``i``'s raw bytes in the blob (for hashing without a copy)."""
        self.tensor(i)                            # bounds checked there
        _, _, offset, nbytes, _ = self._checked[i]
        return self.view[offset:offset + nbytes]

    def tree(self) -> Any:
        """The stored tree with every tensor leaf resolved to its tensor."""
        return self._decode(self.raw_tree)

    def _decode(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self._decode(v) for v in node]
        if isinstance(node, dict):
            if set(node) == {"__tensor__"}:
                return self.tensor(node["__tensor__"])
            if set(node) == {"__float__"}:
                return float(node["__float__"])
            if set(node) == {"__repr__"}:
                return Repr(str(node["__repr__"]))
            return {k: self._decode(v) for k, v in node.items()}
        return node


class Repr(str):
    """A value the blob could only hold as its ``repr`` (compared as text)."""


def load(buffer) -> Any:
    """Parse and validate a blob held in memory (``bytes``/``bytearray``/``mmap``); return its tree."""
    return Blob(buffer).tree()


# ----------------------------------------------------------------------------- fingerprints
def fingerprint(value: Any) -> Any:
    """A JSON-able identity of one input: dtype, shape and sha256 of a tensor's bytes; the value else.

    The worker fingerprints the inputs the reference drew before any candidate code
    exists in its process; the parent fingerprints the inputs as the candidate left them
    from the blob's bytes itself. Equal fingerprints = bit-for-bit unchanged.
    """
    import torch

    if isinstance(value, torch.Tensor):
        host = _host_contiguous(value)
        return _tensor_fingerprint(str(host.dtype).removeprefix("torch."), list(host.shape), tensor_bytes(host))
    if isinstance(value, (list, tuple)):
        return [fingerprint(v) for v in value]
    if isinstance(value, dict):
        return {"dict": {str(k): fingerprint(v) for k, v in value.items()}}
    if isinstance(value, Repr):
        return {"repr": str(value)}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"repr": repr(value)}
    return {"repr": repr(value)}


def _tensor_fingerprint(dtype: str, shape: list, data: memoryview) -> dict:
    return {"tensor": [dtype, [int(s) for s in shape], hashlib.sha256(data).hexdigest()]}


def fingerprint_blob_node(blob: Blob, node: Any, expected: Any = None) -> Any:
    """``fingerprint`` of a value stored in ``blob`` (``node`` from its raw tree), hashing its bytes in place.

    ``expected`` (the fingerprint it should equal) guides the walk: a tensor whose dtype
    or shape already differ from it is not hashed, so a forged entry cannot make the
    parent hash more bytes than the reference's inputs hold.
    """
    if isinstance(node, list):
        guide = expected if isinstance(expected, list) and len(expected) == len(node) else [None] * len(node)
        return [fingerprint_blob_node(blob, v, e) for v, e in zip(node, guide)]
    if isinstance(node, dict) and set(node) == {"__tensor__"}:
        i = node["__tensor__"]
        t = blob.tensor(i)
        dtype, shape = str(t.dtype).removeprefix("torch."), list(t.shape)
        want = expected.get("tensor") if isinstance(expected, dict) else None
        if not (isinstance(want, list) and len(want) == 3 and want[0] == dtype and want[1] == shape):
            return {"tensor": [dtype, shape, "not hashed: dtype or shape differ"]}
        return _tensor_fingerprint(dtype, shape, blob.tensor_bytes(i))
    if isinstance(node, dict) and not set(node) & {"__float__", "__repr__"}:
        inner = expected.get("dict") if isinstance(expected, dict) else None
        inner = inner if isinstance(inner, dict) else {}
        return {"dict": {k: fingerprint_blob_node(blob, v, inner.get(k)) for k, v in node.items()}}
    return fingerprint(blob._decode(node))
