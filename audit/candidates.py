"""Which (benchmark item, training row) pairs the behavioural prober runs.

Probing runs both sides' code, so it is the audit's most expensive measure; it is only worth it for pairs that
some cheaper evidence already links. The rule, for each benchmark item:

1. its ``top_k`` training rows by each of the other scores (Jaccard, containment, cosine, structural similarity,
   structural containment), whatever their values: a paraphrase that no single measure flags is usually near the
   top of at least one of them;
2. plus its ``top_ops`` training rows by **op-multiset overlap** (weighted Jaccard of the normalised ATen op
   counts of the two traces) at or above ``op_overlap_floor``: a rewrite that changes the graph's shape (a
   composite spelled out, a subtraction folded into a bias) keeps most of its ops. Every traced graph of a row
   counts on its own (a utility file holding several modules is ranked by its best one);
3. only pairs where both sides have a PyTorch reference the tracer found (a row the tracer could not exec or
   find a module or function in has nothing to probe either).

The probe itself decides; this module only chooses what to ask.
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import Iterable, Mapping, Optional

__all__ = ["probe_candidates", "op_overlap_pairs", "RANKED_FIELDS"]

RANKED_FIELDS = ("jaccard", "containment", "cosine", "structural", "structural_containment")


def _top_by_field(pairs: Iterable, field: str, k: int) -> set[tuple[str, str]]:
    by_item: dict[str, list] = defaultdict(list)
    for p in pairs:
        v = getattr(p, field)
        if not math.isnan(v) and v > 0:
            by_item[p.bench_id].append((v, p.train_id))
    out = set()
    for b, scored in by_item.items():
        scored.sort(key=lambda x: (-x[0], x[1]))
        out.update((b, t) for _, t in scored[:k])
    return out


def op_overlap_pairs(bench_ops: Mapping[str, Mapping[str, int]], train_ops: Mapping[str, Mapping[str, int]],
                     floor: float, top: int) -> list[tuple[str, str, float]]:
    """For each benchmark key, its ``top`` training rows by weighted Jaccard of op counts, at or above ``floor``
    (keys may be ``(row id, graph index)``: a row is counted once, by its best graph).

    One dense min/max pass per block of training rows over the (small) op vocabulary.
    """
    import numpy as np

    if not bench_ops or not train_ops:
        return []
    vocab = sorted({op for d in list(bench_ops.values()) + list(train_ops.values()) for op in d})
    col = {op: i for i, op in enumerate(vocab)}

    def dense(d: Mapping[str, Mapping[str, int]]):
        keys = list(d)
        m = np.zeros((len(keys), len(vocab)), np.float32)
        for r, k in enumerate(keys):
            for op, c in d[k].items():
                m[r, col[op]] = c
        return keys, m

    b_keys, bm = dense(bench_ops)
    t_keys, tm = dense(train_ops)
    best: dict[int, list[tuple[float, int]]] = defaultdict(list)
    block = max(1, 2_000_000 // max(1, len(vocab) * len(b_keys)))
    for start in range(0, len(t_keys), block):
        part = tm[start:start + block]
        inter = np.minimum(bm[:, None, :], part[None, :, :]).sum(-1)
        union = np.maximum(bm[:, None, :], part[None, :, :]).sum(-1)
        sim = np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0)
        for bi, tj in zip(*np.nonzero(sim >= floor)):
            best[int(bi)].append((float(sim[bi, tj]), start + int(tj)))
    out = []
    for bi, scored in best.items():
        scored.sort(key=lambda x: (-x[0], str(t_keys[x[1]])))
        seen: set = set()
        for s, tj in scored:
            row = _row(t_keys[tj])
            if row not in seen and len(seen) < top:
                seen.add(row)
                out.append((b_keys[bi], t_keys[tj], s))
    return out


def _row(key):
    """A row id from an op-multiset key: the id itself, or (id, graph index) for one graph of a row."""
    return key[0] if isinstance(key, tuple) else key


def probe_candidates(pairs: Iterable, bench_ops: Mapping[str, Mapping[str, int]],
                     train_ops: Mapping[str, Mapping[str, int]], *, top_k: int = 5, top_ops: int = 5,
                     op_overlap_floor: float = 0.5,
                     probeable: Optional[tuple[set[str], set[str]]] = None) -> list[tuple[str, str]]:
    """The (bench_id, train_id) pairs to probe, by the rule in the module docstring, in a stable order."""
    pairs = list(pairs)
    chosen: set[tuple[str, str]] = set()
    for field in RANKED_FIELDS:
        chosen |= _top_by_field(pairs, field, top_k)
    chosen |= {(_row(b), _row(t)) for b, t, _ in op_overlap_pairs(bench_ops, train_ops, op_overlap_floor, top_ops)}
    if probeable is not None:
        bench_ok, train_ok = probeable
        chosen = {(b, t) for b, t in chosen if b in bench_ok and t in train_ok}
    return sorted(chosen)
