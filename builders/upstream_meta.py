"""What an upstream record says about a kernel beyond its code: verification facts and the rest.

AMD's files carry metadata next to the code: an ``info.json`` entry beside a ``hip_opt/<id>/`` variant, a
row of a v0.2 table, a ``data_info`` block. Keys that say what a check found (``speedup``, ``correct``,
``compile_ok``, the times, the GPU) go into the row's ``verification``, only where the key names the fact
and the value has the right type: a string ``"yes"`` under ``correct`` is not taken for true. Every other
key, and every value that did not fit, is kept as JSON in ``provenance.upstream`` so nothing a file said is
lost. Code keys (``code`` and the caller's) are not metadata: they become columns.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional

from kvdata.schema import Verification

#: Verification field <- the upstream keys that name it (compared case-insensitively, first present wins).
VERIFICATION_KEYS: dict[str, tuple[str, ...]] = {
    "compile_ok": ("compile_ok", "compiled", "compile_success", "compiles", "is_compiled"),
    "correct": ("correct", "is_correct", "correctness", "match_ok", "passed", "pass", "accurate"),
    "speedup": ("speedup", "speed_up", "speedup_ratio"),
    "kernel_ms": ("hip_time_ms", "kernel_ms", "kernel_time_ms", "opt_time_ms", "optimized_time_ms", "time_ms"),
    "ref_ms": ("pytorch_time_ms", "ref_ms", "torch_time_ms", "eager_time_ms", "module_latency_ms"),
    "baseline_ms": ("baseline_ms", "baseline_time_ms", "origin_hip_time_ms", "baseline_latency_ms"),
    "hardware": ("hardware", "gpu", "device", "gpu_name"),
    "arch": ("arch", "gfx_arch", "gcn_arch"),
    "rocm_version": ("rocm_version", "rocm"),
    "torch_version": ("torch_version",),
    "atol": ("atol",),
    "rtol": ("rtol",),
}
_BOOLS = frozenset({"compile_ok", "correct"})
_TIMES = frozenset({"speedup", "kernel_ms", "ref_ms", "baseline_ms"})
_TOLERANCES = frozenset({"atol", "rtol"})
#: A verification holding only these is no verification: they say where or how, not what was found.
_CONTEXT_ONLY = frozenset({"hardware", "arch", "rocm_version", "torch_version", "atol", "rtol"})


@dataclass
class UpstreamMeta:
    """The verification facts and the other metadata of one upstream record."""

    verification: dict[str, Any] = field(default_factory=dict)
    other: dict[str, Any] = field(default_factory=dict)

    def merged(self, more: "UpstreamMeta") -> "UpstreamMeta":
        """Self with ``more`` under it: a key both give keeps self's value."""
        return UpstreamMeta({**more.verification, **self.verification}, {**more.other, **self.other})

    def found_something(self) -> bool:
        """Whether a fact says what a check found (a GPU name or a tolerance alone does not)."""
        return bool(set(self.verification) - _CONTEXT_ONLY)

    def to_verification(self, base: Optional[Verification] = None) -> Optional[Verification]:
        """A Verification from the facts over ``base`` (e.g. the Source's hardware options), or ``base``
        when no fact says what a check found (the context facts then stay in :meth:`upstream_json`)."""
        if not self.found_something():
            return base
        fields = {k: v for k, v in (vars(base).items() if base else ()) if v is not None}
        fields.update(self.verification)
        return Verification(**fields)

    def upstream_json(self) -> Optional[str]:
        """The metadata no column holds, as compact JSON with sorted keys, or None when there is none."""
        kept = dict(self.other)
        if not self.found_something():
            kept.update(self.verification)
        if not kept:
            return None
        return json.dumps(kept, sort_keys=True, ensure_ascii=False, default=str)


def read_meta(record: Mapping[str, Any], skip: Iterable[str] = ("code",)) -> UpstreamMeta:
    """Split an upstream record's keys into verification facts and other metadata (``skip`` keys dropped:
    they are code, read by the caller)."""
    skip = {s.lower() for s in skip}
    lowered = {str(k).lower(): k for k in record}
    meta = UpstreamMeta()
    used: set = set()
    for target, names in VERIFICATION_KEYS.items():
        for name in names:
            key = lowered.get(name)
            if key is None or key in used:
                continue
            value = _typed(target, record[key])
            if value is not None:
                meta.verification[target] = value
                used.add(key)
                break
    for key, value in record.items():
        if key in used or str(key).lower() in skip:
            continue
        meta.other[str(key)] = value
    return meta


def _typed(target: str, value: Any) -> Any:
    """``value`` as the type the verification field needs, or None when it is not one."""
    if target in _BOOLS:
        return value if isinstance(value, bool) else None
    if target in _TIMES or target in _TOLERANCES:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        value = float(value)
        if not math.isfinite(value) or value < 0 or (target in _TIMES and value == 0):
            return None
        return value
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None
