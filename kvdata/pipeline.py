"""The build: Sources -> ledger -> row checks -> licenses -> spill + fingerprints -> dedup -> parquet -> card.

Two passes, because which row of a duplicate cluster survives is decided by priority
(correct > unknown > incorrect, then speedup, then id; see :mod:`kvdata.dedup`), which
needs every candidate of a config first:

1. **Stream.** Each Source is read in chunks of ``BuildConfig.batch_size`` items. A chunk
   goes through :func:`process_chunk`: builder items -> rejects routed / ``CheckRows`` /
   ``FilterLicenses`` -> Arrow table of the surviving rows -> digests, MinHash signatures
   and priorities (a :class:`~kvdata.dedup.CandidateBlock`). The main process appends the
   table to its config's spill file (Arrow IPC, on disk in ``DIR/.build-spill/``) and the
   block to the config's :class:`~kvdata.dedup.Candidates`; memory holds ~1.1 kB per kernel
   row, not the code.
2. **Decide and write.** Per config, :func:`kvdata.dedup.decide` walks the candidates in
   priority order; the spill is then streamed through the keep mask into zstd shards
   (``kvdata.hub.ConfigWriter``) in arrival order, and the ledger gets the duplicates.

Parallelism (``BuildConfig.workers`` = N > 0): chunks are processed by N forked worker
processes while the main process reads ahead, and results are absorbed strictly in
order, so the output does not depend on N. A Source that offers ``read_units()`` /
``unit_to_item(unit)`` (with ``read() == map(unit_to_item, read_units())``: the
table-like builders do) has its builder work - parsing and checking code, the costliest
step - done in the workers too; for any other Source the main process runs ``read()`` and
the workers do the rest. Shards of different configs are written in parallel as well.

A Source is trusted to yield a record or a Reject per input record, but not trusted not to
crash: an exception inside ``read()`` (or ``unit_to_item``) becomes a Reject (reason
``other``, ref ``<source>:crash``, the traceback summary as message) after the items read
so far, and the build goes on with the next Source. Items of the wrong type and rows that
do not fit the config's schema are rejects too, never a crash of the build.
"""
from __future__ import annotations

import logging
import pickle
import shutil
import time
import traceback
from collections import defaultdict, deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from kvdata.buildconfig import BuildConfig
from kvdata.dedup import (CandidateBlock, Candidates, Decision, DedupSettings, FingerprintSettings, decide,
                          dedup_texts, fingerprint, priority_of)
from kvdata.ledger import Ledger
from kvdata.schema import (ALL_CONFIGS, KERNEL_CONFIGS, LANGUAGES, QA_CONFIG, Provenance, Reject, RejectReason,
                           Verification, record_class)

log = logging.getLogger(__name__)

SPILL_DIR = ".build-spill"
PARALLEL_CHUNK = 1_000      # items per chunk sent to a worker


# ----------------------------------------------------------------- timing
@dataclass
class StepTimes:
    """Seconds spent in each step, for the benchmark. Steps run inside worker processes add
    their workers' seconds (CPU-like time, may exceed the wall time)."""

    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def add(self, step: str, dt: float) -> None:
        self.seconds[step] += dt

    def merge(self, other: dict[str, float]) -> None:
        for k, v in other.items():
            self.seconds[k] += v

    def as_dict(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in self.seconds.items()}


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


# ----------------------------------------------------------------- per-row steps
_KERNEL_REQUIRED = ("id", "subset", "source", "language", "task_name", "kernel_code", "license")
_KERNEL_OPTIONAL = ("variant", "pytorch_code", "pytorch_functional_code", "baseline_kernel_code")
_QA_REQUIRED = ("id", "subset", "library", "kind", "question", "answer", "symbol", "license")


class CheckRows:
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


class FilterLicenses:
    """Drops rows whose SPDX license (id or expression) is outside the build's allow-list."""

    name = "licenses"

    def __init__(self, allow: frozenset[str]) -> None:
        from kvdata.licenses import check_allowed

        self.allow = allow
        self._check = check_allowed
        self._cache: dict[str, Decision] = {}

    def decide(self, config: str, records: list[Any]) -> list[Decision]:
        out = []
        for record in records:
            lic = record.license
            if lic not in self._cache:
                self._cache[lic] = self._check(lic, self.allow)
            out.append(self._cache[lic])
        return out


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



# ----------------------------------------------------------------- pass 1: one chunk of one Source
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


@dataclass(frozen=True)
class ChunkSettings:
    """What processing a chunk needs of the build (picklable: workers get a copy)."""

    allow: frozenset[str]
    fingerprint: Optional[FingerprintSettings]


@dataclass
class ChunkResult:
    n_items: int                    # items this chunk accounts for (its input), a crash included
    rejects: list[Reject]
    block: Optional[CandidateBlock]
    table: Any                      # pyarrow.Table of the candidate rows (aligned with ``block``)
    crashed: bool = False
    seconds: dict[str, float] = field(default_factory=dict)


