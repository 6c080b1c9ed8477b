"""``run_audit``: benchmark items + training rows -> scored pairs, per-item summary, and the outputs people act on.

Steps, each a small function: normalise both sides; lexical pairs (MinHash/LSH + exact Jaccard, containment);
semantic top-k (when sentence-transformers is installed); structural pairs (when torch tracing works); fill
in the lexical values of pairs found only by another measure; flag; write ``pairs.parquet``, ``summary.parquet``,
``train_decontaminated.parquet``, ``clean_tasks.txt`` and the report.
"""
from __future__ import annotations

import logging
import math
import multiprocessing
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from tqdm.auto import tqdm

from kvdata.audit.benchmarks import BenchmarkItem
from kvdata.audit.lexical import LexicalScanner, containment, jaccard
from kvdata.audit.normalize import normalize_code, strip_comments
from kvdata.audit.pairs import PairScores, Thresholds, flag_pair
from kvdata.audit.training import TrainingRows

log = logging.getLogger(__name__)

__all__ = ["MEASURES", "AuditResult", "run_audit", "lexical_pairs", "write_outputs", "summary_rows"]

MEASURES = ("lexical", "semantic", "structural")
_SCAN_CHUNK = 5_000          # training rows per task of a scan worker
_PARALLEL_MIN_ROWS = 20_000  # below this, forking workers costs more than it saves


@dataclass
class AuditResult:
    """Everything an audit found; ``notes`` says which measures ran and why any were skipped."""

    bench: list[BenchmarkItem]
    train: TrainingRows
    pairs: list[PairScores]
    thresholds: Thresholds
    measures_run: list[str]
    notes: list[str] = field(default_factory=list)
    outputs: dict[str, Path] = field(default_factory=dict)

    @property
    def flagged(self) -> list[PairScores]:
        return [p for p in self.pairs if p.flagged]

    def flagged_train_ids(self) -> set[str]:
        return {p.train_id for p in self.flagged}

    def clean_bench_ids(self) -> list[str]:
        dirty = {p.bench_id for p in self.flagged}
        return [it.id for it in self.bench if it.id not in dirty]


def lexical_pairs(bench_ids: Sequence[str], bench_norm: Sequence[str], train_ids: Sequence[str],
                  train_norm: Sequence[str], floor: float = 0.5, progress: bool = True, *,
                  rename_identifiers: bool = False, raw_train: bool = False, workers: Optional[int] = 1,
                  chunk_rows: int = _SCAN_CHUNK) -> dict[tuple, PairScores]:
    """Pairs whose Jaccard or containment reaches ``floor``, keyed by (bench_id, train_id).

    Texts are normalised, or at least comment-stripped; with ``raw_train`` the training texts are raw code and
    their comments are stripped here, inside the workers. ``rename_identifiers`` replaces user-chosen identifiers
    on both sides at the token level (as ``normalize_code(..., rename_identifiers=True)`` would). ``workers``
    processes (``None``: one per CPU) scan chunks of the training rows; they are forked, so the benchmark index
    and the texts are inherited, not sent, and only the few pairs found travel back; each task is ``chunk_rows``
    rows.
    """
    scanner = LexicalScanner(bench_norm, jaccard_floor=floor, containment_floor=floor,
                             rename_identifiers=rename_identifiers)
    chunks = [(lo, min(lo + chunk_rows, len(train_norm))) for lo in range(0, len(train_norm), chunk_rows)]
    out: dict[tuple, PairScores] = {}
    for t, b, j, c in _scan_chunks(scanner, train_norm, raw_train, chunks, _worker_count(workers, len(chunks)),
                                   progress):
        out[(bench_ids[b], train_ids[t])] = PairScores(bench_ids[b], train_ids[t], jaccard=j, containment=c)
    return out


def _worker_count(workers: Optional[int], n_chunks: int) -> int:
    wanted = workers if workers is not None else (os.cpu_count() or 1)
    fork_ok = "fork" in multiprocessing.get_all_start_methods()
    return max(1, min(wanted, n_chunks)) if fork_ok else 1


# What forked scan workers inherit: (scanner, texts, raw_train). Set only while a pool is running.
_FORKED_SCAN: Optional[tuple] = None


def _scan_chunk(chunk: tuple[int, int], state: Optional[tuple] = None) -> list[tuple[int, int, float, float]]:
    scanner, texts, raw_train = state or _FORKED_SCAN
    lo, hi = chunk
    part = texts[lo:hi]
    if raw_train:
        part = [strip_comments(t) for t in part]
    hits = scanner.scan(part)
    return list(zip((hits.train_index + lo).tolist(), hits.bench_index.tolist(), hits.jaccard.tolist(),
                    hits.containment.tolist()))


def _scan_chunks(scanner, texts, raw_train: bool, chunks, workers: int, progress: bool):
    """Every chunk's hits, in chunk order, from ``workers`` forked processes (or this one)."""
    global _FORKED_SCAN
    bar = tqdm(total=len(texts), desc="lexical", unit="row", disable=not progress)
    if workers <= 1:
        for chunk in chunks:
            yield from _scan_chunk(chunk, (scanner, texts, raw_train))
            bar.update(chunk[1] - chunk[0])
        bar.close()
        return
    _FORKED_SCAN = (scanner, texts, raw_train)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for chunk, hits in zip(chunks, pool.imap(_scan_chunk, chunks)):
                yield from hits
                bar.update(chunk[1] - chunk[0])
    finally:
        _FORKED_SCAN = None
        bar.close()


