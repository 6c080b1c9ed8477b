"""The build: Sources -> ledger -> row checks -> licenses -> exact dedup -> near dedup -> ids -> parquet -> card.

Each step does one thing on a :class:`~kvdata.dedup.Batch` (records of one Source, so of
one config): it returns one decision per record, ``None`` to keep it or ``(reason,
message)`` to drop it, and the pipeline sends every drop to the :class:`~kvdata.ledger.Ledger`.
Rows stream through in batches of ``BuildConfig.batch_size``: no step holds the raw text
of the whole corpus (exact dedup keeps 16-byte digests, near dedup one MinHash signature
per kept kernel row), so memory grows with the number of rows, not their size.

A Source is trusted to yield a record or a Reject per input record, but not trusted not to
crash: an exception inside ``read()`` becomes a Reject (reason ``other``, ref
``<source>:crash``, the traceback summary as message) and the build goes on with the next
Source. Items of the wrong type and rows that do not fit the config's schema are rejects
too, never a crash of the build.
"""
from __future__ import annotations

import logging
import time
import traceback
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from kvdata.buildconfig import BuildConfig
from kvdata.dedup import (Batch, Decision, ExactDedup, Fingerprint, FingerprintSettings, NearDedup, UniqueIds,
                          dedup_texts, fingerprint)
from kvdata.ledger import Ledger
from kvdata.schema import (KERNEL_CONFIGS, LANGUAGES, QA_CONFIG, Provenance, Reject, RejectReason,
                           Verification, record_class)

log = logging.getLogger(__name__)


# ----------------------------------------------------------------- timing
@dataclass
class StepTimes:
    """Wall seconds spent in each step (reading included), for the benchmark."""

    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def add(self, step: str, dt: float) -> None:
        self.seconds[step] += dt

    def as_dict(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in self.seconds.items()}


def record_ref(record: Any, source: str, ordinal: Optional[int] = None) -> str:
    """A locator for a row dropped after reading: ``<source>#<n>`` (the n-th item the Source
    yielded, 1-based, which for one JSONL file is its line) and its upstream path when known."""
    prov = getattr(record, "provenance", None)
    path = getattr(prov, "path", None) if prov is not None else None
    where = f"{source}#{ordinal}" if ordinal is not None else source
    return f"{where} ({path})" if path else where


# ----------------------------------------------------------------- reading
class ReadSource:
    """Iterates one Source: counts every item as input, routes Rejects to the ledger, batches records."""

    name = "read"

    def __init__(self, ledger: Ledger, batch_size: int, times: StepTimes, progress: bool = True) -> None:
        self.ledger = ledger
        self.batch_size = batch_size
        self.times = times
        self.progress = progress

    def batches(self, source: Any) -> Iterator[Batch]:
        from tqdm.auto import tqdm

        name, config = source.name, source.config
        expected = record_class(config)
        batch: list[Any] = []
        ordinals: list[int] = []
        n = 0
        bar = tqdm(desc=name, unit=" rec", disable=not self.progress, leave=False)
        try:
            t0 = time.perf_counter()
            try:
                it = iter(source.read())
                while True:
                    try:
                        item = next(it)
                    except StopIteration:
                        break
                    n += 1
                    self.ledger.count_input(name)
                    if isinstance(item, expected):
                        batch.append(item)
                        ordinals.append(n)
                    else:
                        self.ledger.reject(self._as_reject(item, name, config, n))
                    if n % 256 == 0:
                        bar.update(256)
                    if len(batch) >= self.batch_size:
                        self.times.add(self.name, time.perf_counter() - t0)
                        yield Batch(source=name, config=config, records=batch, ordinals=ordinals)
                        batch, ordinals = [], []
                        t0 = time.perf_counter()
            except Exception as exc:  # a builder bug: record it, keep what was read, go on
                self.ledger.count_input(name)
                self.ledger.reject(crash_reject(name, config, exc, n))
                log.error("source %s crashed after %d records: %s", name, n, exc)
            self.times.add(self.name, time.perf_counter() - t0)
            if batch:
                yield Batch(source=name, config=config, records=batch, ordinals=ordinals)
        finally:
            bar.update(n % 256)
            bar.close()

    @staticmethod
    def _as_reject(item: Any, name: str, config: str, ordinal: int) -> Reject:
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