_WORKER_SOURCES: dict[int, Any] = {}   # per worker process: source_no -> its Source (keeps its caches)


def process_chunk(chunk: Chunk, settings: ChunkSettings) -> ChunkResult:
    """Pass 1 for one chunk: items -> rejects and candidate rows (table, fingerprints, priority).

    Pure but for per-process caches: runs in the main process or in a worker.
    """
    times: dict[str, float] = defaultdict(float)
    t0 = time.perf_counter()
    items, crash = chunk.items, chunk.crash
    if chunk.source is not None:
        source = _WORKER_SOURCES.setdefault(chunk.source_no, chunk.source)
        items = []
        for unit in chunk.items:
            try:
                items.append(source.unit_to_item(unit))
            except Exception as exc:  # a builder bug: what was made so far counts, the Source stops here
                crash = crash_reject(chunk.name, chunk.config, exc, chunk.first_ordinal - 1 + len(items))
                log.error("source %s crashed: %s", chunk.name, exc)
                break
    times["items" if chunk.source is not None else "read"] += time.perf_counter() - t0

    expected = record_class(chunk.config)
    rejects: list[Reject] = []
    records, ordinals = [], []
    for k, item in enumerate(items):
        ordinal = chunk.first_ordinal + k
        if isinstance(item, expected):
            records.append(item)
            ordinals.append(ordinal)
        else:
            rejects.append(as_reject(item, chunk.name, chunk.config, ordinal))
    for step in (CheckRows(), FilterLicenses(settings.allow)):
        t = time.perf_counter()
        decisions = step.decide(chunk.config, records)
        records, ordinals = _drop(decisions, records, ordinals, chunk, rejects)
        times[step.name] += time.perf_counter() - t

    t = time.perf_counter()
    table, decisions = rows_table(records, chunk.config)
    records, ordinals = _drop(decisions, records, ordinals, chunk, rejects)
    times["to_arrow"] += time.perf_counter() - t

    block = None
    if records:
        t = time.perf_counter()
        fingerprints = None
        if settings.fingerprint is not None:
            fingerprints = fingerprint(chunk.config, *dedup_texts(chunk.config, records), settings.fingerprint)
        priorities = [priority_of(r) for r in records]
        block = CandidateBlock(
            source=chunk.name, ids=[r.id for r in records],
            refs=[record_ref(r, chunk.name, o) for r, o in zip(records, ordinals)],
            ranks=[p[0] for p in priorities], speedups=[p[1] for p in priorities], fingerprints=fingerprints)
        times["fingerprint"] += time.perf_counter() - t
    if crash is not None:
        rejects.append(crash)
    return ChunkResult(n_items=len(items) + (crash is not None), rejects=rejects, block=block, table=table,
                       crashed=crash is not None, seconds=dict(times))


def _drop(decisions: list[Decision], records: list[Any], ordinals: list[int], chunk: Chunk,
          rejects: list[Reject]) -> tuple[list[Any], list[int]]:
    """Send the dropped records' rejects to ``rejects``; returns the survivors."""
    if all(d is None for d in decisions):
        return records, ordinals
    kept, kept_ordinals = [], []
    for record, ordinal, decision in zip(records, ordinals, decisions):
        if decision is None:
            kept.append(record)
            kept_ordinals.append(ordinal)
        else:
            reason, message = decision
            rejects.append(Reject(source=chunk.name, ref=record_ref(record, chunk.name, ordinal), reason=reason,
                                  message=message, config=chunk.config, id=getattr(record, "id", None)))
    return kept, kept_ordinals


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

    t0 = time.perf_counter()
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
    return writer.rows, shards, time.perf_counter() - t0


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


