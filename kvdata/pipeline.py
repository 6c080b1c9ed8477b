"""The build: Sources -> ledger -> steps (records, row checks, licenses, Arrow, fingerprints) -> dedup -> parquet -> card.

Two passes, because which row of a duplicate cluster survives is decided by priority
(correct > unknown > incorrect, then speedup, then id; see :mod:`kvdata.dedup`), which
needs every candidate of a config first:

The steps are :mod:`kvdata.build_steps`, the tables, spill and shards :mod:`kvdata.build_output`,
the process pool :mod:`kvdata.build_executor`; this module reads the Sources and runs the passes.

1. **Stream.** Each Source is read in chunks of ``BuildConfig.batch_size`` items. A chunk
   goes through :func:`process_chunk`, which runs the build's list of steps (:class:`Step`) in
   order (:func:`default_steps`)::

       ToRecords -> CheckRows -> FilterLicenses -> ToArrow -> Fingerprint

   Each step has a ``name`` (its key in the step timings) and returns one *decision* per
   record still in the batch (or None, keeping them all): None keeps the record,
   ``(reason, message)`` drops it, and a dropped record becomes exactly one Reject with that
   reason; :func:`process_chunk` checks that every item is one row or one reject. What is left is an Arrow table
   of the surviving rows and their digests, MinHash signatures and priorities (a
   :class:`~kvdata.dedup.CandidateBlock`). The table is written where the chunk was processed,
   to one spill part file per chunk (Arrow IPC, in ``DIR/.build-spill/``), so the rows never
   travel back to the main process; the main process adds the part to its config's spill and the
   block to the config's :class:`~kvdata.dedup.Candidates`; memory holds ~1.1 kB per kernel row,
   not the code.
2. **Decide and write.** Per config, :func:`kvdata.dedup.decide` walks the candidates in
   priority order; the spill parts are then streamed, in arrival order, through the keep mask
   into zstd shards (``kvdata.hub.ConfigWriter``), and the ledger gets the duplicates.

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

import logging
import pickle
import shutil
import uuid
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence

from kvdata.build_executor import Executor, make_executor
from kvdata.build_output import Spill, SpillPart, columns_table, row_of, rows_table, write_config, write_spill_part
from kvdata.build_steps import (Batch, CheckRows, Chunk, ChunkResult, FilterLicenses, Fingerprint, RecordFilter, Step,
                                StepTimes, ToArrow, ToRecords, as_reject, crash_reject, default_steps, process_chunk,
                                record_ref)
from kvdata.buildconfig import BuildConfig
from kvdata.dedup import Candidates, DedupSettings, decide
from kvdata.ledger import Ledger
from kvdata.schema import ALL_CONFIGS, Reject

# The steps and the writing half live in their own modules; their names stay importable from here.
__all__ = ["build", "Pipeline", "BuildResult", "make_source", "splits_into_units", "SPILL_DIR",
           "Batch", "CheckRows", "Chunk", "ChunkResult", "FilterLicenses", "Fingerprint", "RecordFilter", "Step",
           "StepTimes", "ToArrow", "ToRecords", "as_reject", "crash_reject", "default_steps", "process_chunk",
           "record_ref", "Spill", "SpillPart", "columns_table", "row_of", "rows_table", "write_config",
           "write_spill_part"]

log = logging.getLogger(__name__)

SPILL_DIR = ".build-spill"


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


def named_apart(specs: Sequence[Any]) -> list[Any]:
    """The source specs, each without a ``name`` option whose default name (its kind) another one shares named
    ``KIND:FOLDER`` (``qa_rocm:rocBLAS``, ``qa_rocm:rocSOLVER``; ``#2``... if the folders share a name too), so
    that each tree keeps its own line in accounting.json and in the card (its repo, commit, license, rows)."""
    from collections import Counter

    from kvdata.builders.revision import split_revision

    names = [dict(s.options).get("name") or s.kind for s in specs]
    taken = Counter(names)
    out, used = [], set(n for n, s in zip(names, specs) if dict(s.options).get("name"))
    for spec, name in zip(specs, names):
        if dict(spec.options).get("name") or taken[name] == 1:
            out.append(spec)
            continue
        folder = split_revision(spec.path)[0].rstrip("/").rsplit("/", 1)[-1] or spec.kind
        candidate, n = f"{spec.kind}:{folder}", 1
        while candidate in used:
            n += 1
            candidate = f"{spec.kind}:{folder}#{n}"
        used.add(candidate)
        out.append(replace(spec, options=tuple(spec.options) + (("name", candidate),)))
    return out


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
        for spec in named_apart(self.cfg.sources):
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
    def _spill_path(self, chunk: Chunk) -> Path:
        """Where a chunk's candidate rows are written: one file per chunk, named by its place in the build."""
        return self.out_dir / SPILL_DIR / f"{chunk.config}-{chunk.source_no:05d}-{chunk.first_ordinal:012d}.arrow"

    def _absorb(self, chunk: Chunk, result: ChunkResult, ledger: Ledger, candidates: dict[str, Candidates],
                spills: dict[str, Spill], stopped: set[int]) -> None:
        if chunk.source_no in stopped:     # read ahead of a crash of its Source: never happened
            if result.spilled is not None:
                result.spilled.path.unlink(missing_ok=True)
            return
        if result.crashed:
            stopped.add(chunk.source_no)
        self.times.merge(result.seconds)
        ledger.count_input(chunk.name, result.n_items)
        for reject in result.rejects:
            ledger.reject(reject)
        if result.block is not None and len(result.block):
            cands = candidates.get(chunk.config)
            if cands is None:
                cands = candidates[chunk.config] = Candidates(chunk.config)
                spills[chunk.config] = Spill(chunk.config)
            cands.add(result.block)
            spills[chunk.config].add(result.spilled)

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
        jobs = [(self.out_dir, config, spills[config].parts, masks[config], self.cfg.rows_per_shard)
                for config in configs]
        done = dict(zip(configs, executor.run_each(write_config, jobs)))
        for _, _, seconds in done.values():
            self.times.add("write", seconds)
        return {c: d[0] for c, d in done.items()}, {c: d[1] for c, d in done.items()}

    # ------------------------------------------------------------- run
    def run(self, sources: Optional[Iterable[Any]] = None) -> BuildResult:
        """Build from ``sources`` (Source instances) or, by default, from the config's source specs."""
        spill_dir = self.out_dir / SPILL_DIR
        shutil.rmtree(spill_dir, ignore_errors=True)
        ledger = Ledger(self.out_dir)
        candidates: dict[str, Candidates] = {}
        spills: dict[str, Spill] = {}
        stopped: set[int] = set()
        licenses = _license_service(self.cfg.workers)
        executor = make_executor(self.cfg.workers, licenses.worker_setup() if licenses else None)
        try:
            chunks = (replace(c, spill_path=self._spill_path(c)) for c in self._chunks(sources, ledger, executor, stopped))
            for chunk, result in executor.imap(process_chunk, chunks, self.steps, times=self.times):
                self._absorb(chunk, result, ledger, candidates, spills, stopped)
                del chunk, result       # absorbed: do not hold its rows while the next chunk is read
            masks = self._decide(candidates, ledger)
            candidates.clear()
            rows, shards = self._write(masks, spills, executor)
        finally:
            executor.close()
            if licenses is not None:
                licenses.close()
            shutil.rmtree(spill_dir, ignore_errors=True)
        with self.times.timed("write"):
            accounting = ledger.close(self.cfg.settings())
        from kvdata.card import write_card
        from kvdata.croissant import write_croissant

        with self.times.timed("card"):
            write_card(self.out_dir)
            write_croissant(self.out_dir)
        return BuildResult(self.out_dir, accounting, rows, shards, self.times.as_dict())


def _why_empty(result: "BuildResult") -> str:
    """Why a build kept nothing, per source: its path, its input count, and its first reject (what and where), so
    that the message names the file to fix."""
    import pyarrow.parquet as pq

    first: dict[str, dict] = {}
    rejects = Path(result.out_dir) / "rejects.parquet"
    if rejects.is_file():
        for row in pq.read_table(rejects, columns=["source", "ref", "reason", "message"]).to_pylist():
            first.setdefault(row["source"], row)
    parts = []
    for name, acc in result.accounting.get("sources", {}).items():
        why = first.get(name)
        detail = (f": {why['reason']} at {why['ref']} ({' '.join(str(why['message']).split())[:120]})" if why
                  else ": it yielded no records")
        parts.append(f"{name} {acc.get('path') or ''} read {acc.get('input', 0)} records{detail}".replace("  ", " "))
    return "; ".join(parts) or "no sources"


def _license_service(workers: int):
    """The build's license service (:mod:`kvdata.licenses.service`) when it has worker processes, so that
    ScanCode's index is loaded at most once (by the service, on the first text no cache knows) instead of
    in the main process and in every worker; this process is attached to it until it is closed.

    None in-process (the one process loads the index itself, if at all), or when the service cannot
    start (then each process matches for itself: slower, same results)."""
    if workers <= 0:
        return None
    from kvdata.licenses.service import NoticeService

    try:
        return NoticeService()
    except Exception as exc:  # noqa: BLE001 - costs speed, never a result
        log.warning("no license service (%s): each process loads ScanCode's index itself", exc)
        return None


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
          sources: Optional[Iterable[Any]] = None, allow_empty: bool = False) -> BuildResult:
    """Build the corpus described by ``cfg`` (or made of ``sources``) into ``out_dir``.

    The build writes into a staging sibling and replaces only an earlier build's own files at the end
    (:class:`kvdata.outdir.OutputFolder`): a folder of the user's is refused before any work, and an interrupted
    build leaves ``out_dir`` as it was. A build that keeps no row raises ``ValueError`` (nothing written; a folder
    with no data is no dataset, and would replace an earlier build) unless ``allow_empty``."""
    from kvdata.outdir import OutputFolder

    out = Path(out_dir)
    with OutputFolder(out, "build").staged() as stage:
        result = Pipeline(cfg, stage, progress).run(sources)
        if not sum(result.rows.values()) and not allow_empty:
            raise ValueError(f"the build kept 0 rows: {_why_empty(result)}. Nothing was written to {out} "
                             "(--allow-empty writes it anyway)")
    shards = {c: [out / p.relative_to(stage) for p in paths] for c, paths in result.shards.items()}
    return replace(result, out_dir=out, shards=shards)
