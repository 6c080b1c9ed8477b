"""The build's per-chunk work: a chunk of one Source's items goes through a list of steps.

``ToRecords -> CheckRows -> FilterLicenses -> ToArrow -> Fingerprint`` (:func:`default_steps`);
each step has a name and decides per record (keep, or drop with a reason), and
:func:`process_chunk` turns every dropped record into exactly one Reject. Pure but for
per-process caches: a chunk is processed in the main process or in a worker
(:mod:`kvdata.build_executor`); :mod:`kvdata.pipeline` streams the results into the ledger, the
spill and dedup.
"""
from __future__ import annotations

import contextlib
import logging
import time
import traceback
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

from kvdata.build_output import SpillPart, rows_table, write_spill_part
from kvdata.buildconfig import BuildConfig
from kvdata.dedup import CandidateBlock, Decision, FingerprintSettings, dedup_texts, fingerprint, priority_of
from kvdata.schema import (KERNEL_CONFIGS, LANGUAGES, QA_CONFIG, Provenance, Reject, RejectReason,
                           Verification, record_class)

log = logging.getLogger(__name__)


# ----------------------------------------------------------------- timing
@dataclass
class StepTimes:
    """Seconds spent in each step, for the benchmark. Steps run inside worker processes add
    their workers' seconds (CPU-like time, may exceed the wall time)."""

    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    @contextlib.contextmanager
    def timed(self, step: str) -> Iterator[None]:
        """Add the wall time of the ``with`` block to ``step`` (also when the block raises)."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[step] += time.perf_counter() - t0

    def add(self, step: str, dt: float) -> None:
        self.seconds[step] += dt

    def merge(self, other: dict[str, float]) -> None:
        for k, v in other.items():
            self.seconds[k] += v

    def as_dict(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in self.seconds.items()}


# ----------------------------------------------------------------- rejects
def record_ref(record: Any, source: str, ordinal: Optional[int] = None) -> str:
    """A locator for a row dropped after reading: ``<source>#<n>`` (the n-th item the Source
    yielded, 1-based, which for one JSONL file is its line) and its upstream path when known."""
    prov = getattr(record, "provenance", None)
    path = getattr(prov, "path", None) if prov is not None else None
    where = f"{source}#{ordinal}" if ordinal is not None else source
    return f"{where} ({path})" if path else where


def crash_reject(name: str, config: str, exc: BaseException, n_read: int) -> Reject:
    """The reject that stands for a Source that raised: type, message and the innermost frames."""
    frames = traceback.extract_tb(exc.__traceback__)[-3:]
    where = " <- ".join(f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in reversed(frames))
    summary = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return Reject(source=name, ref=f"{name}:crash", reason=RejectReason.OTHER, config=config,
                  message=f"source raised after {n_read} records: {summary} (at {where})")


def as_reject(item: Any, name: str, config: str, ordinal: int) -> Reject:
    """A builder's Reject, filed under this Source; anything else it yields is an OTHER reject."""
    if isinstance(item, Reject):
        try:
            reason = RejectReason(item.reason)
            message = item.message
        except ValueError:
            reason, message = RejectReason.OTHER, f"unknown reason {item.reason!r}: {item.message}"
        return replace(item, source=name, reason=reason, message=str(message or ""),
                       ref=str(item.ref or f"{name}#{ordinal}"), config=item.config or config)
    return Reject(source=name, ref=record_ref(item, name, ordinal), reason=RejectReason.OTHER, config=config,
                  id=getattr(item, "id", None),
                  message=f"builder yielded a {type(item).__name__}, expected {record_class(config).__name__}")


# ----------------------------------------------------------------- a chunk and its batch
@dataclass
class Chunk:
    """Consecutive items of one Source (or the units they are made from), with their position."""

    source_no: int                  # position of the Source in the build
    name: str
    config: str
    first_ordinal: int              # 1-based ordinal of the first item in its Source
    items: list[Any]                # items, or units when ``source`` is set
    source: Any = None              # the Source whose ``unit_to_item`` makes the items
    crash: Optional[Reject] = None  # the Source raised while this chunk was read (after ``items``)
    build_id: Optional[str] = None  # the build it belongs to: a worker keeps one copy of ``source`` per build
    spill_path: Optional[Path] = None   # where its candidate rows go (a SpillPart); None: returned as a table