class Pipeline:
    """Runs a BuildConfig into ``out_dir``; see the module docstring for the two passes."""

    def __init__(self, cfg: BuildConfig, out_dir: str | Path, progress: bool = True) -> None:
        self.cfg = cfg
        self.out_dir = Path(out_dir)
        self.progress = progress
        self.times = StepTimes()
        fp = FingerprintSettings(cfg.num_perm, cfg.shingle) if cfg.dedup else None
        self.chunk_settings = ChunkSettings(cfg.allow_list(), fp)
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

    def _chunks(self, sources: Iterable[Any], ledger: Ledger, parallel: bool, stopped: set[int]) -> Iterator[Chunk]:
        """Every Source's items (or units) in chunks, in build order; reading stops at a crash."""
        from tqdm.auto import tqdm

        made = self._made_sources() if sources is None else ((s, None) for s in sources)
        for source_no, (source, failed) in enumerate(made):
            if failed is not None:
                ledger.open_source(failed.name, failed.name, failed.config, "")
                yield replace(failed, source_no=source_no)
                continue
            name, config = source.name, source.config
            ledger.open_source(name, source.kind, config, source.path)
            units = parallel and splits_into_units(source)
            # in parallel, smaller chunks keep every worker busy (and the ones in flight small)
            size = min(self.cfg.batch_size, PARALLEL_CHUNK) if parallel else self.cfg.batch_size
            bar = tqdm(desc=name, unit=" rec", disable=not self.progress, leave=False)
            n, items = 0, []
            t0 = time.perf_counter()
            try:
                it = iter(source.read_units() if units else source.read())
                while source_no not in stopped:
                    try:
                        item = next(it)
                    except StopIteration:
                        break
                    except Exception as exc:  # a builder bug: what was read counts, go on with the next Source
                        log.error("source %s crashed after %d records: %s", name, n, exc)
                        self.times.add("read", time.perf_counter() - t0)
                        yield Chunk(source_no, name, config, n - len(items) + 1, items,
                                    source=source if units else None, crash=crash_reject(name, config, exc, n))
                        items = []
                        break
                    n += 1
                    items.append(item)
                    if len(items) >= size:
                        self.times.add("read", time.perf_counter() - t0)
                        bar.update(len(items))
                        yield Chunk(source_no, name, config, n - len(items) + 1, items,
                                    source=source if units else None)
                        items = []
                        t0 = time.perf_counter()
                if items and source_no not in stopped:
                    self.times.add("read", time.perf_counter() - t0)
                    yield Chunk(source_no, name, config, n - len(items) + 1, items, source=source if units else None)
            finally:
                bar.update(len(items))
                bar.close()

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
            t0 = time.perf_counter()
            cands = candidates.get(chunk.config)
            if cands is None:
                cands = candidates[chunk.config] = Candidates(chunk.config)
                spills[chunk.config] = Spill(self.out_dir / SPILL_DIR, chunk.config)
            cands.add(result.block)
            spills[chunk.config].append(result.table)
            self.times.add("spill", time.perf_counter() - t0)

    def _stream(self, chunks: Iterator[Chunk], pool, absorb) -> None:
        """Process every chunk (in the pool when there is one) and absorb the results in order."""
        settings = self.chunk_settings
        if pool is None:
            for chunk in chunks:
                absorb(chunk, process_chunk(chunk, settings))
            return
        depth = 2 * self.cfg.workers   # chunks in flight: keeps every worker busy while we read
        pending: deque = deque()
        for chunk in chunks:
            pending.append((chunk, pool.submit(process_chunk, chunk, settings)))
            while len(pending) > depth or (pending and pending[0][1].done()):
                self._collect(pending.popleft(), absorb)
        while pending:
            self._collect(pending.popleft(), absorb)

    def _collect(self, entry, absorb) -> None:
        chunk, future = entry
        t0 = time.perf_counter()
        result = future.result()
        self.times.add("wait", time.perf_counter() - t0)
        absorb(chunk, result)

    # ------------------------------------------------------------- pass 2
    def _decide(self, candidates: dict[str, Candidates], ledger: Ledger) -> dict[str, Any]:
        """Keep masks per config; duplicates go to the ledger, kept rows are counted per source."""
        import numpy as np

        masks = {}
        kept_ids: set[str] = set()
        for config in _config_order(candidates):
            cands = candidates[config]
            t0 = time.perf_counter()
            decisions = decide(cands, self.dedup_settings, kept_ids)
            self.times.add("dedup", time.perf_counter() - t0)
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

    def _write(self, masks: dict[str, Any], spills: dict[str, Spill], pool) -> tuple[dict[str, int], dict]:
        jobs = {config: (self.out_dir, config, spills[config].path, masks[config], self.cfg.rows_per_shard)
                for config in _config_order(masks)}
        if pool is None or len(jobs) < 2:
            done = {config: write_config(*job) for config, job in jobs.items()}
        else:
            futures = {config: pool.submit(write_config, *job) for config, job in jobs.items()}
            done = {config: f.result() for config, f in futures.items()}
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
        pool = _worker_pool(self.cfg.workers)
        try:
            def absorb(chunk: Chunk, result: ChunkResult) -> None:
                self._absorb(chunk, result, ledger, candidates, spills, stopped)

            self._stream(self._chunks(sources, ledger, pool is not None, stopped), pool, absorb)
            for spill in spills.values():
                spill.close()
            masks = self._decide(candidates, ledger)
            candidates.clear()
            rows, shards = self._write(masks, spills, pool)
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)
            for spill in spills.values():
                spill.close()
            shutil.rmtree(spill_dir, ignore_errors=True)
        t0 = time.perf_counter()
        accounting = ledger.close(self.cfg.settings())
        self.times.add("write", time.perf_counter() - t0)
        t0 = time.perf_counter()
        from kvdata.card import write_card

        write_card(self.out_dir)
        self.times.add("card", time.perf_counter() - t0)
        return BuildResult(self.out_dir, accounting, rows, shards, self.times.as_dict())


def _worker_pool(workers: int):
    """N forked worker processes (fork: Sources defined anywhere, even in a test, reach them), or None."""
    if workers <= 0:
        return None
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context)
    # Start the workers now, before the build opens files or starts threads (progress bars,
    # Arrow writers), so that they are forked from a quiet process.
    pool.submit(int).result()
    return pool


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
