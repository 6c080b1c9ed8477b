"""The one record type of scoring: an :class:`Attempt` (one model's one try at one task), and the
per-model view the metrics read (:class:`ModelResults`: tasks x attempts).

Every input format (kvdata's reverify results, the generic table, KernelBench's and GEAK-eval's
result files, published counts) becomes a list of Attempts; nothing downstream knows where they
came from. Results that do not join (a task missing in one model, the same attempt twice, a task
id the clean list does not know) raise :class:`JoinError`, which says how many rows and which.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

import numpy as np


@dataclass(frozen=True)
class Attempt:
    """One attempt of one model at one task.

    ``compiled``/``correct``: the attempt built / computed the right answer (``correct`` implies
    ``compiled``). ``speedup``: reference time over kernel time, only for a correct attempt that
    was timed (None otherwise). ``attempt``: its index among the model's attempts at the task
    (0, 1, ...), which fixes "the first k" for any-of-k. ``origin``: where the row came from
    (file and line or key), for error messages.
    """

    model: str
    task: str
    attempt: int
    compiled: bool
    correct: bool
    speedup: Optional[float] = None
    origin: str = ""


class JoinError(ValueError):
    """Results that do not line up: the message names the problem, how many rows, and which."""

    def __init__(self, problem: str, items: Sequence[str] = (), limit: int = 12):
        items = list(items)
        shown = ", ".join(items[:limit]) + (f", ... ({len(items) - limit} more)" if len(items) > limit else "")
        super().__init__(f"{problem}: {len(items)} — {shown}" if items else problem)
        self.problem, self.items = problem, items


@dataclass
class ModelResults:
    """One model's attempts as arrays over its tasks (sorted by task id).

    ``compiled``/``correct``: (tasks, max attempts) booleans, False where a task has fewer attempts
    than the most (``n_attempts`` says how many each has). ``speedup``: the same shape, NaN where
    there is none.
    """

    model: str
    tasks: list[str]
    n_attempts: np.ndarray
    compiled: np.ndarray
    correct: np.ndarray
    speedup: np.ndarray
    counts_only: bool = False          # built from published totals (one attempt per task, ids invented)

    @property
    def n_tasks(self) -> int:
        return len(self.tasks)

    @property
    def min_attempts(self) -> int:
        return int(self.n_attempts.min()) if self.n_tasks else 0

    def subset(self, tasks: Iterable[str]) -> "ModelResults":
        """The same model on the given tasks only (in this model's order)."""
        wanted = set(tasks)
        keep = [i for i, t in enumerate(self.tasks) if t in wanted]
        return ModelResults(self.model, [self.tasks[i] for i in keep], self.n_attempts[keep], self.compiled[keep],
                            self.correct[keep], self.speedup[keep], self.counts_only)


def check_unique(attempts: Sequence[Attempt]) -> None:
    """JoinError when one (model, task, attempt) appears twice."""
    seen: dict[tuple, str] = {}
    dups = []
    for a in attempts:
        key = (a.model, a.task, a.attempt)
        if key in seen:
            dups.append(f"{a.model}/{a.task}#{a.attempt} ({seen[key]} and {a.origin})")
        else:
            seen[key] = a.origin
    if dups:
        raise JoinError("duplicate attempts (the same model, task and attempt twice)", dups)


def check_attempts_complete(attempts: Sequence[Attempt]) -> None:
    """JoinError when a task's attempts are not numbered 0..n-1: a lost attempt (often a crash that
    should count as a failure) would inflate pass@k and blur "the first k"."""
    seen: dict[tuple, set[int]] = {}
    for a in attempts:
        seen.setdefault((a.model, a.task), set()).add(a.attempt)
    gaps = [f"{m}/{t} (has {sorted(s)}, lacks {sorted(set(range(max(s) + 1)) - s)})"
            for (m, t), s in seen.items() if len(s) != max(s) + 1]
    if gaps:
        raise JoinError("tasks whose attempts are not numbered 0..n-1 (an attempt is missing)", gaps)


def by_model(attempts: Sequence[Attempt]) -> dict[str, ModelResults]:
    """Group attempts into one :class:`ModelResults` per model, in the order models first appear."""
    check_unique(attempts)
    check_attempts_complete(attempts)
    grouped: dict[str, dict[str, list[Attempt]]] = {}
    for a in attempts:
        grouped.setdefault(a.model, {}).setdefault(a.task, []).append(a)
    out = {}
    for model, tasks in grouped.items():
        names = sorted(tasks)
        width = max(len(v) for v in tasks.values())
        compiled = np.zeros((len(names), width), bool)
        correct = np.zeros((len(names), width), bool)
        speedup = np.full((len(names), width), np.nan)
        n = np.zeros(len(names), int)
        for i, name in enumerate(names):
            ordered = sorted(tasks[name], key=lambda a: a.attempt)
            n[i] = len(ordered)
            for j, a in enumerate(ordered):
                compiled[i, j] = bool(a.compiled or a.correct)
                correct[i, j] = bool(a.correct)
                if a.correct and a.speedup is not None and math.isfinite(a.speedup) and a.speedup > 0:
                    speedup[i, j] = float(a.speedup)
        out[model] = ModelResults(model, names, n, compiled, correct, speedup)
    return out


@dataclass(frozen=True)
class Counts:
    """A published total: ``passed`` of ``total`` tasks (``--counts name=13/31``)."""

    model: str
    passed: int
    total: int

    def as_results(self) -> ModelResults:
        """Per-task binaries with invented task ids: only unpaired statistics may use them."""
        tasks = [f"#{i}" for i in range(self.total)]
        correct = np.zeros((self.total, 1), bool)
        correct[: self.passed, 0] = True
        return ModelResults(self.model, tasks, np.ones(self.total, int), correct.copy(), correct,
                            np.full((self.total, 1), np.nan), counts_only=True)


def parse_counts(text: str) -> list[Counts]:
    """``"a=13/31,b=9/31"`` (or a percentage with its total: ``"a=33.2%/184"``) -> Counts."""
    out: list[Counts] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, frac = part.partition("=")
        passed, slash, total = frac.partition("/")
        if not sep or not slash or not name.strip():
            raise ValueError(f"--counts: expected NAME=PASSED/TOTAL (e.g. ours=13/31), got {part!r}")
        try:
            n = int(total)
            if passed.strip().endswith("%"):
                pct = float(passed.strip()[:-1])
                k = round(pct / 100 * n)
                if abs(100 * k / n - pct) > 0.051:
                    raise ValueError(f"--counts: {pct}% of {n} is no whole number of tasks ({100 * k / n:.2f}% is)")
            else:
                k = int(passed)
        except ValueError as e:
            if "--counts" in str(e):
                raise
            raise ValueError(f"--counts: {part!r} is not PASSED/TOTAL in whole numbers") from None
        if n <= 0 or not 0 <= k <= n:
            raise ValueError(f"--counts: {part!r}: need 0 <= passed <= total and total > 0")
        out.append(Counts(name.strip(), k, n))
    names = [c.model for c in out]
    if len(set(names)) != len(names):
        raise ValueError(f"--counts: a model named twice: {names}")
    return out