@dataclass
class Batch:
    """A chunk on its way through the steps: the records still in, and what the steps made of them.

    ``records`` and ``ordinals`` (each record's 1-based position in its Source) stay aligned;
    :meth:`drop` is the only way records leave, and each one that leaves becomes a Reject.
    """

    chunk: Chunk
    records: list[Any] = field(default_factory=list)
    ordinals: list[int] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    n_items: int = 0                            # items the chunk stands for (set by ToRecords), a crash not included
    crash: Optional[Reject] = None              # the Source's crash, filed after every other reject of the chunk
    table: Any = None                           # pyarrow.Table of the records (set by ToArrow)
    block: Optional[CandidateBlock] = None      # their fingerprints and priorities (set by Fingerprint)

    def __post_init__(self) -> None:
        self.n_items = len(self.chunk.items)
        self.crash = self.chunk.crash

    @property
    def config(self) -> str:
        return self.chunk.config

    def drop(self, decisions: list[Decision], step: str) -> None:
        """Keep the records whose decision is None; every other one becomes a Reject with the
        decision's (reason, message)."""
        if len(decisions) != len(self.records):     # a zip would silently lose records: never let it
            raise ValueError(f"step {step} gave {len(decisions)} decisions for {len(self.records)} records")
        if all(d is None for d in decisions):
            return
        chunk = self.chunk
        kept, kept_ordinals = [], []
        for record, ordinal, decision in zip(self.records, self.ordinals, decisions):
            if decision is None:
                kept.append(record)
                kept_ordinals.append(ordinal)
            else:
                reason, message = decision
                self.rejects.append(Reject(source=chunk.name, ref=record_ref(record, chunk.name, ordinal),
                                           reason=reason, message=message, config=chunk.config,
                                           id=getattr(record, "id", None)))
        self.records, self.ordinals = kept, kept_ordinals


@dataclass
class ChunkResult:
    n_items: int                    # items this chunk accounts for (its input), a crash included
    rejects: list[Reject]
    block: Optional[CandidateBlock]
    table: Any                      # pyarrow.Table of the candidate rows (aligned with ``block``), unless spilled
    crashed: bool = False
    seconds: dict[str, float] = field(default_factory=dict)
    spilled: Optional[SpillPart] = None     # the candidate rows, written to the chunk's ``spill_path``


# ----------------------------------------------------------------- the steps
class Step:
    """One stage of :func:`process_chunk`.

    ``apply(batch)`` does the stage's work and returns one :data:`~kvdata.dedup.Decision` per
    record of ``batch.records`` (None keeps it, ``(reason, message)`` drops it), or None when
    it drops nothing. A step may also set what it makes on the batch (``ToArrow`` the table,
    ``Fingerprint`` the block). ``name`` is the step's key in the build's step timings.

    Steps are sent to the workers with every chunk, so they must pickle; a step may keep a
    cache, which then lives for the chunk in a worker and for the build in-process.
    """

    name = "step"

    def apply(self, batch: Batch) -> Optional[list[Decision]]:
        raise NotImplementedError


class RecordFilter(Step):
    """A step that only judges records: ``decide(config, records) -> list[Decision]``, one per record."""

    def decide(self, config: str, records: list[Any]) -> list[Decision]:
        raise NotImplementedError

    def apply(self, batch: Batch) -> list[Decision]:
        return self.decide(batch.config, batch.records)


#: per process: (build_id, source_no) -> the Source that makes a chunk's items. A Source reaches a worker anew
#: (pickled) with every chunk; keeping the first copy keeps its caches (memoised checks) for the whole build.
_WORKER_SOURCES: dict[tuple[str, int], Any] = {}


def _source_of(chunk: Chunk) -> Any:
    if chunk.build_id is None:
        return chunk.source
    key = (chunk.build_id, chunk.source_no)
    source = _WORKER_SOURCES.get(key)
    if source is None:
        if any(k[0] != chunk.build_id for k in _WORKER_SOURCES):
            _WORKER_SOURCES.clear()          # another build's Sources: never used again
        source = _WORKER_SOURCES[key] = chunk.source
    return source


