"""The build: Sources -> ledger -> steps (records, row checks, licenses, Arrow, fingerprints) -> dedup -> parquet -> card.

Two passes, because which row of a duplicate cluster survives is decided by priority
(correct > unknown > incorrect, then speedup, then id; see :mod:`kvdata.dedup`), which
needs every candidate of a config first:

1. **Stream.** Each Source is read in chunks of ``BuildConfig.batch_size`` items. A chunk
   goes through :func:`process_chunk`, which runs the build's list of steps (:class:`Step`) in
   order (:func:`default_steps`)::

       ToRecords -> CheckRows -> FilterLicenses -> ToArrow -> Fingerprint

   Each step has a ``name`` (its key in the step timings) and returns one *decision* per
   record still in the batch (or None, keeping them all): None keeps the record,
   ``(reason, message)`` drops it, and a dropped record becomes exactly one Reject with that
   reason; :func:`process_chunk` checks that every item is one row or one reject. What is left is an Arrow table
   of the surviving rows and their digests, MinHash signatures and priorities (a
   :class:`~kvdata.dedup.CandidateBlock`). The main process appends the table to its
   config's spill file (Arrow IPC, on disk in ``DIR/.build-spill/``) and the block to the
   config's :class:`~kvdata.dedup.Candidates`; memory holds ~1.1 kB per kernel row, not the code.
2. **Decide and write.** Per config, :func:`kvdata.dedup.decide` walks the candidates in
   priority order; the spill is then streamed through the keep mask into zstd shards
   (``kvdata.hub.ConfigWriter``) in arrival order, and the ledger gets the duplicates.

Where the chunks are processed is the executor's business (:mod:`kvdata.build_executor`):
in-process for ``BuildConfig.workers`` = 0, else N forked workers while the main process
reads ahead. Results are absorbed strictly in order, so the output does not depend on N.
When the executor ships tasks to other processes and a Source offers ``read_units()`` /
``unit_to_item(unit)`` (with ``read() == map(unit_to_item, read_units())``: the table-like
builders do), chunks carry units and the builder work - parsing and checking code, the
costliest step - is done by :class:`ToRecords` in the workers too; for any other Source the
main process runs ``read()`` and the workers do the rest. Shards of different configs are
written in parallel as well.

A Source is trusted to yield a record or a Reject per input record, but not trusted not to
crash: an exception inside ``read()`` (or ``unit_to_item``) becomes a Reject (reason
``other``, ref ``<source>:crash``, the traceback summary as message) after the items read
so far, and the build goes on with the next Source. Items of the wrong type and rows that
do not fit the config's schema are rejects too, never a crash of the build.
"""
from __future__ import annotations

import contextlib
import logging
import pickle
import shutil
import time
import traceback
import uuid
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence

from kvdata.build_executor import Executor, make_executor
from kvdata.buildconfig import BuildConfig
from kvdata.dedup import (CandidateBlock, Candidates, Decision, DedupSettings, FingerprintSettings, decide,
                          dedup_texts, fingerprint, priority_of)
from kvdata.ledger import Ledger
from kvdata.schema import (ALL_CONFIGS, KERNEL_CONFIGS, LANGUAGES, QA_CONFIG, Provenance, Reject, RejectReason,
                           Verification, record_class)

log = logging.getLogger(__name__)

SPILL_DIR = ".build-spill"


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
    table: Any                      # pyarrow.Table of the candidate rows (aligned with ``block``)
    crashed: bool = False
    seconds: dict[str, float] = field(default_factory=dict)


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

    Pure but for per-process caches: runs in the main process or in a worker. Every item of
    the chunk is accounted for - a candidate row or one reject - and that is checked here, so
    a step that loses records fails loudly instead of unbalancing the ledger.
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
    return ChunkResult(n_items=n_items, rejects=batch.rejects, block=batch.block, table=batch.table,
                       crashed=batch.crash is not None, seconds=dict(times.seconds))


# ----------------------------------------------------------------- writing
def row_of(record: Any) -> dict[str, Any]:
    """``record.to_row()`` without ``dataclasses.asdict``'s deep copies (4x faster on the hot path).

    Records are flat dataclasses whose only nested values are the Provenance / Verification
    dataclasses, so a shallow copy of each gives the same dict.
    """
    row = dict(vars(record))
    for key in ("provenance", "verification"):
        value = row.get(key)
        if value is not None and hasattr(value, "__dataclass_fields__"):
            row[key] = dict(vars(value))
    return row



