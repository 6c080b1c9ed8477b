"""Per-source accounting: every input record is kept, rejected (by reason) or removed as a duplicate.

The ledger is the one place that counts. The pipeline tells it when a record comes in
(``count_input``), when a row is written (``count_kept``) and when anything is dropped
(``reject``); it streams the rejects to ``rejects.parquet`` in batches (so a build with
many rejects does not hold them all) and, on ``close``, writes ``accounting.json`` with
a ``reconciles`` check per source: ``input == kept + rejected + duplicates``.

Duplicates are rejects too (they go to ``rejects.parquet`` with their reason) but are
counted apart, because "removed as a duplicate of a kept row" is not a defect of the input.
"""
from __future__ import annotations

import json
import logging
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional

from kvdata.public import PathScrubber, public_path
from kvdata.schema import REJECT_SCHEMA, Reject, RejectReason

log = logging.getLogger(__name__)

ACCOUNTING_FILE = "accounting.json"
REJECTS_FILE = "rejects.parquet"
_REMOTE = re.compile(r"^([A-Za-z0-9][\w.-]*/[\w.-]+|[a-z+]+://(?!/)\S+|[\w.-]+@[\w.-]+:\S+)$")  # id, URL, scp
DUPLICATE_REASONS = frozenset({RejectReason.DUPLICATE_EXACT.value, RejectReason.DUPLICATE_NEAR.value})


@dataclass(frozen=True)
class SourceOrigin:
    """Where a Source's rows came from, for the card's per-source table.

    ``license``: the license of the tree's own code (what a row without a header of its own
    gets); ``license_full``: every notice of the tree's license files, third-party ones
    included (``kvdata.licenses.TreeLicense``); ``license_files``: the files read.
    """

    repo: Optional[str] = None
    commit: Optional[str] = None
    dirty: Optional[bool] = None
    license: Optional[str] = None
    license_full: Optional[str] = None
    license_files: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"repo": self.repo, "commit": self.commit, "dirty": self.dirty, "license": self.license,
                "license_full": self.license_full, "license_files": list(self.license_files)}


@dataclass
class SourceAccount:
    """The counts of one Source (keyed by ``Source.name``)."""

    name: str
    kind: str = ""
    config: str = ""
    path: str = ""
    input: int = 0
    kept: int = 0
    rejected: Counter = field(default_factory=Counter)     # reason -> n (duplicates excluded)
    duplicates: Counter = field(default_factory=Counter)   # duplicate_exact / duplicate_near -> n
    origin: Optional[SourceOrigin] = None

    @property
    def rejected_total(self) -> int:
        return sum(self.rejected.values())

    @property
    def duplicates_total(self) -> int:
        return sum(self.duplicates.values())

    @property
    def reconciles(self) -> bool:
        return self.input == self.kept + self.rejected_total + self.duplicates_total

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "config": self.config, "path": self.path,
            "input": self.input, "kept": self.kept,
            "rejected": dict(sorted(self.rejected.items())), "rejected_total": self.rejected_total,
            "duplicates": dict(sorted(self.duplicates.items())), "duplicates_total": self.duplicates_total,
            "reconciles": self.reconciles,
            "origin": self.origin.to_dict() if self.origin is not None else None,
        }


class _RejectSink:
    """Appends rejects to one parquet file, a batch at a time."""

    def __init__(self, path: Path, flush_every: int = 10_000) -> None:
        self.path = path
        self.flush_every = flush_every
        self._buffer: list[dict[str, Any]] = []
        self._writer = None

    def add(self, reject: Reject) -> None:
        self._buffer.append(reject.to_row())
        if len(self._buffer) >= self.flush_every:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._writer is None:
            self._writer = pq.ParquetWriter(self.path, REJECT_SCHEMA, compression="zstd")
        if self._buffer:
            self._writer.write_table(pa.Table.from_pylist(self._buffer, schema=REJECT_SCHEMA))
            self._buffer = []

    def close(self) -> None:
        self.flush()  # also creates an empty file with the schema when nothing was rejected
        self._writer.close()
        self._writer = None


