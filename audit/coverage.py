"""What each measure could see of each row: traced or not, probed or not, and a reason code when not.

A row the structural tracer cannot trace, or a pair the behavioural prober cannot run, is a gap in the audit's
evidence; so is a long document the embedder saw only part of (``embed_reason = sampled``: its vector comes from
``embed_windows`` of the ``embed_windows_needed`` windows, evenly spread). A silent gap reads as "clean", so every such row gets a reason code here (the tracer's and the
prober's own codes, for example ``no_torch_reference``, ``no_inputs``, ``timeout``), and the report gives the
traced and probed coverage of each side with the counts per reason.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Optional

__all__ = ["RowCoverage", "CoverageTable"]


@dataclass
class RowCoverage:
    """One row of either side. ``traced``/``probed`` are None when that measure did not run."""

    side: str                         # "bench" or "train"
    id: str
    traced: Optional[bool] = None
    trace_reason: str = ""
    probed: Optional[bool] = None     # at least one of its candidate pairs was run by the prober
    probe_reason: str = ""            # why none was, when it had candidates
    n_kernels: Optional[int] = None   # Triton kernels found (kernel measure)
    embed_windows: Optional[int] = None         # semantic: windows embedded (None: semantic did not run)
    embed_windows_needed: Optional[int] = None  # windows the whole text needs
    embed_reason: str = ""                      # "sampled": fewer embedded than needed (a long document)

    def to_row(self) -> dict:
        return {"side": self.side, "id": self.id, "traced": self.traced, "trace_reason": self.trace_reason,
                "probed": self.probed, "probe_reason": self.probe_reason, "n_kernels": self.n_kernels,
                "embed_windows": self.embed_windows, "embed_windows_needed": self.embed_windows_needed,
                "embed_reason": self.embed_reason}


@dataclass
class CoverageTable:
    """Coverage rows of both sides, by (side, id)."""

    rows: dict[tuple[str, str], RowCoverage] = field(default_factory=dict)

    def add_side(self, side: str, ids: Iterable[str]) -> None:
        for i in ids:
            self.rows.setdefault((side, i), RowCoverage(side, i))

    def get(self, side: str, row_id: str) -> RowCoverage:
        return self.rows.setdefault((side, row_id), RowCoverage(side, row_id))

    def side(self, side: str) -> list[RowCoverage]:
        return [r for (s, _), r in self.rows.items() if s == side]

    def summary(self) -> dict[str, dict]:
        """Per side: rows, traced, probed, rows with kernels, and the counts of each reason code."""
        out: dict[str, dict] = {}
        for side in ("bench", "train"):
            rows = self.side(side)
            out[side] = {
                "rows": len(rows),
                "traced": sum(1 for r in rows if r.traced),
                "trace_ran": any(r.traced is not None for r in rows),
                "probed": sum(1 for r in rows if r.probed),
                "probe_ran": any(r.probed is not None for r in rows),
                "with_kernels": sum(1 for r in rows if r.n_kernels),
                "embedded": sum(1 for r in rows if r.embed_windows),
                "embed_sampled": sum(1 for r in rows if r.embed_reason == "sampled"),
                "trace_reasons": dict(Counter(r.trace_reason for r in rows if r.traced is False).most_common()),
                "probe_reasons": dict(Counter(r.probe_reason for r in rows if r.probed is False
                                              and r.probe_reason).most_common()),
            }
        return out

    def to_rows(self) -> list[dict]:
        return [r.to_row() for r in self.rows.values()]
