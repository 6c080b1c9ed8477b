"""Structural overlap: the same computation written differently.

A paraphrase that renames every identifier, swaps ``nn.ReLU()`` for ``F.relu``, changes the sizes, or hides the
model in a 150-line utility file keeps almost no shingles, yet it is the benchmark task. What it keeps is the
computation, so this module compares computations:

1. **Trace** each PyTorch reference (an ``nn.Module`` plus ``get_inputs()`` / ``get_init_inputs()``, KernelBench
   and KernelBook style) to its graph of ATen operations with ``make_fx`` on fake tensors: no real compute, no
   memory for the inputs' sizes, no GPU. Tracing runs untrusted code, so it happens in
   :mod:`kvdata.audit._trace_worker` inside :class:`kvdata.sandbox.Sandbox`, many codes per worker process (torch
   imports once), with a per-item time limit; a hang or crash costs that item only — the parent restarts a worker
   after it. What comes back is parsed as data and nothing more.
2. **Normalise** the op graph (:func:`normalize_graph`): shapes abstracted (only a convolution's dimensionality
   is kept); layout-only ops (view, reshape, permute, transpose, expand, contiguous, clone, detach, ...) collapsed
   into their input (a transpose/permute leaves a mark on the edge, so ``A.T @ B`` is not ``A @ B``); in-place
   and out-of-place unified (``relu_`` → ``relu``); ``addmm`` split into
   ``matmul`` + ``add`` and ``mm``/``bmm`` named ``matmul``, so ``nn.Linear``, ``F.linear`` and ``x @ w.T + b``
   converge; commutative ops get unordered operands; dead code dropped.
3. **Fingerprint** it (:func:`fingerprint_graph`): Weisfeiler-Lehman relabelling over the DAG (each node's label
   refined with its ordered inputs and its consumers, three rounds), the multiset of all labels as features,
   and an exact canonical hash (the multiset of final labels).
4. **Compare**: :func:`structural_similarity` is the weighted Jaccard of the feature multisets (1.0 for the same
   computation, whatever the sizes and names); a file with several top-level modules counts its best match.

Fingerprints are cached by content hash in ``cache_dir`` (SQLite), including deterministic failures ("no
get_inputs"), so a re-audit traces only new code.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import queue
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

logger = logging.getLogger(__name__)

__all__ = [
    "FINGERPRINT_VERSION", "GraphPrint", "Fingerprint", "TraceError", "normalize_graph", "fingerprint_graph",
    "fingerprint_many", "structural_similarity", "structural_pairs", "FingerprintCache",
]

# Bump when normalisation or hashing changes: it is part of every cache key.
FINGERPRINT_VERSION = "kvstruct-2"
WL_ROUNDS = 3
WORKER = Path(__file__).with_name("_trace_worker.py")
STARTUP_GRACE_S = 60.0          # importing torch in a cold sandbox can take a while on a busy machine
ANSWER_GRACE_S = 10.0           # past its own per-item alarm, how long a worker may stay silent before the kill
MAX_LINE_BYTES = 64 * 2**20     # a worker line larger than this is not a fingerprint we want


# ---------------------------------------------------------------------------------------------- records
@dataclass
class GraphPrint:
    """The fingerprint of one traced module: WL feature multiset and an exact canonical hash."""

    cls: str
    n_ops: int
    features: dict[str, int]
    canonical: str

    def to_json(self) -> dict:
        return {"cls": self.cls, "n_ops": self.n_ops, "features": self.features, "canonical": self.canonical}

    @classmethod
    def from_json(cls, d: dict) -> "GraphPrint":
        return cls(str(d["cls"]), int(d["n_ops"]), {str(k): int(v) for k, v in d["features"].items()},
                   str(d["canonical"]))


@dataclass
class Fingerprint:
    """All traced modules of one code (usually one: ``Model``)."""

    key: str
    graphs: list[GraphPrint]

    @property
    def canonical(self) -> str:
        """The exact hash of the largest traced graph (the model, not a helper)."""
        return max(self.graphs, key=lambda g: g.n_ops).canonical

    def to_json(self) -> dict:
        return {"key": self.key, "graphs": [g.to_json() for g in self.graphs]}

    @classmethod
    def from_json(cls, d: dict) -> "Fingerprint":
        return cls(str(d["key"]), [GraphPrint.from_json(g) for g in d["graphs"]])


@dataclass
class TraceError:
    """Why a code has no fingerprint; ``final`` errors are deterministic and cached, the others retried."""

    message: str
    final: bool = True


# ---------------------------------------------------------------------------------------------- normalisation
# Ops that only change how data is laid out or referenced: the node becomes its first tensor input. Those that
# reorder dimensions (PERMUTING_OPS) leave a mark on the edge, so `A.T @ B` stays distinct from `A @ B` while
# `F.linear(x, w)` and `x @ w.t()` (both a transpose of w) still converge.
LAYOUT_OPS = frozenset({
    "view", "_unsafe_view", "reshape", "_reshape_alias", "expand", "expand_as", "contiguous", "clone", "detach",
    "alias", "t", "transpose", "permute", "squeeze", "unsqueeze", "flatten", "unflatten", "view_as", "as_strided",
    "lift_fresh", "lift_fresh_copy", "_to_copy", "to", "type_as", "dropout", "native_dropout", "feature_dropout",
    "alpha_dropout", "_assert_tensor_metadata", "movedim", "swapaxes", "mT", "numpy_T", "_conj", "resolve_conj",
    "resolve_neg", "view_copy", "unsqueeze_copy", "squeeze_copy", "permute_copy", "t_copy", "expand_copy",
    "transpose_copy", "_unsafe_view_copy", "alias_copy", "identity",
})
PERMUTING_OPS = frozenset({"t", "transpose", "permute", "movedim", "swapaxes", "mT", "numpy_T", "permute_copy",
                           "t_copy", "transpose_copy"})
# Allocations whose contents are about to be overwritten: no computation.
EMPTY_OPS = frozenset({"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided"})
COMMUTATIVE_OPS = frozenset({
    "add", "mul", "maximum", "minimum", "fmax", "fmin", "eq", "ne", "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "hypot",
})
RENAMED_OPS = {
    "mm": "matmul", "bmm": "matmul", "matmul": "matmul", "dot": "matmul", "mv": "matmul",
    "native_batch_norm": "batch_norm", "_native_batch_norm_legit": "batch_norm",
    "_native_batch_norm_legit_no_training": "batch_norm", "native_batch_norm_legit_functional": "batch_norm",
    "native_layer_norm": "layer_norm", "native_group_norm": "group_norm", "_softmax": "softmax",
    "_log_softmax": "log_softmax", "max_pool1d_with_indices": "max_pool1d", "max_pool2d_with_indices": "max_pool2d",
    "max_pool3d_with_indices": "max_pool3d", "sub": "sub", "true_divide": "div", "multiply": "mul",
    "subtract": "sub", "divide": "div", "absolute": "abs", "clip": "clamp", "greater": "gt", "less": "lt",
    "scaled_dot_product_attention": "sdpa", "_scaled_dot_product_flash_attention_for_cpu": "sdpa",
    "_scaled_dot_product_efficient_attention": "sdpa", "_scaled_dot_product_flash_attention": "sdpa",
}
# addmm(bias, a, b) is matmul(a, b) + bias: split so `nn.Linear` and `x @ w.T + b` give the same graph.
FUSED_ADD_MATMUL = frozenset({"addmm", "baddbmm", "addbmm", "addmv"})


def base_op_name(target: str) -> str:
    """``aten.relu_.default`` → ``relu``; ``aten._softmax.default`` → ``softmax``; others stay readable."""
    name = target
    if name.startswith("aten."):
        name = name.split(".")[1]
    elif name.startswith("<built-in function "):
        name = name[len("<built-in function "):-1]
    if name.endswith("_") and not name.endswith("__") and name.rstrip("_"):
        name = name.rstrip("_")  # in-place → out-of-place
    if name.endswith(".out"):
        name = name[:-4]
    return RENAMED_OPS.get(name, name)


@dataclass
class OpGraph:
    """A normalised op DAG: node labels, each node's inputs (ordered, or sorted for commutative ops)."""

    labels: list[str] = field(default_factory=list)
    inputs: list[list[int]] = field(default_factory=list)
    ordered: list[bool] = field(default_factory=list)
    permuted: list[list[bool]] = field(default_factory=list)   # per input: reached through a transpose/permute

    def add(self, label: str, inputs: list, ordered: bool = True) -> int:
        """``inputs``: node indices, or (index, permuted) pairs."""
        pairs = [i if isinstance(i, tuple) else (i, False) for i in inputs]
        self.labels.append(label)
        self.inputs.append([i for i, _ in pairs])
        self.permuted.append([p for _, p in pairs])
        self.ordered.append(ordered)
        return len(self.labels) - 1

    def consumers(self) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in self.labels]
        for node, ins in enumerate(self.inputs):
            for i in ins:
                out[i].append(node)
        return out