class Ledger:
    """Counts per source and streams rejects to ``out_dir/rejects.parquet``."""

    def __init__(self, out_dir: str | Path, flush_every: int = 10_000) -> None:
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.accounts: dict[str, SourceAccount] = {}
        self._sink = _RejectSink(self.out_dir / REJECTS_FILE, flush_every)
        self._scrub = PathScrubber()        # the sources' paths as published (kvdata.public)

    # ----------------------------------------------------------------- recording
    def open_source(self, name: str, kind: str = "", config: str = "", path: str = "") -> SourceAccount:
        """Register a source; two Sources with the same name share one account. Its path is recorded as published
        (relative, :func:`kvdata.public.public_path`), and reject messages naming files under it likewise."""
        path = self._scrub.add(path) if path else path
        account = self.accounts.get(name)
        if account is None:
            account = self.accounts[name] = SourceAccount(name=name, kind=kind, config=config, path=path)
        elif path and path not in account.path.split(";"):
            account.path = f"{account.path};{path}" if account.path else path
        return account

    def set_origin(self, name: str, origin: Optional[SourceOrigin]) -> None:
        """Record where a Source's rows came from (its repo, commit and tree license)."""
        if origin is not None:
            if origin.repo and not _REMOTE.match(origin.repo):         # a local clone's path, not a repo id
                origin = replace(origin, repo=public_path(origin.repo))
            self._account(name).origin = origin

    def _account(self, name: str) -> SourceAccount:
        return self.accounts.get(name) or self.open_source(name)

    def count_input(self, source: str, n: int = 1) -> None:
        self._account(source).input += n

    def count_kept(self, source: str, n: int = 1) -> None:
        self._account(source).kept += n

    def reject(self, reject: Reject) -> None:
        """Record a dropped input (a reject or a duplicate) and stream it to rejects.parquet."""
        reason = RejectReason(reject.reason).value
        account = self._account(reject.source)
        if reason in DUPLICATE_REASONS:
            account.duplicates[reason] += 1
        else:
            account.rejected[reason] += 1
        self._sink.add(replace(reject, ref=self._scrub(reject.ref), message=self._scrub(reject.message)))

    # ----------------------------------------------------------------- results
    def summary(self, settings: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        """The content of accounting.json: per source, per config, totals and the reconcile checks."""
        sources = {name: acc.to_dict() for name, acc in sorted(self.accounts.items())}
        configs: dict[str, dict[str, Any]] = {}
        for acc in self.accounts.values():
            c = configs.setdefault(acc.config or "?", {"input": 0, "kept": 0, "rejected": 0, "duplicates": 0})
            c["input"] += acc.input
            c["kept"] += acc.kept
            c["rejected"] += acc.rejected_total
            c["duplicates"] += acc.duplicates_total
        totals = {k: sum(c[k] for c in configs.values()) for k in ("input", "kept", "rejected", "duplicates")}
        return {
            "sources": sources,
            "configs": dict(sorted(configs.items())),
            "totals": totals,
            "reconciles": all(acc.reconciles for acc in self.accounts.values()),
            "settings": settings or {},
        }

    def close(self, settings: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        """Finish rejects.parquet and write accounting.json; returns its content."""
        self._sink.close()
        summary = self.summary(settings)
        for name, acc in self.accounts.items():
            if not acc.reconciles:
                log.error("source %s does not reconcile: %s", name, acc.to_dict())
        (self.out_dir / ACCOUNTING_FILE).write_text(json.dumps(summary, indent=2, sort_keys=False) + "\n")
        return summary


def read_accounting(out_dir: str | Path) -> dict[str, Any]:
    """The accounting.json of a built folder."""
    return json.loads((Path(out_dir) / ACCOUNTING_FILE).read_text())