def crash_reject(name: str, config: str, exc: BaseException, n_read: int) -> Reject:
    """The reject that stands for a Source that raised: type, message and the innermost frames."""
    frames = traceback.extract_tb(exc.__traceback__)[-3:]
    where = " <- ".join(f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in reversed(frames))
    summary = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return Reject(source=name, ref=f"{name}:crash", reason=RejectReason.OTHER, config=config,
                  message=f"source raised after {n_read} records: {summary} (at {where})")


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

    def decide(self, batch: Batch) -> list[Decision]:
        required = _QA_REQUIRED if batch.config == QA_CONFIG else _KERNEL_REQUIRED
        optional = () if batch.config == QA_CONFIG else _KERNEL_OPTIONAL
        return [self.problem(r, batch.config, required, optional) for r in batch.records]

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

    def decide(self, batch: Batch) -> list[Decision]:
        out = []
        for record in batch.records:
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


class WriteRows:
    """Turns kept records into Arrow rows and streams them into each config's shards."""

    name = "write"

    def __init__(self, out_dir: Path, rows_per_shard: int) -> None:
        self.out_dir = out_dir
        self.rows_per_shard = rows_per_shard
        self.writers: dict[str, Any] = {}

    def write(self, batch: Batch) -> list[Decision]:
        from kvdata.hub import ConfigWriter, rows_to_table

        writer = self.writers.get(batch.config)
        if writer is None:
            writer = self.writers[batch.config] = ConfigWriter(self.out_dir, batch.config, self.rows_per_shard)
        rows = [row_of(r) for r in batch.records]
        try:
            writer.write(rows_to_table(rows, batch.config))
            return [None] * len(rows)
        except Exception:  # one bad row must not cost the batch: find it, write the rest
            decisions: list[Decision] = []
            good = []
            for row in rows:
                try:
                    rows_to_table([row], batch.config)
                    good.append(row)
                    decisions.append(None)
                except Exception as exc:
                    decisions.append((RejectReason.OTHER, f"row does not fit the {batch.config} schema: {exc}"))
            if good:
                writer.write(rows_to_table(good, batch.config))
            return decisions

    def close(self) -> dict[str, list[Path]]:
        return {config: w.close() for config, w in sorted(self.writers.items())}


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


