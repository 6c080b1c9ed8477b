"""Duplicate removal inside one config: exact (normalised-text hash), then near (MinHash + LSH).

Which row of a duplicate cluster survives is decided by a documented **priority**, not by
arrival order, so an incorrect variant can never push out the correct kernel it differs
from by one token (upstream GPU MODE keeps several variants per task, some wrong):

1. ``verification.correct``: True, then unknown (no verification / None), then False;
2. higher ``verification.speedup`` (unknown speedup last);
3. the row ``id`` (a stable hash, so the winner also does not depend on source order).

That needs every candidate of a config before anything is decided, so dedup is two passes
(the pipeline holds the rows themselves in a spill file meanwhile): while rows stream in,
:func:`fingerprint` computes each row's digest and MinHash signature and a
:class:`Candidates` keeps them with the priority (~1.1 kB per kernel row); at the end
:func:`decide` walks the rows in priority order, greedily keeping a row unless it
duplicates a row kept before it. Each cluster thus keeps its highest-priority row, and a
dropped row's reject message names the kept row it duplicates.

* Exact: xxh3-128 of ``normalize_code(kernel_code) + normalize_code(pytorch_code)`` for
  kernel configs (the same kernel for a different reference is a different task), of
  the whitespace-collapsed question and answer for ``qa``.
* Near (kernel configs only): MinHash signatures of the normalised kernel code from
  :mod:`kvdata.minhash` (the one MinHash/LSH core of the project), compared only between rows
  with the same normalised reference (``pytorch_code``; rows without one form one group).
  Like exact dedup, a row is a (reference, kernel) pair: kernels for *different* references
  compute different things however alike their text (template-generated HIP Tanh and GELU
  extensions score 0.84, GEMM and GEMM+ReLU 0.98), while near-identical kernels for the
  same reference are redundant variants of one task, of which the priority keeps the best.
  Candidates share an LSH band (banded a little below the threshold, for recall; the band
  values mix in the reference key); each is confirmed by its estimated Jaccard >= threshold.
  Rows whose band values collide with no other row's are kept without entering the Python
  loop (vectorised pre-filter). QA rows are not
  near-deduplicated: templated questions about sibling APIs (``rocblas_sgemm`` /
  ``rocblas_dgemm``) are near-identical text yet distinct rows.
* Ids (on even without dedup): a row whose id was already kept (same subset / task /
  variant / path / kernel but, e.g., a different reference) is an exact duplicate too, so
  ids stay unique across the corpus.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import numpy as np
import xxhash

from kvdata.minhash import DEFAULT_NUM_PERM, DEFAULT_SHINGLE, EMPTY, LSHIndex, MinHasher, colliding_rows
from kvdata.normalize import normalize_code
from kvdata.schema import QA_CONFIG, RejectReason
from kvdata.shingles import DEFAULT_SEED

_WS = re.compile(r"\s+")
_U64 = np.uint64
_SALT = 0x9E3779B97F4A7C15               # odd multiplier spreading a reference key over a band value's bits

# ----------------------------------------------------------------- the build's dedup defaults, in one place
# BuildConfig, DedupSettings and FingerprintSettings all take their defaults from DEFAULT_NEAR_DUP_THRESHOLD,
# DEFAULT_NUM_PERM and DEFAULT_SHINGLE as this module exports them, so a build from the CLI, from YAML and one
# made in code agree. The MinHash shape (signature bins, tokens per shingle) is defined by kvdata.minhash, the one
# MinHash core, because the overlap audit's signatures must be comparable with the build's; it is imported above.
#: Jaccard similarity (estimated by MinHash over shingles of normalised kernel code) at and above which a row is
#: a near duplicate of a kept row *for the same normalised reference* (different references are different tasks
#: however alike the kernels). See docs/notes/build-pipeline.md.
DEFAULT_NEAR_DUP_THRESHOLD = 0.85

Decision = Optional[tuple[RejectReason, str]]

#: verification.correct -> rank (lower wins)
CORRECT_RANK = {True: 0, None: 1, False: 2}


# ----------------------------------------------------------------- fingerprints
@dataclass(frozen=True)
class FingerprintSettings:
    num_perm: int = DEFAULT_NUM_PERM
    shingle: int = DEFAULT_SHINGLE
    seed: int = DEFAULT_SEED
    near: bool = True


def dedup_texts(config: str, records: Sequence[Any]) -> tuple[list[str], list[str]]:
    """The two texts of each record that identify it: (kernel code, reference) or (question, answer)."""
    if config == QA_CONFIG:
        return [r.question for r in records], [r.answer for r in records]
    return [r.kernel_code for r in records], [r.pytorch_code or "" for r in records]


_HASHERS: dict[FingerprintSettings, MinHasher] = {}


@dataclass
class Fingerprints:
    """Per row: the exact digest; for kernel configs also the reference key (xxh3-64 of the
    normalised reference, 0 without one) and the MinHash signature of the kernel code."""

    digests: list[bytes]
    ref_keys: Optional[list[int]] = None
    sigs: Optional[np.ndarray] = None


def fingerprint(config: str, first: list[str], second: list[str], settings: FingerprintSettings) -> Fingerprints:
    """The fingerprints of a batch of rows, given :func:`dedup_texts`.

    Pure: the pipeline runs it wherever the batch is (main process or a worker). A
    reference shared by several rows of the batch is normalised once.
    """
    if config == QA_CONFIG:
        digests = [xxhash.xxh3_128_digest((_WS.sub(" ", q).strip() + "\x1f" + _WS.sub(" ", a).strip())
                                          .encode("utf-8", "surrogatepass")) for q, a in zip(first, second)]
        return Fingerprints(digests)
    kernels = [normalize_code(k) for k in first]
    refs: dict[str, tuple[str, int]] = {}
    digests, ref_keys = [], []
    for k, r in zip(kernels, second):
        known = refs.get(r)
        if known is None:
            nr = normalize_code(r) if r else ""
            known = refs[r] = nr, (xxhash.xxh3_64_intdigest(nr.encode("utf-8", "surrogatepass")) if nr else 0)
        digests.append(xxhash.xxh3_128_digest((k + "\x1f" + known[0]).encode("utf-8", "surrogatepass")))
        ref_keys.append(known[1])
    if not settings.near:
        return Fingerprints(digests, ref_keys)
    hasher = _HASHERS.get(settings)
    if hasher is None:
        hasher = _HASHERS[settings] = MinHasher(num_perm=settings.num_perm, shingle=settings.shingle,
                                                seed=settings.seed)
    return Fingerprints(digests, ref_keys, np.asarray(hasher.signatures(kernels)))


def priority_of(record: Any) -> tuple[int, float]:
    """(correctness rank, speedup) of a row: see the module docstring. NaN speedup = unknown."""
    ver = getattr(record, "verification", None)
    if ver is None:
        return CORRECT_RANK[None], math.nan
    correct = ver.correct if isinstance(ver.correct, bool) else None
    speedup = ver.speedup
    ok = isinstance(speedup, (int, float)) and not isinstance(speedup, bool) and math.isfinite(speedup)
    return CORRECT_RANK[correct], float(speedup) if ok else math.nan


# ----------------------------------------------------------------- candidates of one config
@dataclass
class CandidateBlock:
    """What dedup needs of a batch of rows that passed the filters (their order = arrival order)."""

    source: str
    ids: list[str]
    refs: list[str]                 # where each row came from, for its reject if it is dropped
    ranks: list[int]
    speedups: list[float]
    fingerprints: Optional[Fingerprints] = None

    def __len__(self) -> int:
        return len(self.ids)


@dataclass
class Candidates:
    """Every row of one config that passed the filters, in arrival order (build order of the
    Sources, then the order each yields), with its fingerprints and priority."""

    config: str
    ids: list[str] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    speedups: list[float] = field(default_factory=list)
    digests: list[bytes] = field(default_factory=list)
    ref_keys: list[int] = field(default_factory=list)
    _sig_blocks: list[np.ndarray] = field(default_factory=list)

    def add(self, block: CandidateBlock) -> None:
        self.ids += block.ids
        self.refs += block.refs
        self.sources += [block.source] * len(block)
        self.ranks += block.ranks
        self.speedups += block.speedups
        fp = block.fingerprints
        if fp is not None:
            self.digests += fp.digests
            if fp.ref_keys is not None:
                self.ref_keys += fp.ref_keys
            if fp.sigs is not None:
                self._sig_blocks.append(fp.sigs)

    def __len__(self) -> int:
        return len(self.ids)

    def sigs(self) -> Optional[np.ndarray]:
        if not self._sig_blocks or sum(len(b) for b in self._sig_blocks) != len(self):
            return None
        if len(self._sig_blocks) > 1:
            self._sig_blocks = [np.concatenate(self._sig_blocks)]
        return self._sig_blocks[0]

    def priority_order(self) -> list[int]:
        """Row indices, best first: correct rank, then higher speedup (unknown last), then id."""
        def key(i: int):
            s = self.speedups[i]
            return self.ranks[i], (math.inf if s != s else -s), self.ids[i]

        return sorted(range(len(self)), key=key)


@dataclass(frozen=True)
class DedupSettings:
    dedup: bool = True
    threshold: float = DEFAULT_NEAR_DUP_THRESHOLD
    num_perm: int = DEFAULT_NUM_PERM

    @property
    def lsh_threshold(self) -> float:
        """Band a little below the threshold: candidates are confirmed anyway, and a lower band
        threshold misses fewer true pairs near the cut."""
        return min(0.95, max(0.5, self.threshold - 0.1))


class NearIndex:
    """The LSH index of the kept rows, grown row by row as rows are kept (candidates are kept rows).

    Band values mix in each row's reference key, so rows of different references never share one. Candidates come
    in band order, then keep order (:meth:`kvdata.minhash.LSHIndex.query_band_hashes`), and the first of equally
    similar candidates wins."""

    def __init__(self, sigs: np.ndarray, ref_keys: np.ndarray, settings: DedupSettings) -> None:
        self.sigs = sigs
        self.ref_keys = ref_keys
        self.threshold = settings.threshold
        self._lsh = LSHIndex(settings.lsh_threshold, settings.num_perm)
        with np.errstate(over="ignore"):
            bh = self._lsh.band_hashes(sigs) ^ (ref_keys * _U64(_SALT))[:, None]
        empty = (sigs == EMPTY).all(axis=1)    # no shingle at all: never a near duplicate
        self.active = colliding_rows(bh) & ~empty
        self._bh = bh

    def best_match(self, i: int) -> Optional[tuple[int, float]]:
        """(kept row, estimated Jaccard) of the most similar kept row at or above the threshold."""
        if not self.active[i]:
            return None
        cands = self._lsh.query_band_hashes(self._bh[i])
        if not cands:
            return None
        idx = np.array(cands, dtype=np.int64)
        idx = idx[self.ref_keys[idx] == self.ref_keys[i]]
        if not len(idx):
            return None
        est = (self.sigs[idx] == self.sigs[i]).mean(axis=1)
        best = int(np.argmax(est))          # the first maximum
        if est[best] >= self.threshold:
            return int(idx[best]), float(est[best])
        return None

    def add(self, i: int) -> None:
        if self.active[i]:
            self._lsh.insert_band_hashes([i], self._bh[i:i + 1])


def decide(cands: Candidates, settings: DedupSettings, kept_ids: set[str]) -> list[Decision]:
    """One decision per candidate (arrival order): None keeps it, (reason, message) drops it.

    ``kept_ids`` holds the ids kept in configs decided earlier (ids are unique corpus-wide)
    and receives this config's.
    """
    n = len(cands)
    decisions: list[Decision] = [None] * n
    exact = settings.dedup and len(cands.digests) == n
    sigs = cands.sigs() if settings.dedup and cands.config != QA_CONFIG else None
    near = None
    if sigs is not None and n and len(cands.ref_keys) == n:
        near = NearIndex(sigs, np.array(cands.ref_keys, dtype=np.uint64), settings)
    seen: dict[bytes, int] = {}
    for i in cands.priority_order():
        if exact:
            j = seen.get(cands.digests[i])
            if j is not None:
                decisions[i] = (RejectReason.DUPLICATE_EXACT, f"same normalised text as kept row {cands.ids[j]}")
                continue
        if near is not None:
            hit = near.best_match(i)
            if hit is not None:
                decisions[i] = (RejectReason.DUPLICATE_NEAR,
                                f"near duplicate of kept row {cands.ids[hit[0]]} (estimated Jaccard {hit[1]:.3f} "
                                f">= {settings.threshold})")
                continue
        if cands.ids[i] in kept_ids:
            decisions[i] = (RejectReason.DUPLICATE_EXACT,
                            f"id {cands.ids[i]} already kept (same subset, task, variant, path and kernel code)")
            continue
        kept_ids.add(cands.ids[i])
        if exact:
            seen[cands.digests[i]] = i
        if near is not None:
            near.add(i)
    return decisions