class ToRecords(Step):
    """The chunk's items -> ``batch.records``: units are made into items by their Source
    (``unit_to_item``, in the worker), and an item that is not a record of the config (a
    builder's Reject, or anything else) goes to ``batch.rejects`` as is (:func:`as_reject`).

    It must come first: the other steps see only ``batch.records``. A crash of
    ``unit_to_item`` stops the chunk there: the items made so far count, the crash is one
    reject, and the Source is read no further (the pipeline discards chunks read ahead).
    """

    name = "to_records"

    def apply(self, batch: Batch) -> None:
        chunk = batch.chunk
        items = chunk.items
        if chunk.source is not None:
            items = self.make_items(chunk, batch)
        batch.n_items = len(items)
        expected = record_class(chunk.config)
        for k, item in enumerate(items):
            ordinal = chunk.first_ordinal + k
            if isinstance(item, expected):
                batch.records.append(item)
                batch.ordinals.append(ordinal)
            else:
                batch.rejects.append(as_reject(item, chunk.name, chunk.config, ordinal))
        return None

    @staticmethod
    def make_items(chunk: Chunk, batch: Batch) -> list[Any]:
        source = _source_of(chunk)
        items = []
        for unit in chunk.items:
            try:
                items.append(source.unit_to_item(unit))
            except Exception as exc:  # a builder bug: what was made so far counts, the Source stops here
                batch.crash = crash_reject(chunk.name, chunk.config, exc, chunk.first_ordinal - 1 + len(items))
                log.error("source %s crashed: %s", chunk.name, exc)
                break
        return items


# ----------------------------------------------------------------- the row checks and the license filter
_KERNEL_REQUIRED = ("id", "subset", "source", "language", "task_name", "kernel_code", "license")
_KERNEL_OPTIONAL = ("variant", "pytorch_code", "pytorch_functional_code", "baseline_kernel_code")
_QA_REQUIRED = ("id", "subset", "library", "kind", "question", "answer", "symbol", "license")


class CheckRows(RecordFilter):
    """Drops records that would not make a valid row: missing/empty required fields, wrong types.

    Builders check their input; this is the pipeline's guard that a row it writes fits the
    schema, so a builder bug costs one reject instead of a failed parquet write.
    """

    name = "check_rows"

    def decide(self, config: str, records: list[Any]) -> list[Decision]:
        required = _QA_REQUIRED if config == QA_CONFIG else _KERNEL_REQUIRED
        optional = () if config == QA_CONFIG else _KERNEL_OPTIONAL
        return [self.problem(r, config, required, optional) for r in records]

    @staticmethod
    def problem(record: Any, config: str, required: tuple[str, ...], optional: tuple[str, ...]) -> Decision:
        for name in required:
            value = getattr(record, name, None)
            if not isinstance(value, str):
                reason = RejectReason.MISSING_LICENSE if name == "license" and value is None else RejectReason.MISSING_FIELD
                return reason, f"{name} is {type(value).__name__}, not a string"
            if not value.strip():
                if name == "license":
                    return RejectReason.MISSING_LICENSE, "license is empty"
                if name.endswith("_code"):
                    return RejectReason.EMPTY_CODE, f"{name} is empty"
                return RejectReason.MISSING_FIELD, f"{name} is empty"
        for name in optional:
            value = getattr(record, name, None)
            if value is not None and not isinstance(value, str):
                return RejectReason.MISSING_FIELD, f"{name} is {type(value).__name__}, not a string or null"
        if not isinstance(getattr(record, "provenance", None), Provenance):
            return RejectReason.MISSING_FIELD, "provenance is missing"
        if config in KERNEL_CONFIGS:
            if record.language not in LANGUAGES:
                return RejectReason.MISSING_FIELD, f"language {record.language!r} is not one of {LANGUAGES}"
            ver = record.verification
            if ver is not None and not isinstance(ver, Verification):
                return RejectReason.MISSING_FIELD, f"verification is {type(ver).__name__}"
        return None


class FilterLicenses(RecordFilter):
    """Drops rows whose SPDX expression the build's allow-list does not accept, and records on
    the rows it keeps which alternative of an ``OR`` it relied on (``license_relied_on``).

    A thin wrapper: the rules are :func:`kvdata.licenses.evaluate_allow`'s (``A AND B`` needs
    both, ``A OR B`` one); this only caches the decision per distinct expression (a build has a
    handful), so changing what is allowed means changing ``kvdata.licenses``.
    """

    name = "licenses"

    def __init__(self, allow: frozenset[str]) -> None:
        from kvdata.licenses import allow_set, evaluate_allow

        self.allow = allow
        self._keys = allow_set(allow)
        self._evaluate = evaluate_allow
        self._cache: dict[str, Any] = {}

    def decision_of(self, license: str):
        """The :class:`~kvdata.licenses.AllowDecision` for one expression (cached)."""
        if license not in self._cache:
            self._cache[license] = self._evaluate(license, self._keys)
        return self._cache[license]

    def decide(self, config: str, records: list[Any]) -> list[Decision]:
        out = []
        for record in records:
            decision = self.decision_of(record.license)
            if decision.allowed and " OR " in record.license:
                record.license_relied_on = decision.relied_on
            out.append(decision.problem)
        return out


