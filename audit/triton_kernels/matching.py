"""Benchmark kernels against training kernels: lexical Jaccard and containment, and AST similarity, per kernel.

Whole-file measures miss a benchmark kernel that sits in a library file among twenty others: its Jaccard to the
file falls with the file's length. Here every Triton kernel of a benchmark item is compared with every kernel of
every training row, on three measures:

* ``jaccard``: exact Jaccard of the two kernels' token 5-shingle sets, on the renamed text
  (:attr:`TritonKernel.normalized`);
* ``containment``: the share of the benchmark kernel's token n-grams found in the training kernel (same text);
  it stays high when the training copy gained code (an extra constexpr branch, a second output);
* ``ast_similarity``: exact Jaccard of the two normalised ASTs' token shingles (:attr:`TritonKernel.ast_form`),
  which no renaming, reordering of constexprs, block size, comment or formatting change moves.

Nothing is compared all-pairs. Kernels are deduplicated by their two forms first (the releases of one package
repeat most kernels), then two :class:`kvdata.audit.lexical.LexicalScanner` instances, one over the benchmark
kernels' renamed texts and one over their AST forms, stream the distinct training kernels through LSH (Jaccard)
and prefix-filtered n-gram indexes (containment). Every pair one of them finds at or above ``floor`` then gets
the measures the other did not compute, exactly, from the two kernels' shingle sets.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
from tqdm.auto import tqdm

from kvdata.audit.lexical import LexicalScanner, ngram_hashes
from kvdata.audit.triton_kernels.extract import TritonKernel, extract_many
from kvdata.audit.triton_kernels.ops import OpDifference, op_differences
from kvdata.audit.triton_kernels.weights import ShingleWeights

__all__ = ["KernelMatch", "KernelMatching", "KernelTable", "kernel_matches", "match_kernels", "extract_all",
           "SHINGLE", "NGRAM", "AST_SHINGLE"]

SHINGLE = 5           # token shingle of the kernel-level Jaccard (as the file-level lexical measure)
NGRAM = 8             # token n-gram of the kernel-level containment: a kernel is short, edits are close together
AST_SHINGLE = 6       # AST-token shingle of the structural similarity
_SCAN_CHUNK = 4000    # distinct training kernels per scan step (one progress-bar tick)


@dataclass
class KernelMatch:
    """The best-matching training kernel for one benchmark kernel in one training row.

    ``bench_line``/``train_line`` are the kernels' first lines (1-based, decorators included); ``bench_tokens``
    and ``train_tokens`` are the kernels' lengths in renamed tokens (short kernels are generic: see
    :class:`~kvdata.audit.triton_kernels.rule.KernelFlagRule`). ``ops_missing``/``ops_extra``/``op_conflicts``
    compare the two kernels' compute ops (:func:`~kvdata.audit.triton_kernels.ops.op_differences`).
    """

    bench_id: str
    train_id: str
    bench_kernel: str
    train_kernel: str
    jaccard: float
    containment: float
    ast_similarity: float
    bench_line: int = 0
    train_line: int = 0
    bench_tokens: int = 0
    train_tokens: int = 0
    ops_missing: int = 0
    ops_extra: int = 0
    op_conflicts: int = 0
    # the same three measures with each shingle weighted by its IDF over the training kernels (:mod:`.weights`),
    # and the benchmark kernel's information (the sum of its shingles' weights): NaN where not computed
    w_jaccard: float = math.nan
    w_containment: float = math.nan
    w_ast_similarity: float = math.nan
    bench_information: float = math.nan
    bench_ops: int = 0                 # the benchmark kernel's compute ops, with multiplicity (helpers included)

    @property
    def best(self) -> float:
        return max(self.jaccard, self.containment, self.ast_similarity)


@dataclass
class KernelTable:
    """Every kernel of one side: ``kernels[i]`` belongs to row ``ids[row[i]]``; ``form[i]`` is its distinct-form
    id, with the forms in ``normalized`` / ``ast_forms`` (kernels equal in both forms share one id).

    Coverage, for the report: ``rows_without_kernels`` lists the rows holding no Triton kernel, ``rows_cut_out``
    the rows whose file did not parse (their kernels were cut out line by line, :mod:`.fallback`).
    """

    ids: list[str]
    row: np.ndarray
    kernels: list[TritonKernel]
    form: np.ndarray
    normalized: list[str]
    ast_forms: list[str]
    rows_without_kernels: list[str]
    rows_cut_out: list[str]


def extract_all(items: Sequence[tuple[str, str]], *, progress: bool = True, desc: str = "kernels") -> KernelTable:
    """Extract the kernels of every (id, code) row; identical files are parsed once."""
    ids = [str(item_id) for item_id, _ in items]
    distinct: dict[str, int] = {}
    file_of = [distinct.setdefault(code or "", len(distinct)) for _, code in items]
    found = list(tqdm(extract_many(distinct), total=len(distinct), desc=f"extracting {desc}",
                      disable=not progress, unit="file"))
    rows, kernels = [], []
    for r, f in enumerate(file_of):
        kernels.extend(found[f])
        rows.extend([r] * len(found[f]))
    forms: dict[tuple[str, str], int] = {}
    form = np.fromiter((forms.setdefault((k.normalized, k.ast_form), len(forms)) for k in kernels),
                       dtype=np.int64, count=len(kernels))
    keys = list(forms)
    return KernelTable(ids, np.asarray(rows, dtype=np.int64), kernels, form, [k[0] for k in keys],
                       [k[1] for k in keys], rows_without_kernels=[i for i, f in zip(ids, file_of) if not found[f]],
                       rows_cut_out=[i for i, f in zip(ids, file_of) if found[f] and not found[f][0].parsed])


@dataclass
class KernelMatching:
    """What :func:`match_kernels` found: the matches and both sides' kernel tables (for coverage)."""

    matches: list[KernelMatch]
    bench: KernelTable
    train: KernelTable


