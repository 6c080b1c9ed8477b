"""One verifier verdict (``kvdata.reverify.protocol.ResultRow``) -> one reward, by ``RewardConfig``.

The hierarchy (defaults in brackets)::

    reward = compile [0.4]                              if the candidate compiled (its module loaded / built)
           + correct [1.0]                              if its status is ``correct``
           + speedup_weight [1.0] * speedup_term(s)     if correct and timed (a GPU; the interpreter never times)

    speedup_term(s) = clip(log2(s) / log2(cap), 0, 1)   cap [4.0]: 2x earns half the weight, 4x and above all

Why log2 and a cap: speedups multiply, so each doubling earns the same (a linear term would let one noisy 30x
outlier outweigh many honest 1.5x kernels); a slowdown earns no speedup term but no penalty either, so a correct
slow kernel (1.4) always beats a fast wrong one (0.4); the cap keeps the policy from chasing timings that are more
likely noise or a trick than a kernel (``implausible_speedup``, above 50x, drops the term altogether).

What earns nothing: an unparseable completion, a compile error, a timeout or a crash (even after compiling: a
completion that hangs or kills its process is never paid, and it costs the most verifier time), a reference that
failed (``no_reference``), a backend that is not available (``skipped``) or a broken toolchain.
What earns the compile term only: ``incorrect``, ``runtime_error``, ``inconclusive`` (the reference is all zeros:
nothing can tell a right kernel from an empty one) and ``compiled`` (a compile-only backend such as
``hip-compile``: no GPU to run on).
A hack: ``flagged``, ``shape_specialised`` and ``range_specialised`` are verdicts whose outputs matched on the
visible inputs and a check then failed. Each flag in ``RewardConfig.flag_costs`` lowers the ceiling (``config.py``):
``compile`` caps the reward at the compile term, ``zero`` at 0, ``no_speedup`` drops the speedup term; every
failing flag costs ``compile`` or ``zero``, and such a verdict with no costed flag is capped at the compile term
anyway. So a hack never earns more than an honest wrong kernel.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from kvdata.reward.config import RewardConfig

# Outputs matched on the visible inputs, then a check failed it: judged as if correct, then capped by its flags.
WOULD_BE_CORRECT = frozenset({"flagged", "shape_specialised", "range_specialised"})
COMPILE_ONLY_STATUSES = frozenset({"incorrect", "runtime_error", "inconclusive", "compiled"})
NOTHING_STATUSES = frozenset({"compile_error", "timeout", "crashed", "no_reference", "skipped", "toolchain_error"})


@dataclass(frozen=True)
class Terms:
    """The reward and its parts; ``costs``: the flags that lowered it, ``reason``: a short code for logs."""

    reward: float
    compile: float
    correct: float
    speedup: float
    compiled: bool
    costs: tuple = ()
    reason: str = ""


def speedup_term(speedup: Optional[float], config: RewardConfig) -> float:
    """``speedup_weight * clip(log2(s) / log2(cap), 0, 1)``; 0 without a (finite, positive) speedup."""
    if speedup is None or not isinstance(speedup, (int, float)) or not math.isfinite(speedup) or speedup <= 1.0:
        return 0.0
    return config.speedup_weight * min(1.0, math.log2(speedup) / math.log2(config.speedup_cap))


def _apply(cost: Optional[str], c: float, k: float, s: float) -> tuple[float, float, float]:
    if cost == "zero":
        return 0.0, 0.0, 0.0
    if cost == "compile":
        return c, 0.0, 0.0
    if cost == "no_speedup":
        return c, k, 0.0
    return c, k, s


def reward_of(status: str, compile_ok: Optional[bool], flags, speedup: Optional[float],
              config: RewardConfig) -> Terms:
    """The reward of one verdict (see the module docstring). ``costs`` lists the flags that lowered it (each
    judged against the verdict without flags: a wrong kernel's ``range_specialised`` lowers nothing)."""
    flags = list(dict.fromkeys(flags or []))
    if status == "correct" or status in WOULD_BE_CORRECT:
        compiled = True
    elif status in COMPILE_ONLY_STATUSES:
        compiled = compile_ok is not False
    else:
        compiled = False
    matched = status == "correct" or status in WOULD_BE_CORRECT
    base = (config.compile_reward if compiled else 0.0, config.correct_reward if matched else 0.0,
            speedup_term(speedup, config) if matched else 0.0)
    c, k, s = base
    costs = []
    for flag in flags:
        cost = config.cost_of(flag)
        if _apply(cost, *base) != base:
            costs.append(f"{flag}:{cost}")
        c, k, s = _apply(cost, c, k, s)
    if status in WOULD_BE_CORRECT and k > 0:        # a failing check whose flag has no cost: still not correct
        c, k, s = _apply("compile", c, k, s)
        costs.append(f"{status}:compile")
    named = [x.rsplit(":", 1)[0] for x in costs if x.rsplit(":", 1)[0] != status]
    if status in NOTHING_STATUSES or not named:
        reason = "correct+speedup" if status == "correct" and s > 0 else status
    else:
        reason = f"{status}:{','.join(named)}"
    return Terms(reward=round(c + k + s, 6), compile=c, correct=k, speedup=s, compiled=compiled, costs=tuple(costs),
                 reason=reason)