def _semantic(bench_ids, bench_code, train_ids, train_code, k, model, cache_dir, device):
    from kvdata.audit import semantic

    return semantic.semantic_topk(bench_ids, bench_code, train_ids, train_code, k=k, model=model,
                                  cache_dir=cache_dir, device=device)


def _structural(bench: list[BenchmarkItem], train: TrainingRows, threshold: float, cache_dir, timeout_s: float):
    """(fingerprints of both sides, pairs at or above ``threshold``).

    Training rows trace their ``pytorch_code``; a row without one traces its code itself (a module with
    ``get_inputs`` found in a code row; code without one is skipped by the tracer at no cost)."""
    from kvdata.audit import structural

    bench_fps = structural.fingerprint_many({it.id: it.code for it in bench}, cache_dir=cache_dir,
                                            timeout_s=timeout_s)
    train_src = {tid: ref or code for tid, ref, code in zip(train.ids, train.pytorch, train.code) if ref or code}
    train_fps = structural.fingerprint_many(train_src, cache_dir=cache_dir, timeout_s=timeout_s)
    bench_fps = {k: v for k, v in bench_fps.items() if v is not None}
    train_fps = {k: v for k, v in train_fps.items() if v is not None}
    return structural, bench_fps, train_fps, structural.structural_pairs(bench_fps, train_fps, threshold=threshold)


def run_audit(bench: list[BenchmarkItem], train: TrainingRows, *, measures: Sequence[str] = MEASURES,
              thresholds: Optional[Thresholds] = None, lexical_floor: float = 0.5, semantic_k: int = 5,
              semantic_model: Optional[str] = None, device: Optional[str] = None,
              cache_dir: Optional[str | Path] = None, structural_timeout_s: float = 60.0,
              rename_identifiers: bool = True, workers: Optional[int] = None,
              progress: bool = True) -> AuditResult:
    """Score every benchmark item against the training rows with the chosen measures, and flag pairs.

    A measure whose dependencies are missing (or that fails as a whole) is skipped, and ``notes`` says so.
    ``rename_identifiers`` (default) compares code with user-chosen names replaced by placeholders, so a copy
    with renamed variables scores as a copy. ``workers`` processes run the lexical scan (default: one per CPU
    for large training sets, else one).
    """
    unknown = set(measures) - set(MEASURES)
    if unknown:
        raise ValueError(f"unknown measure(s) {sorted(unknown)}; expected some of {', '.join(MEASURES)}")
    if not bench:
        raise ValueError("no benchmark items to audit")
    th = thresholds or Thresholds()
    notes: list[str] = []
    run: list[str] = []
    bench_ids = [it.id for it in bench]
    bench_norm = [normalize_code(it.code, rename_identifiers=rename_identifiers) for it in bench]
    pairs: dict[tuple, PairScores] = {}

    if "lexical" in measures:
        # training rows are scanned raw: comments are stripped and identifiers renamed inside the scan, which has
        # the same tokens as normalize_code and skips building the normalised texts
        if workers is None:
            workers = None if len(train.code) >= _PARALLEL_MIN_ROWS else 1
        pairs.update(lexical_pairs(bench_ids, bench_norm, train.ids, train.code, floor=lexical_floor,
                                   progress=progress, rename_identifiers=rename_identifiers, raw_train=True,
                                   workers=workers))
        run.append("lexical")

    if "semantic" in measures:
        try:
            hits = _semantic(bench_ids, [it.code for it in bench], train.ids, train.code, semantic_k,
                             semantic_model, cache_dir, device)
            for b, t, cos in hits:
                pairs.setdefault((b, t), PairScores(b, t)).cosine = cos
            run.append("semantic")
        except ImportError as exc:
            notes.append(f"semantic measure skipped: a dependency is missing ({exc})")
        except Exception as exc:  # a model that cannot load must not lose the lexical results
            log.warning("semantic measure failed: %s", exc)
            notes.append(f"semantic measure skipped: {type(exc).__name__}: {exc}")

    structural_state = None
    if "structural" in measures:
        try:
            structural_state = _structural(bench, train, th.structural, cache_dir, structural_timeout_s)
            module, bench_fps, train_fps, spairs = structural_state
            for b, t, score in spairs:
                pairs.setdefault((b, t), PairScores(b, t)).structural = score
            run.append("structural")
            notes.append(f"structural: traced {len(bench_fps)}/{len(bench)} benchmark items and "
                         f"{len(train_fps)}/{len(train)} training rows")
        except ImportError as exc:
            notes.append(f"structural measure skipped: a dependency is missing ({exc})")
        except Exception as exc:
            log.warning("structural measure failed: %s", exc)
            notes.append(f"structural measure skipped: {type(exc).__name__}: {exc}")
            structural_state = None

    _fill_missing(pairs, bench_ids, bench_norm, train.ids,
                  lambda code: normalize_code(code, rename_identifiers=rename_identifiers), train.code,
                  structural_state)
    flagged_pairs = [flag_pair(p, th) for p in pairs.values()]
    flagged_pairs.sort(key=lambda p: (p.bench_id, -_best(p), p.train_id))
    return AuditResult(bench, train, flagged_pairs, th, run, notes)


