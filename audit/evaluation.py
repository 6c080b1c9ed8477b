"""How well the audit finds what it should: recall on labelled paraphrases, false flags on labelled look-alikes.

A labelled suite is a folder with a ``manifest.json``: a list of cases ``{"file", "kind": "paraphrase" |
"lookalike", "reference": {"level", "name"}, "category", "split"}``. Every case file becomes a training row; the
benchmark side is the referenced KernelBench problems. A paraphrase counts as found when it is flagged against
its own reference; a look-alike counts as a false flag when it is flagged against the reference it imitates.

:func:`ablation` reruns the same suite with each measure switched off, so the README can say what each measure
contributes. The audit's thresholds are tuned on a development split; the held-out split only measures.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from kvdata.audit.benchmarks import BenchmarkItem
from kvdata.audit.training import TrainingRows

__all__ = ["SuiteCase", "SuiteScore", "PlantedScore", "load_suite", "score_suite", "score_planted", "ablation"]


@dataclass
class SuiteCase:
    file: str
    kind: str
    level: int
    name: str
    category: str
    split: str
    code: str


@dataclass
class SuiteScore:
    """Found paraphrases and false-flagged look-alikes, overall and per category."""

    n_paraphrases: int
    n_found: int
    n_lookalikes: int
    n_false_flags: int
    missed: list[str] = field(default_factory=list)
    false_flags: list[str] = field(default_factory=list)
    by_category: dict[str, tuple[int, int]] = field(default_factory=dict)   # category -> (found, paraphrases)

    @property
    def recall(self) -> float:
        return self.n_found / self.n_paraphrases if self.n_paraphrases else float("nan")

    @property
    def false_flag_rate(self) -> float:
        return self.n_false_flags / self.n_lookalikes if self.n_lookalikes else float("nan")

    def to_json(self) -> dict:
        return {"recall": self.recall, "false_flag_rate": self.false_flag_rate, "found": self.n_found,
                "paraphrases": self.n_paraphrases, "false_flags": self.n_false_flags,
                "lookalikes": self.n_lookalikes, "missed": self.missed, "false_flagged": self.false_flags,
                "by_category": {k: {"found": f, "of": n} for k, (f, n) in self.by_category.items()}}


def load_suite(folder: str | Path, split: Optional[str] = None) -> list[SuiteCase]:
    """The cases of a suite folder (``manifest.json`` beside the case files), optionally one split."""
    root = Path(folder)
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    cases = []
    for entry in manifest:
        if split and entry.get("split") != split:
            continue
        ref = entry["reference"]
        path = root / entry["file"]
        cases.append(SuiteCase(entry["file"], entry["kind"], int(ref["level"]), ref["name"],
                               entry.get("category", ""), entry.get("split", ""),
                               path.read_text(encoding="utf-8")))
    if not cases:
        raise ValueError(f"{root}: no cases{f' in split {split!r}' if split else ''}")
    return cases


def _bench_for(cases: Sequence[SuiteCase], kernelbench: Sequence[BenchmarkItem]) -> list[BenchmarkItem]:
    by_key = {(it.level, it.name): it for it in kernelbench}
    wanted = {(c.level, c.name) for c in cases}
    missing = sorted(wanted - set(by_key))
    if missing:
        raise ValueError(f"suite references problems not in the benchmark: {missing[:5]}")
    return [by_key[k] for k in sorted(wanted)]


def score_suite(cases: Sequence[SuiteCase], kernelbench: Sequence[BenchmarkItem], *, measures: Sequence[str],
                **audit_options) -> tuple[SuiteScore, object]:
    """Audit the suite's case files against their references; (score, the AuditResult)."""
    from kvdata.audit.pipeline import run_audit

    bench = _bench_for(cases, kernelbench)
    ref_id = {(it.level, it.name): it.id for it in bench}
    train = TrainingRows([c.file for c in cases], [c.code for c in cases], [None] * len(cases), "suite")
    result = run_audit(bench, train, measures=measures, **audit_options)
    flagged = {(p.bench_id, p.train_id) for p in result.flagged}
    score = SuiteScore(0, 0, 0, 0)
    per_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for c in cases:
        hit = (ref_id[(c.level, c.name)], c.file) in flagged
        if c.kind == "paraphrase":
            score.n_paraphrases += 1
            score.n_found += hit
            per_cat[c.category][0] += hit
            per_cat[c.category][1] += 1
            if not hit:
                score.missed.append(c.file)
        else:
            score.n_lookalikes += 1
            score.n_false_flags += hit
            if hit:
                score.false_flags.append(c.file)
    score.by_category = {k: (v[0], v[1]) for k, v in sorted(per_cat.items())}
    return score, result


def ablation(cases: Sequence[SuiteCase], kernelbench: Sequence[BenchmarkItem], measures: Sequence[str],
             **audit_options) -> dict[str, SuiteScore]:
    """The suite's score with every measure on (``"all"``) and with each one switched off (``"-name"``)."""
    runs = {"all": list(measures)}
    runs.update({f"-{m}": [x for x in measures if x != m] for m in measures})
    return {label: score_suite(cases, kernelbench, measures=ms, **audit_options)[0] for label, ms in runs.items()}


@dataclass
class PlantedScore:
    """Benchmark items planted in training files, found against the right file; absent ones flagged anyway."""

    n_planted: int
    n_found: int
    n_absent: int
    n_false_flags: int
    missed: list[str] = field(default_factory=list)
    false_flags: list[str] = field(default_factory=list)
    by_edit: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def recall(self) -> float:
        return self.n_found / self.n_planted if self.n_planted else float("nan")

    @property
    def false_flag_rate(self) -> float:
        return self.n_false_flags / self.n_absent if self.n_absent else float("nan")


def score_planted(truth: Sequence[dict], flagged_pairs: set[tuple[str, str]]) -> PlantedScore:
    """Score a planted-kernel corpus: ``truth`` rows ``{"bench_file", "status": "planted"|"absent",
    "library_file", "edit"}`` against the audit's flagged (bench_id, train_id) pairs."""
    flagged_items = {b for b, _ in flagged_pairs}
    score = PlantedScore(0, 0, 0, 0)
    per_edit: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in truth:
        item = row["bench_file"]
        if row["status"] == "planted":
            hit = (item, row["library_file"]) in flagged_pairs
            score.n_planted += 1
            score.n_found += hit
            per_edit[row.get("edit") or ""][0] += hit
            per_edit[row.get("edit") or ""][1] += 1
            if not hit:
                score.missed.append(item)
        else:
            score.n_absent += 1
            if item in flagged_items:
                score.n_false_flags += 1
                score.false_flags.append(item)
    score.by_edit = {k: (v[0], v[1]) for k, v in sorted(per_edit.items())}
    return score
