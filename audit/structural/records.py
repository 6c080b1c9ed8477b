"""The records of the structural measure: a traced graph's fingerprint, a code's fingerprints, a trace failure.

They cross process boundaries (worker → parent as validated JSON, parent → cache as JSON), so each has
``to_json`` / ``from_json``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kvdata.audit.discover import REASON_CODES as DISCOVERY_REASON_CODES

# Bump when tracing, normalisation or hashing changes: it is part of every cache key.
FINGERPRINT_VERSION = "kvstruct-3"

# Why a code has no fingerprint (TraceError.code): model discovery's reasons (kvdata.audit.discover), and the
# tracer's own. The report gives one for every row that was not traced.
TRACE_REASON_CODES = {
    "forward_failed": "tracing forward (or the reference function) on fake tensors failed",
    "timeout": "tracing ran past the per-item time limit",
    "memory": "the trace worker exceeded its memory limit",
    "worker_died": "the trace worker process died",
    "worker_broken": "the trace worker cannot start in this environment",
    "too_large": "the traced graph is larger than the node limit",
    "bad_output": "the worker's answer was malformed",
    "not_traced": "never traced (internal error)",
}
REASON_CODES = {**DISCOVERY_REASON_CODES, **TRACE_REASON_CODES}


@dataclass
class GraphPrint:
    """The fingerprint of one traced reference (a module's forward, or a reference function).

    - ``features``: the multiset of Weisfeiler-Lehman labels (rounds 0..3, inputs and consumers): similarity.
    - ``canonical``: an exact hash of the normalised graph (the multiset of final WL labels).
    - ``ops``: the multiset of normalised op labels (leaves and the output excluded), after decomposition.
    - ``source_ops``: the same for the trace without decompositions (``gelu``, ``layer_norm``, ``conv2d``):
      the ops as the code wrote them; ``n_source_ops`` is its size, the graph's size for containment.
    - ``cone`` / ``core``: upstream-only WL labels (rounds 1..3) of every op node / of the nodes whose upstream
      cone of that radius does not reach a graph input: the training and the benchmark side of containment.
    """

    cls: str
    n_ops: int
    features: dict[str, int]
    canonical: str
    ops: dict[str, int] = field(default_factory=dict)
    source_ops: dict[str, int] = field(default_factory=dict)
    n_source_ops: int = 0
    cone: dict[str, int] = field(default_factory=dict)
    core: dict[str, int] = field(default_factory=dict)
    kind: str = "module"

    def to_json(self) -> dict:
        return {"cls": self.cls, "n_ops": self.n_ops, "features": self.features, "canonical": self.canonical,
                "ops": self.ops, "source_ops": self.source_ops, "n_source_ops": self.n_source_ops,
                "cone": self.cone, "core": self.core, "kind": self.kind}

    @classmethod
    def from_json(cls, d: dict) -> "GraphPrint":
        def counts(key):
            return {str(k): int(v) for k, v in (d.get(key) or {}).items()}

        return cls(str(d["cls"]), int(d["n_ops"]), counts("features"), str(d["canonical"]), counts("ops"),
                   counts("source_ops"), int(d.get("n_source_ops", 0)), counts("cone"), counts("core"),
                   str(d.get("kind", "module")))


@dataclass
class Fingerprint:
    """All traced references of one code (usually one: ``Model``)."""

    key: str
    graphs: list[GraphPrint]

    @property
    def canonical(self) -> str:
        """The exact hash of the largest traced graph (the model, not a helper)."""
        return self.largest.canonical

    @property
    def largest(self) -> GraphPrint:
        return max(self.graphs, key=lambda g: g.n_ops)

    @property
    def ops(self) -> dict[str, int]:
        """The op multiset of the largest traced graph."""
        return self.largest.ops

    def to_json(self) -> dict:
        return {"key": self.key, "graphs": [g.to_json() for g in self.graphs]}

    @classmethod
    def from_json(cls, d: dict) -> "Fingerprint":
        return cls(str(d["key"]), [GraphPrint.from_json(g) for g in d["graphs"]])


@dataclass
class TraceError:
    """Why a code has no fingerprint: ``code`` is one of :data:`REASON_CODES`, ``message`` the detail.

    ``final`` errors are deterministic and cached; the others (a worker that died, a broken environment) are
    retried on the next run."""

    message: str
    final: bool = True
    code: str = "forward_failed"

    def to_json(self) -> dict:
        return {"error": self.message, "code": self.code}

    @classmethod
    def from_json(cls, d: dict) -> "TraceError":
        code = str(d.get("code") or "forward_failed")
        return cls(str(d["error"]), True, code if code in REASON_CODES else "forward_failed")
