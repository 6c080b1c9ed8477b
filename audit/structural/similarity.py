"""Scoring fingerprints against each other: similarity (the same computation) and containment (inside a larger one).

**Similarity** (:func:`structural_similarity`, :func:`structural_pairs`): the weighted Jaccard of the two WL
feature multisets, 1.0 for the same normalised graph whatever the sizes and names; a code with several traced
references counts its best pair.

**Containment** (:func:`structural_containment`, :func:`containment_pairs`): is the benchmark's computation a
part of the training graph (a task fused into a bigger model)? A graph is described by its *upstream cones*:
for each op node and each radius r = 1..3, the hash of the computation within r steps upstream of it (the
upstream-only WL label, :func:`kvdata.audit.structural.graph.wl_labels` with ``consumers=False``). If the
benchmark graph is embedded in the training graph, each of its cones appears there unchanged, except those that
reach the benchmark's own inputs (which are intermediate values in the larger graph, not inputs): only the
*core* cones, which stay clear of the inputs, are compared. Consumers never enter a cone, so what the larger
graph does with the result does not matter either. The score is the fraction of the benchmark's core cones
(counted with multiplicity, every radius with the same weight) found among all cones of the training graph:
1.0 when the benchmark sits inside unchanged, near 0 for an unrelated graph, and between for a partial match
(some ops of the task replaced). Cones are compared only as a multiset, so this is a necessary condition for a
subgraph match rather than a proof of one; three rounds of refinement make accidental matches rare.

A tiny benchmark graph (one ``relu``, one ``softmax``) is inside almost every model, which says nothing about
contamination. So containment is 0 unless the benchmark graph has at least :data:`MIN_CONTAINMENT_OPS` ops as
the code wrote them (``n_source_ops``: a ``gelu`` is one op, however many its decomposition has) and at least
:data:`MIN_CORE_CONES` core cones: KernelBench level 1 (single operators) is never "contained", level 2 (fused
operator chains) and up can be.
"""
from __future__ import annotations

from typing import Iterable, Optional

from .records import Fingerprint, GraphPrint

MIN_CONTAINMENT_OPS = 3
MIN_CORE_CONES = 4


def weighted_jaccard(a: dict[str, int], b: dict[str, int]) -> float:
    if not a and not b:
        return 1.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    inter = sum(min(v, large.get(k, 0)) for k, v in small.items())
    total = sum(a.values()) + sum(b.values())
    return inter / (total - inter) if total > inter else 1.0


def structural_similarity(fp_a: Optional[Fingerprint], fp_b: Optional[Fingerprint]) -> float:
    """Weighted Jaccard of WL feature multisets in [0, 1], best over the traced references of each side."""
    if fp_a is None or fp_b is None:
        return 0.0
    best = 0.0
    for ga in fp_a.graphs:
        for gb in fp_b.graphs:
            if ga.canonical == gb.canonical:
                return 1.0
            best = max(best, weighted_jaccard(ga.features, gb.features))
    return best


def containment_eligible(graph: GraphPrint) -> bool:
    """Large enough for containment to mean something (see the module docstring)."""
    return graph.n_source_ops >= MIN_CONTAINMENT_OPS and sum(graph.core.values()) >= MIN_CORE_CONES


def graph_containment(bench: GraphPrint, train: GraphPrint) -> float:
    if not containment_eligible(bench):
        return 0.0
    total = sum(bench.core.values())
    found = sum(min(v, train.cone.get(k, 0)) for k, v in bench.core.items())
    return found / total


def structural_containment(bench_fp: Optional[Fingerprint], train_fp: Optional[Fingerprint]) -> float:
    """The fraction of the benchmark graph's core cones present in the training graph, in [0, 1]; best over the
    traced references of each side; 0.0 for a benchmark graph too small to be evidence."""
    if bench_fp is None or train_fp is None:
        return 0.0
    return max((graph_containment(gb, gt) for gb in bench_fp.graphs for gt in train_fp.graphs), default=0.0)


# ---------------------------------------------------------------------------------------------- all pairs
def _rows(fps: dict, eligible=None) -> list[tuple]:
    return [(fid, g) for fid, fp in fps.items() if fp is not None for g in fp.graphs
            if eligible is None or eligible(g)]


def _best_per_pair(bench_fps: dict, bench_rows, train_rows, scores: Iterable[tuple]) -> list[tuple]:
    best: dict[tuple, float] = {}
    for bi, ti, s in scores:
        pair = (bench_rows[bi][0], train_rows[ti][0])
        best[pair] = max(best.get(pair, 0.0), s)
    order = {bid: i for i, bid in enumerate(bench_fps)}
    return sorted(((b, t, s) for (b, t), s in best.items()), key=lambda x: (order[x[0]], -x[2], str(x[1])))


