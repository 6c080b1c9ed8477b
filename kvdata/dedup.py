"""Duplicate removal inside one config: exact (normalised-text hash), then near (MinHash + LSH).

Both steps keep the FIRST row seen in the build's stable order (sources in build order,
records in the order each Source yields them) and drop later ones, so a rebuild keeps
the same winners. A dropped row's reject message names the id of the row it duplicates.

The costly part, turning text into fingerprints, is one pure function
(:func:`fingerprint`) so the pipeline can run it in a worker process while it reads the
next batch; the two dedup steps then only compare fingerprints.

* Exact: xxh3-128 of ``normalize_code(kernel_code) + normalize_code(pytorch_code)`` for
  kernel configs (the same kernel for a different reference is a different task), of
  the whitespace-collapsed question and answer for ``qa``. Only 16-byte digests are held.
* Near (kernel configs only): MinHash signatures of the normalised kernel code from
  ``kvdata.audit.lexical`` (the one MinHash of the project). Candidates come from LSH
  indexes banded a little below the threshold (for recall); each is confirmed by its
  estimated Jaccard >= threshold. QA rows are not near-deduplicated: templated questions
  about sibling APIs (``rocblas_sgemm`` / ``rocblas_dgemm``) are near-identical text yet
  distinct rows.
* Ids (:class:`UniqueIds`, on even without dedup): a row whose id was already kept (same
  subset/task/variant/path/kernel but, e.g., a different reference) is an exact duplicate
  too, so ids stay unique across the corpus.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Optional, Sequence

import numpy as np
import xxhash

from kvdata.schema import QA_CONFIG, RejectReason

_WS = re.compile(r"\s+")

Decision = Optional[tuple[RejectReason, str]]


@dataclass
class Batch:
    """Records of one Source (so of one config) moving through the steps together.

    ``ordinals``, ``digests`` and ``sigs`` (the last two set by the fingerprint step) stay
    aligned with ``records``.
    """

    source: str
    config: str
    records: list[Any]
    ordinals: list[int] = field(default_factory=list)   # 1-based position of each record in its Source
    digests: Optional[list[bytes]] = None
    sigs: Optional[np.ndarray] = None
    extra: dict[str, Any] = field(default_factory=dict)

    def select(self, keep: Sequence[bool]) -> "Batch":
        """The batch of the records whose ``keep`` flag is true (fingerprints follow)."""
        idx = [i for i, k in enumerate(keep) if k]
        return replace(
            self, records=[self.records[i] for i in idx],
            ordinals=[self.ordinals[i] for i in idx] if self.ordinals else [],
            digests=None if self.digests is None else [self.digests[i] for i in idx],
            sigs=None if self.sigs is None else self.sigs[idx],
        )


# ----------------------------------------------------------------- fingerprints
@dataclass(frozen=True)
class FingerprintSettings:
    num_perm: int = 128
    shingle: int = 5
    seed: int = 1
    near: bool = True


def dedup_texts(batch: Batch) -> tuple[list[str], list[str]]:
    """The two texts of each record that identify it: (kernel code, reference) or (question, answer)."""
    if batch.config == QA_CONFIG:
        return [r.question for r in batch.records], [r.answer for r in batch.records]
    return [r.kernel_code for r in batch.records], [r.pytorch_code or "" for r in batch.records]


_HASHERS: dict[FingerprintSettings, Any] = {}


def fingerprint(config: str, first: list[str], second: list[str], settings: FingerprintSettings
                ) -> tuple[list[bytes], Optional[np.ndarray]]:
    """Exact digests (and, for kernel configs, MinHash signatures of the kernel code) of a batch.

    Pure and picklable: the pipeline may run it in a worker process.
    """
    if config == QA_CONFIG:
        digests = [xxhash.xxh3_128_digest((_WS.sub(" ", q).strip() + "\x1f" + _WS.sub(" ", a).strip())
                                          .encode("utf-8", "surrogatepass")) for q, a in zip(first, second)]
        return digests, None
    from kvdata.audit.normalize import normalize_code

    kernels = [normalize_code(k) for k in first]
    digests = [xxhash.xxh3_128_digest((k + "\x1f" + (normalize_code(r) if r else ""))
                                      .encode("utf-8", "surrogatepass")) for k, r in zip(kernels, second)]
    if not settings.near:
        return digests, None
    hasher = _HASHERS.get(settings)
    if hasher is None:
        from kvdata.audit.lexical import MinHasher

        hasher = _HASHERS[settings] = MinHasher(num_perm=settings.num_perm, shingle=settings.shingle,
                                                seed=settings.seed)
    return digests, np.asarray(hasher.signatures(kernels))


class Fingerprint:
    """Computes the batch's digests and signatures (in-process; the pipeline may do it in a pool)."""

    name = "fingerprint"

    def __init__(self, settings: FingerprintSettings) -> None:
        self.settings = settings

    def apply(self, batch: Batch) -> Batch:
        digests, sigs = fingerprint(batch.config, *dedup_texts(batch), self.settings)
        return replace(batch, digests=digests, sigs=sigs)