def _refs(arg) -> list[int]:
    """Node indices referenced by a recorded argument (nested lists flattened)."""
    if isinstance(arg, dict) and set(arg) == {"n"}:
        return [int(arg["n"])]
    if isinstance(arg, list):
        return [r for a in arg for r in _refs(a)]
    return []


def _is_scalar_arg(arg) -> bool:
    return isinstance(arg, (int, float)) and not isinstance(arg, bool)


def normalize_graph(nodes: list[dict]) -> OpGraph:
    """Turn the worker's raw node list into an :class:`OpGraph` (see the module docstring for the rules).

    Raises ``ValueError`` on anything malformed: this is untrusted data.
    """
    if not isinstance(nodes, list):
        raise ValueError("graph nodes must be a list")
    graph = OpGraph()
    mapped: list = []          # raw node index → (graph node, permuted) or None (no data)
    ranks: list[Optional[int]] = []
    output_refs: list[int] = []

    def resolve(refs: Iterable[int]) -> list[tuple[int, bool]]:
        out = []
        for r in refs:
            if not 0 <= r < len(mapped):
                raise ValueError(f"reference to node {r} before it exists")
            if mapped[r] is not None:
                out.append(mapped[r])
        return out

    for raw in nodes:
        if not isinstance(raw, dict) or not isinstance(raw.get("op"), str):
            raise ValueError("malformed node")
        op = raw["op"]
        rank = raw.get("rank")
        ranks.append(rank if isinstance(rank, int) else None)
        args = raw.get("args") or []
        kwargs = raw.get("kw") or {}
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            raise ValueError("malformed node arguments")
        if op in ("placeholder", "get_attr"):
            kind = raw.get("kind")
            mapped.append((graph.add("input" if kind == "input" else "param", []), False))
            continue
        if op == "output":
            output_refs = resolve(_refs(args))
            mapped.append(None)
            continue
        name = base_op_name(op)
        tensor_args = [resolve(_refs(a)) for a in args]
        flat_inputs = [r for refs in tensor_args for r in refs] + resolve(_refs(list(kwargs.values())))
        if name == "getitem":                   # one output of a multi-output op: the op itself
            mapped.append(flat_inputs[0] if flat_inputs else None)
            continue
        if name in EMPTY_OPS:
            mapped.append(None)
            continue
        if name in LAYOUT_OPS or (name == "copy" and len(flat_inputs) == 2):
            # copy_(dst, src) is the value of src; everything else is its first tensor input.
            source = flat_inputs[-1] if name == "copy" else (flat_inputs[0] if flat_inputs else None)
            if source is not None and name in PERMUTING_OPS:
                source = (source[0], True)
            mapped.append(source)
            continue
        if name in FUSED_ADD_MATMUL and len(flat_inputs) >= 3:
            product = graph.add("matmul", flat_inputs[1:3])
            mapped.append((graph.add("add", sorted([flat_inputs[0], (product, False)]), ordered=False), False))
            continue
        label = name
        if name == "convolution":
            weight_rank = ranks[_refs(args[1])[0]] if len(args) > 1 and _refs(args[1]) else None
            transposed = len(args) > 6 and args[6] is True
            dims = f"{weight_rank - 2}d" if isinstance(weight_rank, int) and weight_rank >= 3 else ""
            label = f"conv_transpose{dims}" if transposed else f"conv{dims}"
        # A scalar operand of a binary op (x * 0.5) is an input like any other: a constant.
        if name in ("add", "mul", "sub", "div", "pow", "maximum", "minimum", "rsub", "remainder", "fmod") \
                and len(args) > 1 and _is_scalar_arg(args[1]):
            if name == "div":
                label = "mul"                   # x / c is x * (1/c)
            elif name == "sub":
                label = "add"                   # x - c is x + (-c)
            flat_inputs = flat_inputs + [(graph.add("const", []), False)]
        commutative = label in COMMUTATIVE_OPS
        ins = sorted(flat_inputs) if commutative else flat_inputs
        mapped.append((graph.add(label, ins, ordered=not commutative), False))
    out = graph.add("output", output_refs)
    return _drop_dead(graph, out)