def _distinct(hashes, i: int) -> np.ndarray:
    return np.unique(hashes.doc(i))


class _ExactSets:
    """Distinct shingle hashes of selected forms, computed on first use (for the measures a scan left out)."""

    def __init__(self, texts: list[str], n: int):
        self.texts, self.n = texts, n
        self.cache: dict[int, np.ndarray] = {}

    def prepare(self, ids: Iterable[int]) -> None:
        todo = sorted(set(ids) - self.cache.keys())
        if todo:
            h = ngram_hashes([self.texts[i] for i in todo], self.n)
            for j, i in enumerate(todo):
                self.cache[i] = _distinct(h, j)

    def __getitem__(self, i: int) -> np.ndarray:
        return self.cache[i]


def _jaccard(a: np.ndarray, b: np.ndarray) -> float:
    if not len(a) or not len(b):
        return 0.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)


def _containment(bench: np.ndarray, train: np.ndarray) -> float:
    if not len(bench):
        return 0.0
    return len(np.intersect1d(bench, train, assume_unique=True)) / len(bench)


def _scan(scanner: LexicalScanner, texts: list[str], progress: bool, desc: str) -> dict[tuple[int, int], tuple]:
    """{(train form, bench form): (jaccard, containment)} for every pair the scanner finds (NaN: not computed)."""
    out: dict[tuple[int, int], tuple] = {}
    bar = tqdm(total=len(texts), desc=desc, disable=not progress, unit="kernel")
    for start in range(0, len(texts), _SCAN_CHUNK):
        hits = scanner.scan(texts[start:start + _SCAN_CHUNK])
        for t, b, j, c in zip((hits.train_index + start).tolist(), hits.bench_index.tolist(), hits.jaccard.tolist(),
                              hits.containment.tolist()):
            out[(t, b)] = (j, c)
        bar.update(min(_SCAN_CHUNK, len(texts) - start))
    bar.close()
    return out


def kernel_matches(bench: Sequence[tuple[str, str]], train: Sequence[tuple[str, str]], *, floor: float = 0.5,
                   progress: bool = True) -> list[KernelMatch]:
    """For every benchmark kernel and training row, the row's best-matching kernel, if any measure reaches ``floor``.

    ``bench`` and ``train`` are (id, code) rows. "Best" is the highest of the three measures, then their sum,
    among the training kernels whose compute ops agree with the benchmark kernel's; the best kernel whose ops
    conflict (:attr:`KernelMatch.op_conflicts`) is reported as well when it scores higher, so one benchmark
    kernel can have two matches in one row. The result is sorted by benchmark id, training id, benchmark kernel
    line. Apply a :class:`~kvdata.audit.triton_kernels.rule.KernelFlagRule` to decide which matches flag.
    """
    return match_kernels(bench, train, floor=floor, progress=progress).matches