# ----------------------------------------------------------------- the steps
class ExactDedup:
    """Drops rows whose digest equals that of a row kept earlier in the same config."""

    name = "dedup_exact"

    def __init__(self) -> None:
        self._seen: dict[str, dict[bytes, str]] = {}   # config -> digest -> kept id

    def decide(self, batch: Batch) -> list[Decision]:
        """One decision per record: None keeps it, (reason, message) drops it."""
        seen = self._seen.setdefault(batch.config, {})
        decisions: list[Decision] = []
        for record, digest in zip(batch.records, batch.digests):
            kept_id = seen.get(digest)
            if kept_id is not None:
                decisions.append((RejectReason.DUPLICATE_EXACT, f"same normalised text as kept row {kept_id}"))
            else:
                seen[digest] = record.id
                decisions.append(None)
        return decisions


class NearDedup:
    """Drops kernel rows whose MinHash-estimated Jaccard with a kept row is >= threshold.

    Each batch gets its own LSH index (a "segment"); a batch is queried against the earlier
    segments and against itself. Segments never change once built, so ``LSHIndex`` sorts
    its band keys once per segment instead of once per insert. Rows dropped as duplicates
    stay in their batch's segment but are filtered out of the candidates. Like an LSM tree
    with fan-in ``MERGE_FAN_IN``, the newest segments are merged (kept rows only) while the
    last ``MERGE_FAN_IN`` of them hold the same number of batches, so a build of b batches
    queries O(log b) segments per batch and re-indexes each row about log4(b) times.
    """

    name = "dedup_near"
    MERGE_FAN_IN = 4

    def __init__(self, threshold: float = 0.85, num_perm: int = 128) -> None:
        self.threshold = threshold
        self.num_perm = num_perm
        # Band a little below the threshold: candidates are confirmed below anyway, and a
        # lower band threshold misses fewer true pairs near the cut.
        self.lsh_threshold = min(0.95, max(0.5, threshold - 0.1))
        self._segments: dict[str, list[tuple[Any, list[int], int]]] = {}  # config -> [(LSHIndex, seqs, n_batches)]
        self._kept: dict[str, dict[int, tuple[str, np.ndarray]]] = {}  # config -> seq -> (id, sig)
        self._next_seq = 0

    def decide(self, batch: Batch) -> list[Decision]:
        if batch.config == QA_CONFIG or batch.sigs is None or not batch.records:
            return [None] * len(batch.records)
        from kvdata.audit.lexical import LSHIndex, estimate_jaccard

        sigs = batch.sigs
        segments = self._segments.setdefault(batch.config, [])
        kept = self._kept.setdefault(batch.config, {})
        seqs = list(range(self._next_seq, self._next_seq + len(batch.records)))
        self._next_seq += len(seqs)

        candidates: list[set[int]] = [set() for _ in seqs]
        for segment, _, _ in segments:
            for i, hits in enumerate(segment.query_many(sigs)):
                candidates[i].update(hits)
        own = LSHIndex(threshold=self.lsh_threshold, num_perm=self.num_perm)
        own.insert_many(seqs, sigs)
        for i, hits in enumerate(own.query_many(sigs)):
            candidates[i].update(h for h in hits if h < seqs[i])   # only rows before this one

        decisions: list[Decision] = []
        for i, record in enumerate(batch.records):
            best = None  # (-jaccard, seq): the most similar kept row, the earliest on ties
            for cand in candidates[i]:
                hit = kept.get(cand)
                if hit is None:   # a candidate that was itself dropped
                    continue
                j = float(estimate_jaccard(sigs[i], hit[1]))
                if j >= self.threshold and (best is None or (-j, cand) < best):
                    best = (-j, cand)
            if best is not None:
                kept_id = kept[best[1]][0]
                decisions.append((RejectReason.DUPLICATE_NEAR,
                                  f"near duplicate of kept row {kept_id} (estimated Jaccard {-best[0]:.3f} "
                                  f">= {self.threshold})"))
            else:
                kept[seqs[i]] = (record.id, sigs[i].copy())  # copy: do not pin the batch array
                decisions.append(None)
        segments.append((own, seqs, 1))
        self._compact(segments, kept)
        return decisions

    def _compact(self, segments: list[tuple[Any, list[int], int]], kept: dict[int, tuple[str, np.ndarray]]) -> None:
        from kvdata.audit.lexical import LSHIndex

        k = self.MERGE_FAN_IN
        while len(segments) >= k and len({n for _, _, n in segments[-k:]}) == 1:
            group = segments[-k:]
            del segments[-k:]
            seqs = [q for _, part, _ in group for q in part if q in kept]
            merged = LSHIndex(threshold=self.lsh_threshold, num_perm=self.num_perm)
            if seqs:
                merged.insert_many(seqs, np.stack([kept[q][1] for q in seqs]))
            segments.append((merged, seqs, sum(n for _, _, n in group)))


class UniqueIds:
    """Drops a row whose id is already kept anywhere in the corpus (runs even with dedup off).

    Ids hash subset, task, variant, path and kernel code, so two rows share one only when
    those agree and something else (the reference, the license) differs: the first wins.
    """

    name = "unique_ids"

    def __init__(self) -> None:
        self._ids: set[str] = set()

    def decide(self, batch: Batch) -> list[Decision]:
        decisions: list[Decision] = []
        for record in batch.records:
            if record.id in self._ids:
                decisions.append((RejectReason.DUPLICATE_EXACT,
                                  f"id {record.id} already kept (same subset, task, variant, path and kernel code)"))
            else:
                self._ids.add(record.id)
                decisions.append(None)
        return decisions
