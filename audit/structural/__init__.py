"""Structural overlap: the same computation written differently.

A paraphrase that renames every identifier, swaps ``nn.ReLU()`` for ``F.relu``, spells ``F.gelu`` out as its
formula, changes the sizes, or hides the model in a 150-line utility file keeps almost no shingles, yet it is
the benchmark task. What it keeps is the computation, so this package compares computations:

1. **Trace** (:mod:`.tracing`, :mod:`._trace_worker`): every PyTorch reference in a code (found by
   :mod:`kvdata.audit.discover`: ``Model``, a torch twin of a Triton ``ModelNew``, a reference function, a model
   among utilities) is traced to its graph of ATen ops with ``make_fx`` on fake tensors, in a sandboxed worker,
   with core-ATen decompositions plus our own for the composites core ATen keeps (:mod:`._decompositions`).
2. **Normalise** (:mod:`.graph`, :mod:`.algebra`): layout ops collapsed, names unified, and simple algebra
   canonicalised (division, subtraction, powers, commutative chains, clamps).
3. **Fingerprint** (:mod:`.graph`): Weisfeiler-Lehman feature multisets, an exact hash, the op multiset.
4. **Compare** (:mod:`.similarity`): weighted Jaccard (same computation) and containment (the benchmark's
   graph inside a larger training graph).

Fingerprints are cached by content (:mod:`.cache`), including deterministic failures with their reason code.
"""
from __future__ import annotations

from . import cache, graph, similarity, tracing
from .cache import FingerprintCache, content_key
from .graph import (LAYOUT_OPS, PERMUTING_OPS, WL_ROUNDS, base_op_name, fingerprint_from_worker, fingerprint_graph,
                    normalize_graph, wl_labels)
from .opgraph import OpGraph
from .records import FINGERPRINT_VERSION, REASON_CODES, Fingerprint, GraphPrint, TraceError
from .similarity import (MIN_CONTAINMENT_OPS, MIN_CORE_CONES, containment_eligible, containment_pairs,
                         structural_containment, structural_pairs, structural_similarity, weighted_jaccard)
from .tracing import WORKER, TraceStats, fingerprint_many

__all__ = [
    "FINGERPRINT_VERSION", "REASON_CODES", "GraphPrint", "Fingerprint", "TraceError", "TraceStats", "OpGraph",
    "normalize_graph", "fingerprint_graph", "fingerprint_from_worker", "wl_labels", "base_op_name",
    "fingerprint_many", "structural_similarity", "structural_pairs", "structural_containment",
    "containment_pairs", "containment_eligible", "weighted_jaccard", "FingerprintCache", "content_key",
    "MIN_CONTAINMENT_OPS", "MIN_CORE_CONES", "WL_ROUNDS", "LAYOUT_OPS", "PERMUTING_OPS", "WORKER",
]
