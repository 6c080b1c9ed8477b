"""``Verdict``: what scoring one completion returns, the reward and everything that decided it, for logging.

``score`` is the reward. ``status`` is the verifier's (``kvdata.reverify.runner.STATUSES``) or ``unparsed`` (the
completion held no code to run: ``parse_reason`` says why) or ``error`` (kvdata failed, not the completion:
``message`` says how; never cached). ``reason`` is a short code for dashboards (``formula.Terms.reason``).
``cache_hit``: the verdict came from the cache; ``runs``: how many times the harness ran this exact completion for
this task in this service (1 after a first run and after every later hit). ``row``: the verifier's full result
row (None when nothing ran).

``to_verl()`` flattens it for veRL's reward managers: the same keys for every completion, scalars only (veRL stacks
each key across the batch with ``np.array`` and averages the numeric ones in its validation metrics).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class Verdict:
    score: float
    status: str
    reason: str
    compiled: bool = False
    correct: bool = False
    compile_term: float = 0.0
    correct_term: float = 0.0
    speedup_term: float = 0.0
    speedup: Optional[float] = None
    flags: tuple = ()
    costs: tuple = ()
    parse_reason: Optional[str] = None
    message: str = ""
    backend: Optional[str] = None
    task_id: Optional[str] = None
    key: Optional[str] = None
    cache_hit: bool = False
    runs: int = 0
    wall_s: float = 0.0
    row: Optional[dict] = field(default=None, compare=False)

    @property
    def hacked(self) -> bool:
        """A flag with a ``zero`` or ``compile`` cost lowered this reward."""
        return any(c.endswith((":zero", ":compile")) for c in self.costs)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def to_verl(self) -> dict:
        """veRL's ``compute_score`` dict: ``score`` plus fixed scalar keys (``acc`` is veRL's accuracy column)."""
        return {
            "score": float(self.score), "acc": float(self.correct), "compiled": float(self.compiled),
            "correct": float(self.correct), "hacked": float(self.hacked),
            "speedup": float(self.speedup) if self.speedup is not None and math.isfinite(self.speedup) else 0.0,
            "speedup_term": float(self.speedup_term), "cache_hit": float(self.cache_hit),
            "status": self.status, "reason": self.reason, "flags": ",".join(self.flags),
            "task_id": self.task_id or "",
        }


def summarize(verdicts: list[Verdict]) -> dict:
    """Counts for a report: completions, mean reward, correct / compiled / hacked, and verdicts by reason."""
    counts: dict = {}
    for v in verdicts:
        counts[v.reason] = counts.get(v.reason, 0) + 1
    n = len(verdicts)
    return {"completions": n, "mean_reward": round(sum(v.score for v in verdicts) / n, 6) if n else 0.0,
            "correct": sum(v.correct for v in verdicts), "compiled": sum(v.compiled for v in verdicts),
            "hacked": sum(v.hacked for v in verdicts), "counts": dict(sorted(counts.items())),
            "wall_s": max((v.wall_s for v in verdicts), default=0.0)}