def match_kernels(bench: Sequence[tuple[str, str]], train: Sequence[tuple[str, str]], *, floor: float = 0.5,
                  progress: bool = True, weighted: bool = True) -> KernelMatching:
    """:func:`kernel_matches`, with the kernel tables of both sides (which rows hold no kernel, which did not parse).
    ``weighted`` also computes the IDF-weighted measures of every match (:mod:`.weights`)."""
    if not 0.0 < floor <= 1.0:
        raise ValueError(f"floor must be in (0, 1], got {floor}")
    b_tab = extract_all(bench, progress=progress, desc="benchmark kernels")
    t_tab = extract_all(train, progress=progress, desc="training kernels")
    if not b_tab.kernels or not t_tab.kernels:
        return KernelMatching([], b_tab, t_tab)
    lexical = LexicalScanner(b_tab.normalized, jaccard_floor=floor, containment_floor=floor, shingle=SHINGLE,
                             ngram=NGRAM)
    structural = LexicalScanner(b_tab.ast_forms, jaccard_floor=floor, containment_floor=1.0, shingle=AST_SHINGLE,
                                ngram=AST_SHINGLE)
    lex = _scan(lexical, t_tab.normalized, progress, "kernel pairs (lexical)")
    ast_hits = _scan(structural, t_tab.ast_forms, progress, "kernel pairs (AST)")
    scores = _complete(lex, ast_hits, b_tab, t_tab, floor, KernelWeights.of_training(t_tab) if weighted else None)
    return KernelMatching(_expand(scores, b_tab, t_tab), b_tab, t_tab)


def _complete(lex: dict, ast_hits: dict, b_tab: KernelTable, t_tab: KernelTable,
              floor: float, weights: "KernelWeights | None" = None) -> dict[tuple[int, int], tuple]:
    """(jaccard, containment, ast_similarity) of every found (train form, bench form) pair, filling in exactly
    the measures its scan did not compute; pairs whose best measure stays below ``floor`` are dropped. With
    ``weights``, each tuple also holds the weighted measures and the benchmark kernel's information."""
    pairs = set(lex) | {p for p, (j, _) in ast_hits.items() if not math.isnan(j)}
    need_lex = [p for p in pairs if p not in lex or any(math.isnan(v) for v in lex[p])]
    need_ast = [p for p in pairs if p not in ast_hits or math.isnan(ast_hits[p][0])]
    sets = {"train_sh": _ExactSets(t_tab.normalized, SHINGLE), "bench_sh": _ExactSets(b_tab.normalized, SHINGLE),
            "train_ng": _ExactSets(t_tab.normalized, NGRAM), "bench_ng": _ExactSets(b_tab.normalized, NGRAM),
            "train_ast": _ExactSets(t_tab.ast_forms, AST_SHINGLE),
            "bench_ast": _ExactSets(b_tab.ast_forms, AST_SHINGLE)}
    for side in ("sh", "ng"):
        sets["train_" + side].prepare(t for t, _ in need_lex)
        sets["bench_" + side].prepare(b for _, b in need_lex)
    sets["train_ast"].prepare(t for t, _ in need_ast)
    sets["bench_ast"].prepare(b for _, b in need_ast)
    out = {}
    for p in pairs:
        t, b = p
        j, c = lex.get(p, (math.nan, math.nan))
        if math.isnan(j):
            j = _jaccard(sets["train_sh"][t], sets["bench_sh"][b])
        if math.isnan(c):
            c = _containment(sets["bench_ng"][b], sets["train_ng"][t])
        a = ast_hits.get(p, (math.nan,))[0]
        if math.isnan(a):
            a = _jaccard(sets["train_ast"][t], sets["bench_ast"][b])
        if max(j, c, a) >= floor - 1e-12:
            out[p] = (j, c, a)
    if weights is not None and out:
        for name, exact in sets.items():
            exact.prepare([t for t, _ in out] if name.startswith("train") else [b for _, b in out])
        for (t, b), (j, c, a) in list(out.items()):
            out[(t, b)] = (j, c, a,
                           weights.lexical.jaccard(sets["train_sh"][t], sets["bench_sh"][b]),
                           weights.ngram.containment(sets["bench_ng"][b], sets["train_ng"][t]),
                           weights.ast.jaccard(sets["train_ast"][t], sets["bench_ast"][b]),
                           weights.lexical.information(sets["bench_sh"][b]))
    return out