class ToArrow(Step):
    """``batch.table``: the Arrow table of the records in the config's schema (:func:`rows_table`);
    a record that does not fit the schema is dropped (reason ``other``) instead of failing the
    chunk's table, and later the parquet write."""

    name = "to_arrow"

    def apply(self, batch: Batch) -> list[Decision]:
        batch.table, decisions = rows_table(batch.records, batch.config)
        return decisions


class Fingerprint(Step):
    """``batch.block``: what dedup needs of the surviving records - ids, refs, priorities and, when
    the build deduplicates (``settings`` not None), digests and MinHash signatures. It drops
    nothing: dedup decides only when every candidate of the config is known (pass 2)."""

    name = "fingerprint"

    def __init__(self, settings: Optional[FingerprintSettings]) -> None:
        self.settings = settings

    def apply(self, batch: Batch) -> None:
        records, name, config = batch.records, batch.chunk.name, batch.config
        if not records:
            return None
        fingerprints = None
        if self.settings is not None:
            fingerprints = fingerprint(config, *dedup_texts(config, records), self.settings)
        priorities = [priority_of(r) for r in records]
        batch.block = CandidateBlock(
            source=name, ids=[r.id for r in records],
            refs=[record_ref(r, name, o) for r, o in zip(records, batch.ordinals)],
            ranks=[p[0] for p in priorities], speedups=[p[1] for p in priorities], fingerprints=fingerprints)
        return None


def default_steps(cfg: BuildConfig) -> tuple[Step, ...]:
    """The build's steps, in order: records, row checks, license allow-list, Arrow table, fingerprints."""
    fp = FingerprintSettings(cfg.num_perm, cfg.shingle) if cfg.dedup else None
    return (ToRecords(), CheckRows(), FilterLicenses(cfg.allow_list()), ToArrow(), Fingerprint(fp))


# ----------------------------------------------------------------- pass 1: one chunk of one Source
def process_chunk(chunk: Chunk, steps: Sequence[Step]) -> ChunkResult:
    """Pass 1 for one chunk: run ``steps`` in order -> rejects and candidate rows (table, fingerprints, priority).

    Pure but for per-process caches and the chunk's spill part: runs in the main process or in a
    worker; with a ``spill_path`` the candidate rows are written there (only the path goes back to
    the main process), else returned as ``table``. Every item of the chunk is accounted for - a
    candidate row or one reject - and that is checked here, so a step that loses records fails
    loudly instead of unbalancing the ledger.
    """
    times = StepTimes()
    batch = Batch(chunk)
    for step in steps:
        with times.timed(step.name):
            decisions = step.apply(batch)
            if decisions is not None:
                batch.drop(decisions, step.name)
    if batch.crash is not None:
        batch.rejects.append(batch.crash)
    n_items = batch.n_items + (batch.crash is not None)
    if len(batch.records) + len(batch.rejects) != n_items:
        raise RuntimeError(f"chunk of {chunk.name} at #{chunk.first_ordinal}: {n_items} items but "
                           f"{len(batch.records)} rows + {len(batch.rejects)} rejects: a step dropped records without "
                           "rejects, or ToRecords is not the first step")
    rows = len(batch.records)
    table_rows = batch.table.num_rows if batch.table is not None else 0
    if table_rows != rows or (len(batch.block) if batch.block is not None else 0) != rows:
        raise RuntimeError(f"steps {[s.name for s in steps]} left {len(batch.records)} rows whose table or "
                           "fingerprints do not match them (ToArrow and Fingerprint must come last, in that order)")
    table, spilled = batch.table, None
    if chunk.spill_path is not None and rows:
        with times.timed("spill"):
            spilled = write_spill_part(table, chunk.spill_path)
        table = None
    return ChunkResult(n_items=n_items, rejects=batch.rejects, block=batch.block, table=table,
                       crashed=batch.crash is not None, seconds=dict(times.seconds), spilled=spilled)