class Pipeline:
    """Runs a BuildConfig into ``out_dir``; see the module docstring for the steps.

    With ``cfg.workers > 0`` the fingerprint step (normalising and MinHashing the code, the
    costliest part of dedup) runs in worker processes while the main process reads the next
    batches; batches are still finished strictly in order, so the kept rows are the same.
    """

    def __init__(self, cfg: BuildConfig, out_dir: str | Path, progress: bool = True) -> None:
        self.cfg = cfg
        self.out_dir = Path(out_dir)
        self.progress = progress
        self.times = StepTimes()
        self.filters: list[Any] = [CheckRows(), FilterLicenses(cfg.allow_list())]
        self.fingerprint: Optional[Fingerprint] = None
        self.dedup: list[Any] = []
        if cfg.dedup:
            self.fingerprint = Fingerprint(FingerprintSettings(cfg.num_perm, cfg.shingle))
            self.dedup = [ExactDedup(), NearDedup(cfg.near_dup_threshold, cfg.num_perm)]
        self.dedup.append(UniqueIds())

    def _apply(self, step: Any, batch: Batch, ledger: Ledger) -> Batch:
        """Run one step and send its drops to the ledger; returns the batch of survivors."""
        t0 = time.perf_counter()
        decisions = step.decide(batch) if hasattr(step, "decide") else step.write(batch)
        self.times.add(step.name, time.perf_counter() - t0)
        if all(d is None for d in decisions):
            return batch
        ordinals = batch.ordinals or [None] * len(batch.records)
        for record, ordinal, decision in zip(batch.records, ordinals, decisions):
            if decision is not None:
                reason, message = decision
                ledger.reject(Reject(source=batch.source, ref=record_ref(record, batch.source, ordinal), reason=reason,
                                     message=message, config=batch.config, id=getattr(record, "id", None)))
        return batch.select([d is None for d in decisions])

    def _made_sources(self, ledger: Ledger) -> Iterator[Any]:
        """The configured Sources, made one at a time; one that cannot be made is one crash reject."""
        for spec in self.cfg.sources:
            try:
                source = make_source(spec)
            except Exception as exc:  # bad options, a broken builder module: one reject, build goes on
                config = _config_of_kind(spec.kind)
                ledger.open_source(spec.kind, spec.kind, config, spec.path)
                ledger.count_input(spec.kind)
                ledger.reject(crash_reject(spec.kind, config, exc, 0))
                log.error("source %s could not be created: %s", spec.kind, exc)
                continue
            yield source

    def _filtered_batches(self, sources: Iterable[Any], reader: ReadSource, ledger: Ledger) -> Iterator[Batch]:
        for source in sources:
            ledger.open_source(source.name, source.kind, source.config, source.path)
            for batch in reader.batches(source):
                for step in self.filters:
                    batch = self._apply(step, batch, ledger)
                    if not batch.records:
                        break
                if batch.records:
                    yield batch

    def _finish(self, batch: Batch, ledger: Ledger, writer: "WriteRows") -> None:
        for step in self.dedup:
            batch = self._apply(step, batch, ledger)
            if not batch.records:
                return
        batch = self._apply(writer, batch, ledger)
        ledger.count_kept(batch.source, len(batch.records))

    def _fingerprinted(self, batches: Iterator[Batch]) -> Iterator[Batch]:
        """Batches with digests and signatures, in order; computed in a process pool when configured."""
        if self.fingerprint is None:
            yield from batches
            return
        if self.cfg.workers <= 0:
            for batch in batches:
                t0 = time.perf_counter()
                batch = self.fingerprint.apply(batch)
                self.times.add(self.fingerprint.name, time.perf_counter() - t0)
                yield batch
            return
        import multiprocessing
        from collections import deque
        from concurrent.futures import ProcessPoolExecutor

        settings = self.fingerprint.settings
        depth = self.cfg.workers + 1  # batches in flight: keeps every worker busy while we read
        pending: deque = deque()
        with ProcessPoolExecutor(self.cfg.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            for batch in batches:
                pending.append((batch, pool.submit(fingerprint, batch.config, *dedup_texts(batch), settings)))
                while len(pending) > depth:
                    yield self._collect(*pending.popleft())
            while pending:
                yield self._collect(*pending.popleft())

    def _collect(self, batch: Batch, future) -> Batch:
        t0 = time.perf_counter()
        digests, sigs = future.result()
        self.times.add("fingerprint_wait", time.perf_counter() - t0)
        return replace(batch, digests=digests, sigs=sigs)

    def run(self, sources: Optional[Iterable[Any]] = None) -> BuildResult:
        """Build from ``sources`` (Source instances) or, by default, from the config's source specs."""
        from kvdata.hub import clear_outputs

        clear_outputs(self.out_dir)
        ledger = Ledger(self.out_dir)
        reader = ReadSource(ledger, self.cfg.batch_size, self.times, self.progress)
        writer = WriteRows(self.out_dir, self.cfg.rows_per_shard)
        batches = self._filtered_batches(self._made_sources(ledger) if sources is None else sources, reader, ledger)
        for batch in self._fingerprinted(batches):
            self._finish(batch, ledger, writer)
        t0 = time.perf_counter()
        shards = writer.close()
        accounting = ledger.close(self.cfg.settings())
        self.times.add("write", time.perf_counter() - t0)
        t0 = time.perf_counter()
        from kvdata.card import write_card

        write_card(self.out_dir)
        self.times.add("card", time.perf_counter() - t0)
        rows = {c: w.rows for c, w in writer.writers.items()}
        return BuildResult(self.out_dir, accounting, rows, shards, self.times.as_dict())


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