def structural_pairs(bench_fps: dict, train_fps: dict, threshold: float = 0.9) -> list[tuple]:
    """All (bench_id, train_id, similarity) with similarity >= threshold, best first per benchmark item.

    Weighted Jaccard of multisets equals the set Jaccard of the multisets expanded into (feature, copy) items,
    and a set intersection is a dot product of 0/1 vectors, so all pairs are scored with one sparse matrix
    product per block of training graphs (scipy).
    """
    bench_rows, train_rows = _rows(bench_fps), _rows(train_fps)
    if not bench_rows or not train_rows:
        return []
    try:
        scores = _scores_sparse(bench_rows, train_rows, threshold, "features", "features", _jaccard_from)
    except ImportError:
        scores = ((bi, ti, s) for bi, (_, gb) in enumerate(bench_rows) for ti, (_, gt) in enumerate(train_rows)
                  for s in [1.0 if gb.canonical == gt.canonical else weighted_jaccard(gb.features, gt.features)]
                  if s >= threshold)
    return _best_per_pair(bench_fps, bench_rows, train_rows, scores)


def containment_pairs(bench_fps: dict, train_fps: dict, threshold: float = 0.9) -> list[tuple]:
    """All (bench_id, train_id, containment) with containment >= threshold, best first per benchmark item.

    Benchmark graphs too small for containment (:func:`containment_eligible`) take no part. Scored like
    :func:`structural_pairs`: the benchmark's core cones and the training graphs' cones as expanded 0/1 rows,
    intersections by one sparse product per block, divided by the benchmark side's size.
    """
    bench_rows, train_rows = _rows(bench_fps, containment_eligible), _rows(train_fps)
    if not bench_rows or not train_rows:
        return []
    try:
        scores = _scores_sparse(bench_rows, train_rows, threshold, "core", "cone", _containment_from)
    except ImportError:
        scores = ((bi, ti, s) for bi, (_, gb) in enumerate(bench_rows) for ti, (_, gt) in enumerate(train_rows)
                  for s in [graph_containment(gb, gt)] if s >= threshold)
    return _best_per_pair(bench_fps, bench_rows, train_rows, scores)


def _jaccard_from(np, inter, b_size, t_size, b_canon, t_canon):
    union = b_size[:, None] + t_size[None, :] - inter
    sim = np.where(union > 0, inter / np.maximum(union, 1e-9), 1.0)
    sim[b_canon[:, None] == t_canon[None, :]] = 1.0
    return sim


def _containment_from(np, inter, b_size, t_size, b_canon, t_canon):
    return inter / np.maximum(b_size[:, None], 1e-9)


def _scores_sparse(bench_rows, train_rows, threshold, bench_attr, train_attr, score_from, block: int = 8192):
    """(bench row, train row, score) for every pair at or above ``threshold``: multisets expanded to 0/1 rows
    over (feature, copy) items, intersections by sparse products, ``score_from`` turning them into scores."""
    import numpy as np
    from scipy import sparse

    vocab: dict[tuple[str, int], int] = {}

    def matrix(rows, attr):
        indptr, indices = [0], []
        for _, g in rows:
            for feat, count in getattr(g, attr).items():
                for c in range(count):
                    indices.append(vocab.setdefault((feat, c), len(vocab)))
            indptr.append(len(indices))
        return indptr, indices

    b_ptr, b_idx = matrix(bench_rows, bench_attr)
    t_ptr, t_idx = matrix(train_rows, train_attr)
    n_feat = len(vocab)
    bench = sparse.csr_matrix((np.ones(len(b_idx), np.float32), b_idx, b_ptr), shape=(len(bench_rows), n_feat))
    train = sparse.csr_matrix((np.ones(len(t_idx), np.float32), t_idx, t_ptr), shape=(len(train_rows), n_feat))
    b_size = np.diff(b_ptr).astype(np.float32)
    t_size = np.diff(t_ptr).astype(np.float32)
    b_canon = np.array([g.canonical for _, g in bench_rows])
    for start in range(0, len(train_rows), block):
        part = train[start:start + block]
        inter = (bench @ part.T).toarray()
        t_canon = np.array([g.canonical for _, g in train_rows[start:start + block]])
        sim = score_from(np, inter, b_size, t_size[start:start + block], b_canon, t_canon)
        for bi, tj in zip(*np.nonzero(sim >= threshold)):
            yield int(bi), start + int(tj), float(sim[bi, tj])