_NESTED = ("provenance", "verification")


def columns_table(records: list[Any], config: str):
    """The Arrow table of ``records`` built column by column (twice as fast as from row dicts;
    ``test_columns_table_equals_rows_to_table`` holds it to the same result)."""
    import pyarrow as pa

    from kvdata.schema import arrow_schema

    schema = arrow_schema(config)
    columns = []
    for f in schema:
        if f.name in _NESTED:
            values = [None if v is None else (dict(vars(v)) if hasattr(v, "__dataclass_fields__") else v)
                      for v in (getattr(r, f.name, None) for r in records)]
        else:
            values = [getattr(r, f.name, None) for r in records]
        columns.append(pa.array(values, type=f.type))
    return pa.Table.from_arrays(columns, schema=schema)


def rows_table(records: list[Any], config: str):
    """(Arrow table of the records in the config's schema, one decision per record).

    One bad row must not cost the batch: when the batch does not convert, each row is
    tried alone and the ones that do not fit are dropped with the reason."""
    from kvdata.hub import rows_to_table

    try:
        return columns_table(records, config), [None] * len(records)
    except Exception:
        rows = [row_of(r) for r in records]
        decisions: list[Decision] = []
        good = []
        for row in rows:
            try:
                rows_to_table([row], config)
                good.append(row)
                decisions.append(None)
            except Exception as exc:
                decisions.append((RejectReason.OTHER, f"row does not fit the {config} schema: {exc}"))
        return rows_to_table(good, config), decisions


# ----------------------------------------------------------------- the spill of one config
class Spill:
    """The candidate rows of one config, appended in arrival order to an Arrow IPC file."""

    def __init__(self, folder: Path, config: str) -> None:
        from kvdata.schema import arrow_schema

        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{config}.arrow"
        self.schema = arrow_schema(config)
        self.rows = 0
        self._writer = None

    def append(self, table) -> None:
        import pyarrow as pa

        if self._writer is None:
            self._writer = pa.ipc.new_file(str(self.path), self.schema)
        self._writer.write_table(table)
        self.rows += table.num_rows

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def write_config(out_dir: Path, config: str, spill_path: Optional[Path], keep, rows_per_shard: int
                 ) -> tuple[int, list[Path], float]:
    """Stream a config's spill through its keep mask into shards; (rows, shards, seconds).

    Runs in a worker when the build has some: configs are written in parallel."""
    import pyarrow as pa

    from kvdata.hub import ConfigWriter

    times = StepTimes()
    with times.timed("write"):
        writer = ConfigWriter(out_dir, config, rows_per_shard)
        if spill_path is not None and spill_path.exists():
            with pa.memory_map(str(spill_path)) as source:
                reader = pa.ipc.open_file(source)
                start = 0
                pending = []
                for b in range(reader.num_record_batches):
                    batch = reader.get_batch(b)
                    mask = keep[start:start + batch.num_rows]
                    start += batch.num_rows
                    if mask.all():
                        pending.append(batch)
                    elif mask.any():
                        pending.append(batch.filter(pa.array(mask)))
                    if sum(p.num_rows for p in pending) >= writer.row_group_size:
                        writer.write(pa.Table.from_batches(pending))
                        pending = []
                if pending:
                    writer.write(pa.Table.from_batches(pending))
        shards = writer.close()
    return writer.rows, shards, times.seconds["write"]


# ----------------------------------------------------------------- the build
@dataclass
class BuildResult:
    out_dir: Path
    accounting: dict[str, Any]
    rows: dict[str, int]                 # config -> rows written
    shards: dict[str, list[Path]]
    step_seconds: dict[str, float]


def make_source(spec) -> Any:
    from kvdata.builders import source_class

    return source_class(spec.kind)(spec.path, **dict(spec.options))


def splits_into_units(source: Any) -> bool:
    """Whether the Source's builder work can run in workers: it offers ``read_units`` /
    ``unit_to_item`` and can be sent to another process."""
    if not (callable(getattr(source, "read_units", None)) and callable(getattr(source, "unit_to_item", None))):
        return False
    try:
        pickle.dumps(source)
        return True
    except Exception:
        return False


def _take(it: Iterator[Any], size: int) -> tuple[list[Any], Optional[Exception], bool]:
    """Up to ``size`` items of ``it``: (items, the exception it raised or None, whether it is exhausted)."""
    items: list[Any] = []
    try:
        for _ in range(size):
            items.append(next(it))
    except StopIteration:
        return items, None, True
    except Exception as exc:  # a builder bug: the caller files it after the items read so far
        return items, exc, True
    return items, None, False


