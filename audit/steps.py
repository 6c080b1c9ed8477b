"""The audit's measures as pipeline steps: each reads the shared :class:`AuditContext` and adds its scores.

A step has a ``name`` (the measure it computes, as ``--measures`` names it) and ``run(ctx)``. Steps run in the
order of :data:`STEPS`; the behavioural step comes last because it probes the pairs the others ranked highest.
A step whose dependencies are missing raises ImportError and the pipeline notes it as skipped; any other failure
of a whole measure is noted too, and the other measures' results are kept.
"""
from __future__ import annotations

import logging
import math
import multiprocessing
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import numpy as np
from tqdm.auto import tqdm

from kvdata.audit.benchmarks import BenchmarkItem
from kvdata.audit.coverage import CoverageTable
from kvdata.audit.lexical import LexicalScanner
from kvdata.audit.normalize import normalize_codes, strip_comments
from kvdata.audit.pairs import PairScores, Thresholds
from kvdata.audit.training import TrainingRows

log = logging.getLogger(__name__)

__all__ = ["AuditOptions", "AuditContext", "STEPS", "MEASURES", "lexical_pairs"]

_SCAN_CHUNK = 5_000          # training rows per task of a lexical scan worker
_PARALLEL_MIN_ROWS = 20_000  # below this, forking scan workers costs more than it saves
# Trace outcomes that leave nothing to probe either (no code to run, or no reference found in it).
# (the discovery codes of kvdata.audit.discover.REASON_CODES that no real run can change)
NOT_PROBEABLE = frozenset({"empty_code", "syntax_error", "exec_failed", "no_torch_reference", "no_inputs"})


@dataclass
class AuditOptions:
    """Everything a run of the audit can be told; defaults are the CLI's."""

    measures: Sequence[str] = ("lexical", "semantic", "structural", "kernel", "behavioural")
    thresholds: Thresholds = field(default_factory=Thresholds)
    lexical_floor: float = 0.5
    semantic_k: int = 5
    semantic_model: Optional[str] = None
    semantic_backend: Optional[str] = None
    embed_max_windows: Optional[int] = None      # None: every window on a GPU, semantic.CPU_MAX_WINDOWS on a CPU
    device: Optional[str] = None
    cache_dir: Optional[str] = None
    structural_timeout_s: float = 60.0
    probe_timeout_s: float = 30.0
    probe_top_k: int = 5
    probe_top_ops: int = 5
    op_overlap_floor: float = 0.5
    kernel_floor: float = 0.5
    rename_identifiers: bool = True
    workers: Optional[int] = None
    executor: str = "local"
    ray_address: Optional[str] = None
    progress: bool = True


@dataclass
class AuditContext:
    """The state steps share: both sides, the pairs found so far, coverage, and notes for the report."""

    bench: list[BenchmarkItem]
    train: TrainingRows
    options: AuditOptions
    pairs: dict[tuple[str, str], PairScores] = field(default_factory=dict)
    coverage: CoverageTable = field(default_factory=CoverageTable)
    notes: list[str] = field(default_factory=list)
    measures_run: list[str] = field(default_factory=list)
    bench_fps: dict = field(default_factory=dict)
    train_fps: dict = field(default_factory=dict)
    embeddings: Any = None               # the semantic step's vectors of both sides (semantic.SemanticSides)

    def pair(self, bench_id: str, train_id: str) -> PairScores:
        return self.pairs.setdefault((bench_id, train_id), PairScores(bench_id, train_id))

    def train_reference(self) -> dict[str, str]:
        """Per training row, the PyTorch code to trace and probe: its reference, else its code."""
        return {tid: ref or code for tid, ref, code in zip(self.train.ids, self.train.pytorch, self.train.code)
                if ref or code}

    def executor(self):
        from kvdata.audit.executors import make_executor

        return make_executor(self.options.executor, workers=self.options.workers,
                             ray_address=self.options.ray_address)