@dataclass
class KernelWeights:
    """The IDF weights of the three measures' shingles over one training side's distinct kernel forms."""

    lexical: ShingleWeights
    ngram: ShingleWeights
    ast: ShingleWeights

    @classmethod
    def of_training(cls, table: "KernelTable") -> "KernelWeights":
        return cls(ShingleWeights(table.normalized, SHINGLE), ShingleWeights(table.normalized, NGRAM),
                   ShingleWeights(table.ast_forms, AST_SHINGLE))


def _expand(scores: dict, b_tab: KernelTable, t_tab: KernelTable) -> list[KernelMatch]:
    """Form pairs back to kernels: per (benchmark kernel, training row), the best training kernel whose compute
    ops agree (no conflicts, :func:`op_differences`), and also the best one whose ops conflict when it scores
    higher (a look-alike stays visible, to be vetoed). Best: the highest measure, then the highest sum.

    Kernels of one form can differ in ops (one template instantiated with different helper kernels), so ops are
    compared per kernel pair (once per distinct pair of op multisets).
    """
    if not scores:
        return []
    t_members = _members(t_tab.form)
    b_members = _members(b_tab.form)
    best: dict[tuple[int, int, bool], tuple[tuple, int, tuple, OpDifference]] = {}
    op_key: dict[int, tuple] = {}           # train kernel -> its ops, hashable (equal ops compare once)
    op_cache: dict[tuple[int, tuple], OpDifference] = {}
    for (t, b), s in scores.items():
        rank = (max(s[:3]), sum(s[:3]))
        for bk in b_members[b]:
            bker = b_tab.kernels[bk]
            for tk in t_members[t]:
                key = op_key.get(tk)
                if key is None:
                    tker = t_tab.kernels[tk]
                    key = op_key[tk] = (bool(tker.ast_form), frozenset(tker.ops.items()),
                                        frozenset(tker.guarded_ops.items()))
                ops = op_cache.get((bk, key))
                if ops is None:
                    ops = op_cache[(bk, key)] = op_differences(bker, t_tab.kernels[tk])
                slot = (bk, int(t_tab.row[tk]), ops.conflicts > 0)
                cur = best.get(slot)
                if cur is None or rank > cur[0]:
                    best[slot] = (rank, tk, s, ops)
    out = []
    for (bk, row, conflicting), (rank, tk, s, ops) in best.items():
        j, c, a = s[:3]
        weighted = s[3:] if len(s) > 3 else (math.nan,) * 4
        if conflicting and (bk, row, False) in best and best[(bk, row, False)][0] >= rank:
            continue
        bker, tker = b_tab.kernels[bk], t_tab.kernels[tk]
        out.append(KernelMatch(bench_id=b_tab.ids[b_tab.row[bk]], train_id=t_tab.ids[row],
                               bench_kernel=bker.name, train_kernel=tker.name, jaccard=float(j),
                               containment=float(c), ast_similarity=float(a), bench_line=bker.start_line,
                               train_line=tker.start_line, bench_tokens=bker.n_tokens,
                               train_tokens=tker.n_tokens, ops_missing=ops.missing, ops_extra=ops.extra,
                               op_conflicts=ops.conflicts, w_jaccard=float(weighted[0]),
                               w_containment=float(weighted[1]), w_ast_similarity=float(weighted[2]),
                               bench_information=float(weighted[3]),
                               bench_ops=sum(bker.ops.values()) + sum(bker.guarded_ops.values())))
    out.sort(key=lambda m: (m.bench_id, m.train_id, m.bench_line, m.op_conflicts))
    return out


def _members(form: np.ndarray) -> list[np.ndarray]:
    """For each form id, the kernel indices holding it."""
    order = np.argsort(form, kind="stable")
    counts = np.bincount(form, minlength=int(form.max()) + 1 if len(form) else 0)
    return np.split(order, np.cumsum(counts)[:-1])
