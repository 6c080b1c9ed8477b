"""Re-verification settings: tolerances, seeds, limits, timing, and which flags fail a sample.

One ``ReverifyConfig`` describes a run. Tolerances resolve per row, then per subset,
then per language (``schema.DEFAULT_TOLERANCES``: the upstream evaluation's values).
``config_hash`` keys resumable results: changing anything that could change a verdict
gives a new hash, so old results are not mistaken for new ones. Seeds are *not* part
of the hash: they are drawn afresh on every run (a fixed seed could be special-cased).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import Optional

from kvdata.schema import DEFAULT_TOLERANCES

# Flags that make a sample fail even when its outputs match (status "flagged").
FAILING_FLAGS = frozenset({
    "no_kernel_launch",         # the candidate computed with torch only
    "inputs_mutated",           # the candidate wrote into its inputs
    "output_aliases_input",     # the candidate returned (a view of) one of its inputs
    "output_aliases_reference", # the candidate returned (a view of) the reference's output
    "inconsistent_runs",        # the second candidate run disagreed with the first
    "tampered_outputs",         # round A's sealed outputs were changed (or the seal withheld) after the fact
    "kernel_not_needed",        # with its kernels knocked out the answer was still right (knockout.py)
    "inconsistent_dispatch",    # a later call ran torch math the first call did not
    "timed_outputs_mismatch",   # a timed call's output was wrong: caching inside the timing loop
    "background_work",          # threads or streams still working after forward returned
    "out_of_bounds",            # compute-sanitizer memcheck found invalid memory accesses (--sanitize)
    "timer_tampered",           # the candidate replaced a timing entry point (clocks.py): no speedup either
    "global_state_changed",     # changed a process-wide torch setting or added a global module hook (global_state.py)
    "recorder_evaded",          # looked at or switched off the op recorder, or ran work in NumPy, a thread or a
                                # process of its own (recorder_guard.py)
    "torch_did_the_work",       # torch ran half the reference's FLOPs inside the candidate (checks.check_torch_share)
    "shape_specialised",        # right on the visible sizes, wrong on other ones (configs.py)
    "range_specialised",        # right on the visible values, wrong when they are scaled or shifted (configs.py)
})
# Flags recorded for the reader but not failing by default.
WARNING_FLAGS = frozenset({
    "degenerate",               # the reference is too small for the tolerance: judged on a scaled one
    "implausible_speedup",      # faster than ``speedup_limit``: suspicious timing
    "state_dict_mismatch",      # ModelNew's parameters do not match Model's by name
    "reference_nonfinite",      # the reference output itself has NaN/inf
    "fixed_inputs",             # get_inputs ignores the seed: every seed saw the same inputs
    "torch_compute",            # the candidate's forward ran torch math besides its kernels (information)
})


@dataclass
class TimingConfig:
    """GPU timing: warm-up, then ``reps`` runs each preceded by an L2 flush, median of device events."""

    enabled: bool = True        # ignored on the CPU interpreter (correctness only there)
    warmup: int = 3
    reps: int = 20
    flush_mb: int = 256         # size of the buffer written between runs to evict L2
    max_seconds: float = 10.0   # stop repeating once this much time is spent (slow kernels)


@dataclass
class ReverifyConfig:
    backend: Optional[str] = None             # None: the default backend for each sample's language
    seeds: int = 3                            # input sets per sample, each drawn fresh
    seed: Optional[int] = None                # fix the seed draw (debugging); None draws from os.urandom
    timeout_s: float = 300.0                  # whole sample: reference + compile + runs + timing
    memory_mb: int = 8192                     # resident memory of the worker's process tree (host RAM)
    poison_mb: int = 64                       # NaN block written and freed before each candidate run
    speedup_limit: float = 50.0               # speedups above this are flagged `implausible_speedup`
    tolerances: dict = field(default_factory=dict)          # language -> [atol, rtol]
    subset_tolerances: dict = field(default_factory=dict)   # subset -> [atol, rtol]
    failing_flags: frozenset = FAILING_FLAGS
    timing: TimingConfig = field(default_factory=TimingConfig)
    sanitize: Optional[bool] = None           # one seed under compute-sanitizer; None: on for portability runs
    knockout: bool = True                     # rerun every seed with the kernels disabled (off: measuring its cost)
    other_configs: bool = True                # also judge other sizes and value ranges (configs.py; off: --visible-only)
    # Warm-up only (never a verdict, so not in config_hash): processes forked ahead per worker
    # (None: 3 on a GPU, 1 on the CPU; 0: fork each sample's process when its job arrives),
    # and whether those rehearse the harness's GPU work before their job (rehearsal.py).
    spares_ahead: Optional[int] = None
    rehearse: bool = True

    def tolerance(self, language: str, subset: Optional[str] = None,
                  row_atol: Optional[float] = None, row_rtol: Optional[float] = None) -> tuple[float, float]:
        """(atol, rtol) for a row: the row's own values win, then the subset's, then the language's."""
        atol, rtol = self.tolerances.get(language) or DEFAULT_TOLERANCES.get(language, (1e-4, 1e-4))
        if subset and subset in self.subset_tolerances:
            atol, rtol = self.subset_tolerances[subset]
        atol = row_atol if row_atol is not None else atol
        rtol = row_rtol if row_rtol is not None else rtol
        return float(atol), float(rtol)

    def config_hash(self) -> str:
        """Hash of everything that can change a verdict (not the seeds, not the limits)."""
        keyed = {
            "seeds": self.seeds, "poison_mb": self.poison_mb, "speedup_limit": self.speedup_limit,
            "tolerances": self.tolerances, "subset_tolerances": self.subset_tolerances,
            "failing_flags": sorted(self.failing_flags), "timing": dataclasses.asdict(self.timing),
            "sanitize": self.sanitize, "knockout": self.knockout, "other_configs": self.other_configs,
        }
        blob = json.dumps(keyed, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:12]

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["failing_flags"] = sorted(self.failing_flags)
        return d