# ---------------------------------------------------------------------------------------------- lexical
def lexical_pairs(bench_ids: Sequence[str], bench_norm: Sequence[str], train_ids: Sequence[str],
                  train_norm: Sequence[str], floor: float = 0.5, progress: bool = True, *,
                  rename_identifiers: bool = False, raw_train: bool = False, workers: Optional[int] = 1,
                  chunk_rows: int = _SCAN_CHUNK) -> dict[tuple, PairScores]:
    """Pairs whose Jaccard or containment reaches ``floor``, keyed by (bench_id, train_id).

    With ``raw_train`` the training texts are raw code and their comments are stripped inside the workers.
    ``workers`` processes (``None``: one per CPU) scan chunks of the training rows; they are forked, so the
    benchmark index and the texts are inherited, not sent, and only the few pairs found travel back.
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


class LexicalStep:
    """MinHash/LSH Jaccard and 13-gram containment (training rows scanned raw: comments stripped and identifiers
    renamed inside the scan, with the same tokens as ``normalize_code``)."""

    name = "lexical"

    def run(self, ctx: AuditContext) -> None:
        o = ctx.options
        workers = o.workers
        if workers is None:
            workers = None if len(ctx.train.code) >= _PARALLEL_MIN_ROWS else 1
        bench_norm = normalize_codes([it.code for it in ctx.bench], rename_identifiers=o.rename_identifiers)
        found = lexical_pairs([it.id for it in ctx.bench], bench_norm, ctx.train.ids, ctx.train.code,
                              floor=o.lexical_floor, progress=o.progress, rename_identifiers=o.rename_identifiers,
                              raw_train=True, workers=workers)
        ctx.pairs.update(found)


# ---------------------------------------------------------------------------------------------- semantic
class SemanticStep:
    """Each benchmark item's ``semantic_k`` nearest training rows by embedding cosine, and (:meth:`fill`, once every
    measure ran) the cosine of every other pair found, so no scored pair lacks one. A document longer than the
    window budget is embedded from sampled windows; coverage records how many (``embed_windows`` of
    ``embed_windows_needed``, reason ``sampled``)."""

    name = "semantic"

    def run(self, ctx: AuditContext) -> None:
        from kvdata.audit import semantic

        o = ctx.options
        kwargs = {"backend": o.semantic_backend} if o.semantic_backend else {}
        stats: dict = {}
        sides = semantic.embed_sides([it.code for it in ctx.bench], ctx.train.code, model=o.semantic_model,
                                     cache_dir=o.cache_dir, device=o.device, progress=o.progress, stats=stats,
                                     max_windows=o.embed_max_windows, **kwargs)
        ctx.embeddings = sides
        scores, idx = semantic.nearest_neighbours(sides.bench, sides.train, k=o.semantic_k, device=o.device)
        for b, it in enumerate(ctx.bench):
            for j in range(idx.shape[1]):
                ctx.pair(it.id, ctx.train.ids[int(idx[b, j])]).cosine = float(scores[b, j])
        for side, ids, windows in (("bench", [it.id for it in ctx.bench], sides.bench_windows),
                                   ("train", ctx.train.ids, sides.train_windows)):
            for rid, (used, needed) in zip(ids, windows):
                cov = ctx.coverage.get(side, rid)
                cov.embed_windows, cov.embed_windows_needed = used, needed
                cov.embed_reason = "" if used >= needed else "sampled"
        sampled = sum(1 for _, (u, n) in zip(ctx.train.ids, sides.train_windows) if u < n)
        ctx.notes.append(f"semantic: {stats.get('backend')} on {stats.get('device')}, at most "
                         f"{stats.get('max_windows')} windows a document; {stats.get('embedded', 0)} training rows "
                         f"embedded, {stats.get('cached', 0)} from the cache; {sampled} training rows longer than "
                         "that, embedded from sampled windows (coverage.parquet: embed_reason=sampled)"
                         + (f"; {stats['note']}" if stats.get("note") else ""))

    @staticmethod
    def fill(ctx: AuditContext) -> None:
        """The cosine of every pair another measure found (dot products of the vectors already computed)."""
        sides = ctx.embeddings
        if sides is None:
            return
        b_index = {it.id: i for i, it in enumerate(ctx.bench)}
        t_index = {t: i for i, t in enumerate(ctx.train.ids)}
        todo = [p for p in ctx.pairs.values() if math.isnan(p.cosine)]
        if not todo:
            return
        b = np.asarray([b_index[p.bench_id] for p in todo])
        t = np.asarray([t_index[p.train_id] for p in todo])
        cos = np.einsum("ij,ij->i", sides.bench[b], sides.train[t])
        for p, c in zip(todo, cos.tolist()):
            p.cosine = float(c)


# ---------------------------------------------------------------------------------------------- structural
def _trace_batch(batch: list, workers=None, **kwargs) -> tuple[dict, dict]:
    """One executor batch of (key, code) traced: (fingerprints, {key: TraceError} for the rest)."""
    from kvdata.audit import structural

    failures: dict = {}
    fps = structural.fingerprint_many(dict(batch), workers=workers, failures=failures, **kwargs)
    return fps, failures


class StructuralStep:
    """Op-graph fingerprints of both sides (sandboxed tracing), similarity and containment of every pair."""

    name = "structural"

    def _trace(self, ctx: AuditContext, side: str, codes: dict[str, str]) -> dict:
        o = ctx.options
        fps: dict = {}
        errors: dict = {}
        for f, e in ctx.executor().map(_trace_batch, list(codes.items()), cache_dir=o.cache_dir,
                                       timeout_s=o.structural_timeout_s, progress=o.progress):
            fps.update(f)
            errors.update(e)
        for key in codes:
            cov = ctx.coverage.get(side, key)
            cov.traced = fps.get(key) is not None
            cov.trace_reason = "" if cov.traced else getattr(errors.get(key), "code", "not_traced")
        return {k: v for k, v in fps.items() if v is not None}

    def run(self, ctx: AuditContext) -> None:
        from kvdata.audit import structural

        th = ctx.options.thresholds
        ctx.bench_fps = self._trace(ctx, "bench", {it.id: it.code for it in ctx.bench})
        ctx.train_fps = self._trace(ctx, "train", ctx.train_reference())
        floor = min(0.3, th.structural)
        for b, t, score in structural.structural_pairs(ctx.bench_fps, ctx.train_fps, threshold=floor):
            ctx.pair(b, t).structural = score
        for b, t, score in structural.containment_pairs(ctx.bench_fps, ctx.train_fps,
                                                        threshold=min(0.5, th.structural_containment)):
            ctx.pair(b, t).structural_containment = score
        ctx.notes.append(f"structural: traced {len(ctx.bench_fps)}/{len(ctx.bench)} benchmark items and "
                         f"{len(ctx.train_fps)}/{len(ctx.train)} training rows")

    @staticmethod
    def fill(ctx: AuditContext, pairs: Sequence[PairScores]) -> None:
        """Structural scores of pairs another measure found, where both sides were traced."""
        from kvdata.audit import structural

        for p in pairs:
            fb, ft = ctx.bench_fps.get(p.bench_id), ctx.train_fps.get(p.train_id)
            if fb is None or ft is None:
                continue
            if math.isnan(p.structural):
                p.structural = float(structural.structural_similarity(fb, ft))
            if math.isnan(p.structural_containment):
                p.structural_containment = float(structural.structural_containment(fb, ft))


# ---------------------------------------------------------------------------------------------- kernels
class KernelStep:
    """Triton code compared kernel by kernel: each ``@triton.jit`` function of an item against each of a row's.

    Per pair, the best kernel match the kernel rule accepts is kept; when the rule accepts none, the best match
    is kept with the rule's refusal in ``kernel_veto`` (op conflicts, or a benchmark kernel too short to count).
    """

    name = "kernel"

    def run(self, ctx: AuditContext) -> None:
        from kvdata.audit.triton_kernels import KernelFlagRule, match_kernels

        th = ctx.options.thresholds
        rule = KernelFlagRule(jaccard=th.kernel_jaccard, containment=th.kernel_containment,
                              ast_similarity=th.kernel_ast)
        bench = [(it.id, it.code) for it in ctx.bench if "jit" in it.code]
        train = [(tid, code) for tid, code in zip(ctx.train.ids, ctx.train.code) if "jit" in code]
        if not bench or not train:
            ctx.notes.append(f"kernel: {len(bench)} benchmark items and {len(train)} training rows hold Triton "
                             "kernels; nothing to compare")
            return
        matching = match_kernels(bench, train, floor=ctx.options.kernel_floor, progress=ctx.options.progress)
        best: dict[tuple[str, str], tuple] = {}
        for m in matching.matches:
            ok, reason = rule.verdict(m)
            rank = (ok, _kernel_key(m))
            if (m.bench_id, m.train_id) not in best or rank > best[(m.bench_id, m.train_id)][0]:
                best[(m.bench_id, m.train_id)] = (rank, m, reason)
        for (b, t), ((ok, _), m, reason) in best.items():
            p = ctx.pair(b, t)
            # the measures the rule judged: IDF-weighted by default (kvdata.audit.triton_kernels.weights)
            p.kernel_jaccard, p.kernel_containment, p.kernel_ast = (
                (m.w_jaccard, m.w_containment, m.w_ast_similarity) if rule.weighted
                else (m.jaccard, m.containment, m.ast_similarity))
            p.kernels = f"{m.bench_kernel}~{m.train_kernel} (lines {m.bench_line}/{m.train_line})"
            p.kernel_veto = "" if ok else (reason.split(" ")[0].removeprefix("vetoed:") if reason else
                                           _small(m, rule) or "below_threshold")
        for side, table in (("bench", matching.bench), ("train", matching.train)):
            without = set(table.rows_without_kernels)
            counts: dict[str, int] = {}
            for r in table.row.tolist():
                counts[table.ids[r]] = counts.get(table.ids[r], 0) + 1
            for rid in table.ids:
                ctx.coverage.get(side, rid).n_kernels = 0 if rid in without else counts.get(rid, 0)
        ctx.notes.append(f"kernel: {len(bench)} benchmark items and {len(train)} training rows hold Triton "
                         f"kernels; {len(best)} pairs with a kernel match at or above "
                         f"{ctx.options.kernel_floor:g}, {sum(1 for v in best.values() if v[0][0])} accepted "
                         "by the kernel rule")


def _kernel_key(m) -> float:
    return max(v for v in (m.jaccard, m.containment, m.ast_similarity) if not math.isnan(v))


def _small(m, rule) -> str:
    """The reason code of a benchmark kernel too small to count under ``rule``, or ''."""
    if rule.weighted and not m.bench_information >= rule.min_information:
        return f"small:information {m.bench_information:.0f}<{rule.min_information:g}"
    if not rule.weighted and m.bench_tokens < rule.min_tokens:
        return f"short:{m.bench_tokens}<{rule.min_tokens} tokens"
    return ""


# ---------------------------------------------------------------------------------------------- behavioural
def _probe_batch(batch: list, workers=None, *, bench_code, train_code, **kwargs) -> dict:
    from kvdata.audit import behavioural

    return behavioural.probe_pairs(batch, bench_code, train_code, workers=workers, **kwargs)


class BehaviouralStep:
    """Both references run on shared probe inputs, for the candidate pairs of :mod:`kvdata.audit.candidates`."""

    name = "behavioural"

    def run(self, ctx: AuditContext) -> None:
        from kvdata.audit.candidates import probe_candidates

        o = ctx.options
        bench_code = {it.id: it.code for it in ctx.bench}
        train_code = ctx.train_reference()
        probeable = (self._probeable(ctx, "bench", bench_code), self._probeable(ctx, "train", train_code))
        ops_b = {(k, i): ops for k, fp in ctx.bench_fps.items() for i, ops in enumerate(_ops(fp))}
        ops_t = {(k, i): ops for k, fp in ctx.train_fps.items() for i, ops in enumerate(_ops(fp))}
        todo = probe_candidates(ctx.pairs.values(), ops_b, ops_t, top_k=o.probe_top_k, top_ops=o.probe_top_ops,
                                op_overlap_floor=o.op_overlap_floor, probeable=probeable)
        forecast = probe_forecast(todo, {it.id: it.level for it in ctx.bench}, o.workers)
        ctx.notes.append(forecast)
        if o.progress:
            tqdm.write(forecast, file=sys.stderr)
        outcomes: dict = {}
        for part in ctx.executor().map(_probe_batch, todo, bench_code=bench_code, train_code=train_code,
                                       timeout_s=o.probe_timeout_s, cache_dir=o.cache_dir, progress=o.progress):
            outcomes.update(part)
        probed = {"bench": {}, "train": {}}
        for (b, t), out in outcomes.items():
            p = ctx.pair(b, t)
            p.behavioural = float(out.score) if not out.reason else math.nan
            p.probe = out.detail if not out.reason else f"not probed: {out.reason}"
            for side, key in (("bench", b), ("train", t)):
                ok, reasons = probed[side].get(key, (False, []))
                probed[side][key] = (ok or not out.reason, reasons + ([out.reason] if out.reason else []))
        for side, table in probed.items():
            for key, (ok, reasons) in table.items():
                cov = ctx.coverage.get(side, key)
                cov.probed = ok
                cov.probe_reason = "" if ok else (reasons[0] if reasons else "")
        n_ok = sum(1 for o_ in outcomes.values() if not o_.reason)
        n_cached = sum(1 for o_ in outcomes.values() if o_.cached)
        ctx.notes.append(f"behavioural: {len(todo)} candidate pairs, {n_ok} probed ({n_cached} from the cache)")

    @staticmethod
    def _probeable(ctx: AuditContext, side: str, codes: dict[str, str]) -> set[str]:
        """Rows worth probing: traced, or not traced for a reason that real execution may not share."""
        out = set()
        for key in codes:
            cov = ctx.coverage.rows.get((side, key))
            if cov is None or cov.traced is None or cov.traced or cov.trace_reason not in NOT_PROBEABLE:
                out.add(key)
        return out


#: Worker-seconds a candidate pair costs on average, by KernelBench level, for the forecast only. Most candidates
#: end fast (no shared shapes, a cached or repeated pair, no torch); a level-3 pair that runs, whole networks,
#: takes 5-20 s. Calibrated on the bundled sample against KernelBench v0.1 (1,646 candidates: 677/728/241 by
#: level, 376 s on 2 workers). Benchmarks without levels count as level 1.
PROBE_SECONDS = {1: 0.2, 2: 0.3, 3: 2.0, 4: 0.5}


def probe_forecast(todo, levels: dict, workers: Optional[int]) -> str:
    """What the probing about to start will cost, said before it starts, and how to trim it."""
    by_level: dict = {}
    for b, _ in todo:
        lvl = levels.get(b) or 1
        by_level[lvl] = by_level.get(lvl, 0) + 1
    seconds = sum(n * PROBE_SECONDS.get(lvl, 1.0) for lvl, n in by_level.items())
    parallel = max(1, workers or os.cpu_count() or 1)
    spread = ", ".join(f"level {lvl}: {n}" for lvl, n in sorted(by_level.items()))
    return (f"behavioural: {len(todo)} pairs to probe ({spread or 'none'}); about {seconds / parallel / 60:.1f} min "
            f"on {parallel} worker(s) (a level-3 pair that runs whole networks takes 5-20 s); "
            "--levels 1,2 leaves level 3 out, --measures without behavioural skips probing")


def _ops(fp) -> list[dict[str, int]]:
    """The op multiset of each traced graph of a fingerprint (a file with several modules has several)."""
    return [dict(getattr(g, "ops", None) or {}) for g in (getattr(fp, "graphs", None) or [])]


STEPS = (LexicalStep(), SemanticStep(), StructuralStep(), KernelStep(), BehaviouralStep())
MEASURES = tuple(s.name for s in STEPS)
