"""The normalised op DAG that fingerprints are computed from (built by :mod:`.graph`, rewritten by :mod:`.algebra`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

# Leaves and the sink: not operations (excluded from op counts and op multisets).
NON_OPS = frozenset({"input", "param", "const", "output"})
POWER_NAMES = {-1.0: "reciprocal", 0.5: "sqrt", -0.5: "rsqrt", 2.0: "square"}


@dataclass
class OpGraph:
    """Node labels, each node's inputs (ordered, or an unordered multiset for commutative ops), a transpose mark
    per input edge, and a value per node (a constant's value, a power's exponent; ``None`` elsewhere)."""

    labels: list[str] = field(default_factory=list)
    inputs: list[list[int]] = field(default_factory=list)
    ordered: list[bool] = field(default_factory=list)
    permuted: list[list[bool]] = field(default_factory=list)
    values: list[Optional[float]] = field(default_factory=list)

    def add(self, label: str, inputs: list, ordered: bool = True, value: Optional[float] = None) -> int:
        """``inputs``: node indices, or (index, permuted) pairs."""
        pairs = [i if isinstance(i, tuple) else (i, False) for i in inputs]
        self.labels.append(label)
        self.inputs.append([i for i, _ in pairs])
        self.permuted.append([bool(p) for _, p in pairs])
        self.ordered.append(ordered)
        self.values.append(value)
        return len(self.labels) - 1

    def label_text(self, node: int) -> str:
        """The label a fingerprint sees: a power is named by its exponent (``square``, ``rsqrt``, ``pow[3]``);
        a constant is ``const`` whatever its value."""
        label = self.labels[node]
        if label == "pow" and self.values[node] is not None:
            e = self.values[node]
            return POWER_NAMES.get(e, f"pow[{e:g}]")
        return label

    def consumers(self) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in self.labels]
        for node, ins in enumerate(self.inputs):
            for i in ins:
                out[i].append(node)
        return out

    def op_counts(self) -> dict[str, int]:
        """The multiset of operation labels (leaves and the output excluded)."""
        counts: dict[str, int] = {}
        for n in range(len(self.labels)):
            if self.labels[n] not in NON_OPS:
                text = self.label_text(n)
                counts[text] = counts.get(text, 0) + 1
        return dict(sorted(counts.items()))

    def same_as(self, other: "OpGraph") -> bool:
        return (self.labels == other.labels and self.inputs == other.inputs and self.permuted == other.permuted
                and self.values == other.values)

    def without_dead(self, output: int) -> tuple["OpGraph", int]:
        """Only the nodes ``output`` depends on (unused parameters, discarded intermediates go), in order."""
        live, stack = set(), [output]
        while stack:
            n = stack.pop()
            if n in live:
                continue
            live.add(n)
            stack.extend(self.inputs[n])
        order = sorted(live)
        new_index = {old: new for new, old in enumerate(order)}
        kept = OpGraph()
        for old in order:
            kept.add(self.labels[old], [(new_index[i], p) for i, p in zip(self.inputs[old], self.permuted[old])],
                     self.ordered[old], self.values[old])
        return kept, new_index[output]