class Pipeline:
    """Runs a BuildConfig into ``out_dir``; see the module docstring for the two passes.

    ``steps`` replaces :func:`default_steps` (``ToRecords`` first, ``ToArrow`` then
    ``Fingerprint`` last, filters in between); where they run is chosen by ``cfg.workers``
    (:func:`kvdata.build_executor.make_executor`).
    """

    def __init__(self, cfg: BuildConfig, out_dir: str | Path, progress: bool = True,
                 steps: Optional[Sequence[Step]] = None) -> None:
        self.cfg = cfg
        self.out_dir = Path(out_dir)
        self.progress = progress
        self.times = StepTimes()
        self.steps = tuple(steps) if steps is not None else default_steps(cfg)
        self.dedup_settings = DedupSettings(cfg.dedup, cfg.near_dup_threshold, cfg.num_perm)

    # ------------------------------------------------------------- reading
    def _made_sources(self) -> Iterator[tuple[Any, Optional[Chunk]]]:
        """(Source, None) for each configured Source, or (None, crash chunk) for one that cannot be made."""
        for spec in self.cfg.sources:
            try:
                yield make_source(spec), None
            except Exception as exc:  # bad options, a broken builder module: one reject, build goes on
                config = _config_of_kind(spec.kind)
                log.error("source %s could not be created: %s", spec.kind, exc)
                yield None, Chunk(-1, spec.kind, config, 1, [], crash=crash_reject(spec.kind, config, exc, 0))

    def _chunks(self, sources: Optional[Iterable[Any]], ledger: Ledger, executor: Executor,
                stopped: set[int]) -> Iterator[Chunk]:
        """Every Source's items (or units, when the executor ships tasks) in chunks, in build order.

        Reading a Source stops at its crash, and at a crash found in a worker: the consumer adds
        the Source to ``stopped`` while this generator waits at a ``yield``, so it is checked
        once per chunk."""
        from tqdm.auto import tqdm

        made = self._made_sources() if sources is None else ((s, None) for s in sources)
        size = executor.chunk_size(self.cfg.batch_size)
        build_id = uuid.uuid4().hex
        for source_no, (source, failed) in enumerate(made):
            if failed is not None:
                ledger.open_source(failed.name, failed.name, failed.config, "")
                yield replace(failed, source_no=source_no)
                continue
            name, config = source.name, source.config
            ledger.open_source(name, source.kind, config, source.path)
            units = executor.ships_tasks and splits_into_units(source)
            bar = tqdm(desc=name, unit=" rec", disable=not self.progress, leave=False)
            n, items, exc = 0, [], None
            try:
                with self.times.timed("read"):
                    try:
                        it = iter(source.read_units() if units else source.read())
                    except Exception as e:  # read() itself raised (not a generator): a crash before any item
                        it, exc = iter(()), e
                done = exc is not None
                while not done and source_no not in stopped:
                    with self.times.timed("read"):
                        items, exc, done = _take(it, size)
                    n += len(items)
                    bar.update(len(items))
                    if exc is None and items:
                        yield Chunk(source_no, name, config, n - len(items) + 1, items,
                                    source=source if units else None, build_id=build_id)
                if exc is not None:  # a builder bug: what was read counts, go on with the next Source
                    log.error("source %s crashed after %d records: %s", name, n, exc)
                    yield Chunk(source_no, name, config, n - len(items) + 1, items,
                                source=source if units else None, crash=crash_reject(name, config, exc, n),
                                build_id=build_id)
            finally:
                bar.close()
                ledger.set_origin(name, _origin_of(source))

    # ------------------------------------------------------------- pass 1
    def _absorb(self, chunk: Chunk, result: ChunkResult, ledger: Ledger, candidates: dict[str, Candidates],
                spills: dict[str, Spill], stopped: set[int]) -> None:
        if chunk.source_no in stopped:     # read ahead of a crash of its Source: never happened
            return
        if result.crashed:
            stopped.add(chunk.source_no)
        self.times.merge(result.seconds)
        ledger.count_input(chunk.name, result.n_items)
        for reject in result.rejects:
            ledger.reject(reject)
        if result.block is not None and len(result.block):
            with self.times.timed("spill"):
                cands = candidates.get(chunk.config)
                if cands is None:
                    cands = candidates[chunk.config] = Candidates(chunk.config)
                    spills[chunk.config] = Spill(self.out_dir / SPILL_DIR, chunk.config)
                cands.add(result.block)
                spills[chunk.config].append(result.table)

    # ------------------------------------------------------------- pass 2
    def _decide(self, candidates: dict[str, Candidates], ledger: Ledger) -> dict[str, Any]:
        """Keep masks per config; duplicates go to the ledger, kept rows are counted per source."""
        import numpy as np

        masks = {}
        kept_ids: set[str] = set()
        for config in _config_order(candidates):
            cands = candidates[config]
            with self.times.timed("dedup"):
                decisions = decide(cands, self.dedup_settings, kept_ids)
            keep = np.fromiter((d is None for d in decisions), dtype=bool, count=len(decisions))
            kept_per_source: dict[str, int] = defaultdict(int)
            for i, decision in enumerate(decisions):
                if decision is None:
                    kept_per_source[cands.sources[i]] += 1
                else:
                    ledger.reject(Reject(source=cands.sources[i], ref=cands.refs[i], reason=decision[0],
                                         message=decision[1], config=config, id=cands.ids[i]))
            for source, n in kept_per_source.items():
                ledger.count_kept(source, n)
            masks[config] = keep
        return masks

    def _write(self, masks: dict[str, Any], spills: dict[str, Spill], executor: Executor
               ) -> tuple[dict[str, int], dict]:
        configs = _config_order(masks)
        jobs = [(self.out_dir, config, spills[config].path, masks[config], self.cfg.rows_per_shard)
                for config in configs]
        done = dict(zip(configs, executor.run_each(write_config, jobs)))
        for _, _, seconds in done.values():
            self.times.add("write", seconds)
        return {c: d[0] for c, d in done.items()}, {c: d[1] for c, d in done.items()}

    # ------------------------------------------------------------- run
    def run(self, sources: Optional[Iterable[Any]] = None) -> BuildResult:
        """Build from ``sources`` (Source instances) or, by default, from the config's source specs."""
        from kvdata.hub import clear_outputs

        clear_outputs(self.out_dir)
        spill_dir = self.out_dir / SPILL_DIR
        shutil.rmtree(spill_dir, ignore_errors=True)
        ledger = Ledger(self.out_dir)
        candidates: dict[str, Candidates] = {}
        spills: dict[str, Spill] = {}
        stopped: set[int] = set()
        executor = make_executor(self.cfg.workers)
        try:
            chunks = self._chunks(sources, ledger, executor, stopped)
            for chunk, result in executor.imap(process_chunk, chunks, self.steps, times=self.times):
                self._absorb(chunk, result, ledger, candidates, spills, stopped)
                del chunk, result       # absorbed: do not hold its rows while the next chunk is read
            for spill in spills.values():
                spill.close()
            masks = self._decide(candidates, ledger)
            candidates.clear()
            rows, shards = self._write(masks, spills, executor)
        finally:
            executor.close()
            for spill in spills.values():
                spill.close()
            shutil.rmtree(spill_dir, ignore_errors=True)
        with self.times.timed("write"):
            accounting = ledger.close(self.cfg.settings())
        from kvdata.card import write_card

        with self.times.timed("card"):
            write_card(self.out_dir)
        return BuildResult(self.out_dir, accounting, rows, shards, self.times.as_dict())


def _origin_of(source: Any):
    """The Source's repo/commit/tree license for the card (``Source.origin()``), None when it has none.

    Asked after the Source was read, in the main process, where its tree license and revision
    were resolved; a Source that cannot say costs the card a line, never the build."""
    origin = getattr(source, "origin", None)
    if not callable(origin):
        return None
    try:
        return origin()
    except Exception as exc:  # noqa: BLE001
        log.warning("source %s: no origin for the card: %s", getattr(source, "name", "?"), exc)
        return None


def _config_order(by_config: dict[str, Any]) -> list[str]:
    """Schema order, then any other config name sorted: decisions (and corpus-wide unique ids) follow it."""
    return [c for c in ALL_CONFIGS if c in by_config] + sorted(c for c in by_config if c not in ALL_CONFIGS)


def _config_of_kind(kind: str) -> str:
    try:
        from kvdata.builders import source_class

        return source_class(kind).config
    except Exception:
        return "?"


def build(cfg: BuildConfig, out_dir: str | Path, progress: bool = True,
          sources: Optional[Iterable[Any]] = None) -> BuildResult:
    """Build the corpus described by ``cfg`` (or made of ``sources``) into ``out_dir``."""
    return Pipeline(cfg, out_dir, progress).run(sources)