def _drop_dead(graph: OpGraph, output: int) -> OpGraph:
    """Keep only nodes that the output depends on (unused parameters, discarded intermediates go)."""
    live, stack = set(), [output]
    while stack:
        n = stack.pop()
        if n in live:
            continue
        live.add(n)
        stack.extend(graph.inputs[n])
    order = sorted(live)
    new_index = {old: new for new, old in enumerate(order)}
    kept = OpGraph()
    for old in order:
        kept.add(graph.labels[old], [(new_index[i], p) for i, p in zip(graph.inputs[old], graph.permuted[old])],
                 graph.ordered[old])
    return kept


# ---------------------------------------------------------------------------------------------- hashing
def _h(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def wl_labels(graph: OpGraph, rounds: int = WL_ROUNDS) -> list[list[str]]:
    """Weisfeiler-Lehman refinement: round r+1 label = hash(own label, input labels, consumer labels).

    Inputs keep their order except for commutative ops (sorted) and carry a mark when reached through a
    transpose/permute; consumers are always a multiset.
    """
    consumers = graph.consumers()
    current = [_h(label) for label in graph.labels]
    history = [current]
    for _ in range(rounds):
        nxt = []
        for n, own in enumerate(current):
            ins = [current[i] + ("T" if p else "") for i, p in zip(graph.inputs[n], graph.permuted[n])]
            if not graph.ordered[n]:
                ins.sort()
            outs = sorted(current[c] for c in consumers[n])
            nxt.append(_h(f"{own}|{','.join(ins)}|{','.join(outs)}"))
        current = nxt
        history.append(current)
    return history


def fingerprint_graph(graph: OpGraph, cls: str = "Model") -> GraphPrint:
    history = wl_labels(graph)
    features = Counter(f"{r}{label}" for r, labels in enumerate(history) for label in labels)
    canonical = hashlib.sha256("\n".join(sorted(history[-1])).encode()).hexdigest()[:32]
    n_ops = sum(1 for label in graph.labels if label not in ("input", "param", "const", "output"))
    return GraphPrint(cls=cls, n_ops=n_ops, features=dict(features), canonical=canonical)


def fingerprint_from_worker(key: str, graphs: list) -> Fingerprint:
    """Validate and fingerprint the graphs a worker reported (untrusted JSON)."""
    if not isinstance(graphs, list) or not graphs:
        raise ValueError("worker reported no graphs")
    prints = []
    for g in graphs:
        if not isinstance(g, dict):
            raise ValueError("malformed graph record")
        prints.append(fingerprint_graph(normalize_graph(g.get("nodes")), cls=str(g.get("cls", "?"))[:200]))
    return Fingerprint(key=key, graphs=prints)


# ---------------------------------------------------------------------------------------------- similarity
def weighted_jaccard(a: dict[str, int], b: dict[str, int]) -> float:
    if not a and not b:
        return 1.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    inter = sum(min(v, large.get(k, 0)) for k, v in small.items())
    total = sum(a.values()) + sum(b.values())
    return inter / (total - inter) if total > inter else 1.0


def structural_similarity(fp_a: Optional[Fingerprint], fp_b: Optional[Fingerprint]) -> float:
    """Weighted Jaccard of WL feature multisets in [0, 1], best over the traced modules of each side."""
    if fp_a is None or fp_b is None:
        return 0.0
    best = 0.0
    for ga in fp_a.graphs:
        for gb in fp_b.graphs:
            if ga.canonical == gb.canonical:
                return 1.0
            best = max(best, weighted_jaccard(ga.features, gb.features))
    return best


def structural_pairs(bench_fps: dict, train_fps: dict, threshold: float = 0.9) -> list[tuple]:
    """All (bench_id, train_id, score) with score >= threshold, best first per benchmark item.

    Weighted Jaccard of multisets equals the set Jaccard of the multisets expanded into (feature, copy) items,
    and a set intersection is a dot product of 0/1 vectors, so all pairs are scored with one sparse matrix
    product per block of training graphs (scipy), after a size filter (J >= t needs t <= |A|/|B| <= 1/t).
    """
    bench_rows = [(bid, g) for bid, fp in bench_fps.items() if fp is not None for g in fp.graphs]
    train_rows = [(tid, g) for tid, fp in train_fps.items() if fp is not None for g in fp.graphs]
    if not bench_rows or not train_rows:
        return []
    try:
        scores = _pair_scores_sparse(bench_rows, train_rows, threshold)
    except ImportError:
        scores = _pair_scores_python(bench_rows, train_rows, threshold)
    best: dict[tuple, float] = {}
    for bi, ti, s in scores:
        pair = (bench_rows[bi][0], train_rows[ti][0])
        best[pair] = max(best.get(pair, 0.0), s)
    order = {bid: i for i, bid in enumerate(bench_fps)}
    return sorted(((b, t, s) for (b, t), s in best.items()), key=lambda x: (order[x[0]], -x[2], str(x[1])))


def _pair_scores_python(bench_rows, train_rows, threshold):
    for bi, (_, gb) in enumerate(bench_rows):
        for ti, (_, gt) in enumerate(train_rows):
            s = 1.0 if gb.canonical == gt.canonical else weighted_jaccard(gb.features, gt.features)
            if s >= threshold:
                yield bi, ti, s


def _pair_scores_sparse(bench_rows, train_rows, threshold, block: int = 8192):
    import numpy as np
    from scipy import sparse

    vocab: dict[tuple[str, int], int] = {}

    def matrix(rows):
        indptr, indices = [0], []
        for _, g in rows:
            for feat, count in g.features.items():
                for c in range(count):
                    indices.append(vocab.setdefault((feat, c), len(vocab)))
            indptr.append(len(indices))
        return indptr, indices

    b_ptr, b_idx = matrix(bench_rows)
    t_ptr, t_idx = matrix(train_rows)
    n_feat = len(vocab)
    bench = sparse.csr_matrix((np.ones(len(b_idx), np.float32), b_idx, b_ptr), shape=(len(bench_rows), n_feat))
    train = sparse.csr_matrix((np.ones(len(t_idx), np.float32), t_idx, t_ptr), shape=(len(train_rows), n_feat))
    b_size = np.diff(b_ptr).astype(np.float32)
    t_size = np.diff(t_ptr).astype(np.float32)
    b_canon = np.array([g.canonical for _, g in bench_rows])
    for start in range(0, len(train_rows), block):
        part = train[start:start + block]
        inter = (bench @ part.T).toarray()
        union = b_size[:, None] + t_size[None, start:start + block] - inter
        sim = np.where(union > 0, inter / np.maximum(union, 1e-9), 1.0)
        t_canon = np.array([g.canonical for _, g in train_rows[start:start + block]])
        sim[b_canon[:, None] == t_canon[None, :]] = 1.0
        for bi, tj in zip(*np.nonzero(sim >= threshold)):
            yield int(bi), start + int(tj), float(sim[bi, tj])


# ---------------------------------------------------------------------------------------------- cache
def content_key(code: str) -> str:
    return hashlib.sha256(f"{FINGERPRINT_VERSION}\0{code}".encode("utf-8", "surrogatepass")).hexdigest()


class FingerprintCache:
    """Fingerprints (or deterministic failures) by content key, in one SQLite file."""

    def __init__(self, cache_dir: str | os.PathLike):
        self.path = Path(cache_dir) / "fingerprints.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS fp (key TEXT PRIMARY KEY, body TEXT NOT NULL)")
        self._db.commit()
        self._lock = threading.Lock()

    def get_many(self, keys: list[str]) -> dict[str, Fingerprint | TraceError]:
        found: dict[str, Fingerprint | TraceError] = {}
        unique = list(dict.fromkeys(keys))
        with self._lock:
            for i in range(0, len(unique), 500):
                part = unique[i:i + 500]
                rows = self._db.execute(
                    f"SELECT key, body FROM fp WHERE key IN ({','.join('?' * len(part))})", part).fetchall()
                for key, body in rows:
                    d = json.loads(body)
                    found[key] = TraceError(d["error"]) if "error" in d else Fingerprint.from_json(d)
        return found

    def put(self, key: str, value: Fingerprint | TraceError) -> None:
        if isinstance(value, TraceError) and not value.final:
            return
        body = json.dumps({"error": value.message} if isinstance(value, TraceError) else value.to_json())
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO fp (key, body) VALUES (?, ?)", (key, body))
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM fp").fetchone()[0]