def _best(p: PairScores) -> float:
    vals = [v for v in (p.jaccard, p.containment, p.cosine, p.structural) if not math.isnan(v)]
    return max(vals) if vals else 0.0


def _fill_missing(pairs: dict[tuple, PairScores], bench_ids, bench_norm, train_ids, normalise, train_code,
                  structural_state) -> None:
    """Exact lexical values for pairs another measure found, and structural scores for the others (few pairs).

    Only the training rows in such pairs are normalised (``normalise``), once each.
    """
    b_index = {b: i for i, b in enumerate(bench_ids)}
    t_index = {t: i for i, t in enumerate(train_ids)}
    train_norm: dict[str, str] = {}
    for (b, t), p in pairs.items():
        if not (math.isnan(p.jaccard) or math.isnan(p.containment)):
            continue
        bt = bench_norm[b_index[b]]
        if t not in train_norm:
            train_norm[t] = normalise(train_code[t_index[t]])
        tt = train_norm[t]
        if math.isnan(p.jaccard):
            p.jaccard = jaccard(bt, tt)
        if math.isnan(p.containment):
            p.containment = containment(bt, tt)
    if structural_state is None:
        return
    module, bench_fps, train_fps, _ = structural_state
    for (b, t), p in pairs.items():
        if math.isnan(p.structural) and b in bench_fps and t in train_fps:
            scored = module.structural_pairs({b: bench_fps[b]}, {t: train_fps[t]}, threshold=0.0)
            p.structural = float(scored[0][2]) if scored else 0.0


def write_outputs(result: AuditResult, out_dir: str | Path) -> dict[str, Path]:
    """pairs.parquet, summary.parquet, train_decontaminated.parquet and clean_tasks.txt under ``out_dir``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {name: out / name for name in ("pairs.parquet", "summary.parquet", "train_decontaminated.parquet",
                                            "clean_tasks.txt")}
    pq.write_table(pa.Table.from_pylist([p.to_row() for p in result.pairs], schema=_pairs_schema()),
                   paths["pairs.parquet"])
    pq.write_table(pa.Table.from_pylist(summary_rows(result), schema=_summary_schema()), paths["summary.parquet"])
    drop = result.flagged_train_ids()
    keep = [i for i, tid in enumerate(result.train.ids) if tid not in drop]
    pq.write_table(pa.table({"id": [result.train.ids[i] for i in keep],
                             "code": [result.train.code[i] for i in keep],
                             "pytorch_code": pa.array([result.train.pytorch[i] for i in keep], pa.string())}),
                   paths["train_decontaminated.parquet"])
    clean = result.clean_bench_ids()
    paths["clean_tasks.txt"].write_text("".join(f"{i}\n" for i in clean), encoding="utf-8")
    result.outputs.update(paths)
    return paths


def _pairs_schema():
    import pyarrow as pa

    return pa.schema([("bench_id", pa.string()), ("train_id", pa.string()), ("jaccard", pa.float64()),
                      ("containment", pa.float64()), ("cosine", pa.float64()), ("structural", pa.float64()),
                      ("flagged", pa.bool_()), ("reason", pa.string())])


def _summary_schema():
    import pyarrow as pa

    fields = [("bench_id", pa.string()), ("benchmark", pa.string())]
    for m in ("jaccard", "containment", "cosine", "structural"):
        fields += [(f"max_{m}", pa.float64()), (f"nearest_{m}", pa.string())]
    fields += [("n_flagged", pa.int64()), ("flagged_train_ids", pa.list_(pa.string())), ("clean", pa.bool_())]
    return pa.schema(fields)


def summary_rows(result: AuditResult) -> list[dict]:
    """One row per benchmark item: the largest value of each measure over its pairs and the row reaching it.

    Values below the lexical floor are not stored as pairs, so a max of NaN means "below the floor / not run".
    """
    by_item: dict[str, list[PairScores]] = {}
    for p in result.pairs:
        by_item.setdefault(p.bench_id, []).append(p)
    rows = []
    for it in result.bench:
        ps = by_item.get(it.id, [])
        row = {"bench_id": it.id, "benchmark": it.benchmark}
        for m in ("jaccard", "containment", "cosine", "structural"):
            scored = [p for p in ps if not math.isnan(getattr(p, m))]
            best = max(scored, key=lambda p: getattr(p, m), default=None)
            row[f"max_{m}"] = getattr(best, m) if best else math.nan
            row[f"nearest_{m}"] = best.train_id if best else None
        flagged = [p.train_id for p in ps if p.flagged]
        row.update(n_flagged=len(flagged), flagged_train_ids=flagged, clean=not flagged)
        rows.append(row)
    return rows