# ---------------------------------------------------------------------------------------------- tracing
@dataclass
class TraceStats:
    """What the last :func:`fingerprint_many` call did (tests and the audit report read it)."""

    cached: int = 0
    traced: int = 0
    failed: int = 0
    worker_starts: int = 0


def fingerprint_many(codes: dict, cache_dir=None, timeout_s: float = 60, workers: Optional[int] = None,
                     memory_mb: int = 6144, errors: Optional[dict] = None,
                     stats: Optional[TraceStats] = None, progress: bool = False) -> dict:
    """Trace and fingerprint every code: ``{id: Fingerprint | None}`` (None: could not trace).

    ``errors`` (if given) receives ``{id: message}`` for every None. ``timeout_s`` bounds one code; ``workers``
    sandboxed processes run in parallel (default: up to 4, one per core).
    """
    stats = stats if stats is not None else TraceStats()
    errors = errors if errors is not None else {}
    keys = {cid: content_key(code if isinstance(code, str) else "") for cid, code in codes.items()}
    cache = FingerprintCache(cache_dir) if cache_dir else None
    known: dict[str, Fingerprint | TraceError] = cache.get_many(list(keys.values())) if cache is not None else {}
    stats.cached += sum(1 for k in keys.values() if k in known)
    todo: dict[str, str] = {}
    for cid, key in keys.items():
        if key not in known and key not in todo:
            code = codes[cid]
            if not isinstance(code, str) or not code.strip():
                known[key] = TraceError("empty or non-text code")
            elif "get_inputs" not in code:   # most corpus rows (HIP, Triton) have no PyTorch reference: no worker
                known[key] = TraceError("no get_inputs() in the code")
            else:
                todo[key] = code
    if todo:
        n_workers = max(1, min(workers or min(4, os.cpu_count() or 1), len(todo)))
        shards = _shards(list(todo.items()), n_workers)
        bar = _progress(len(todo), progress)
        with ThreadPoolExecutor(n_workers) as pool:
            futures = [pool.submit(_trace_shard, shard, timeout_s, memory_mb, bar) for shard in shards]
            for fut in futures:
                shard_results, starts = fut.result()
                stats.worker_starts += starts
                stats.traced += sum(1 for v in shard_results.values() if isinstance(v, Fingerprint))
                for key, value in shard_results.items():
                    known[key] = value
                    if cache is not None:
                        cache.put(key, value)
        if bar is not None:
            bar.close()
    result: dict = {}
    for cid, key in keys.items():
        value = known.get(key, TraceError("not traced"))
        if isinstance(value, Fingerprint):
            result[cid] = value
        else:
            result[cid] = None
            errors[cid] = value.message
            stats.failed += 1
    return result


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc="tracing", unit="code")


def _shards(items: list, n: int) -> list[list]:
    size = -(-len(items) // n)
    return [items[i:i + size] for i in range(0, len(items), size)]


def _trace_shard(items: list[tuple[str, str]], timeout_s: float, memory_mb: int,
                 bar=None) -> tuple[dict[str, Fingerprint | TraceError], int]:
    """Trace ``items`` with as few sandboxed workers as possible: a worker that dies or stops answering costs
    the item it was on (recorded as a failure), and a fresh worker continues from the next one.

    Returns (results by content key, number of workers started). Two workers in a row that die before
    answering anything mean the worker itself cannot run (broken environment): the rest fail, not cached."""
    from kvdata.sandbox import Sandbox, SandboxLimits

    sandbox = Sandbox(SandboxLimits(timeout_s=timeout_s, memory_mb=memory_mb),
                      env={"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
    results: dict[str, Fingerprint | TraceError] = {}
    start, starts, silent_deaths = 0, 0, 0
    while start < len(items):
        starts += 1
        done, failure = _run_worker(sandbox, items[start:], timeout_s, memory_mb, results, bar)
        silent_deaths = silent_deaths + 1 if (done == 0 and failure is not None and not failure.final) else 0
        if silent_deaths >= 2:
            for key, _ in items[start:]:
                results[key] = TraceError(f"trace worker cannot run: {failure.message}", final=False)
            break
        start += done
        if failure is not None and start < len(items):
            key = items[start][0]
            results[key] = failure
            logger.warning("structural trace of %s…: %s", key[:12], failure.message)
            if bar is not None:
                bar.update(1)
            start += 1
    return results, starts


def _run_worker(sandbox, items, timeout_s, memory_mb, results, bar) -> tuple[int, Optional[TraceError]]:
    """One worker over ``items``: returns (items answered, why it stopped early or None)."""
    from kvdata.sandbox import kill_tree, tree_rss_mb

    scratch = sandbox.make_scratch()
    try:
        with open(scratch / "inputs.jsonl", "w", encoding="utf-8") as f:
            for key, code in items:
                f.write(json.dumps({"key": key, "code": code}) + "\n")
        with tempfile.TemporaryFile() as err:
            proc, _ = sandbox.popen([sys.executable, "-I", str(WORKER), "inputs.jsonl", f"{timeout_s:g}"],
                                    scratch=scratch, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
            lines: queue.Queue = queue.Queue()
            reader = threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True)
            reader.start()
            answered, failure = 0, None
            # The worker's own alarm ends a slow item at timeout_s; past that plus a grace, it is wedged.
            deadline = time.monotonic() + STARTUP_GRACE_S + timeout_s
            while answered < len(items):
                try:
                    line = lines.get(timeout=0.25)
                except queue.Empty:
                    if tree_rss_mb(proc.pid) > memory_mb:
                        failure = TraceError(f"memory limit ({memory_mb} MB) exceeded", final=True)
                    elif time.monotonic() > deadline:
                        failure = TraceError(f"worker stopped answering (> {timeout_s:g} s)", final=True)
                    else:
                        continue
                    break
                if line is None:            # the worker exited
                    proc.wait()
                    failure = TraceError(f"worker died (exit {proc.returncode}): {_tail(err)}", final=False)
                    break
                key, value = _parse_line(line, answered, items[answered][0])
                results[key] = value
                answered += 1
                if bar is not None:
                    bar.update(1)
                deadline = time.monotonic() + timeout_s + ANSWER_GRACE_S
            kill_tree(proc)
            proc.wait()
            return answered, failure
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _read_lines(stream, sink: queue.Queue) -> None:
    for line in iter(lambda: stream.readline(MAX_LINE_BYTES), b""):
        sink.put(line)
    sink.put(None)


def _parse_line(line: bytes, index: int, expected_key: str) -> tuple[str, Fingerprint | TraceError]:
    """One worker answer, checked against what was asked; anything unexpected is a failure of that item."""
    try:
        d = json.loads(line)
        if not isinstance(d, dict) or d.get("i") != index or d.get("key") != expected_key:
            raise ValueError("answer out of order")
        if d.get("ok") is True:
            return expected_key, fingerprint_from_worker(expected_key, d.get("graphs"))
        return expected_key, TraceError(str(d.get("error", "unknown error"))[:2000])
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as err:
        return expected_key, TraceError(f"unusable worker output: {type(err).__name__}: {err}"[:2000])


def _tail(f, limit: int = 1500) -> str:
    f.seek(0)
    text = f.read().decode("utf-8", "replace").strip()
    return text[-limit:]
