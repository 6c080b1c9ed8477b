"""What crosses the boundary between the parent (``worker.WarmWorker``) and the sandboxed zygote
(``zygote.zygote_main``): data classes with a JSON form, never string-keyed dicts.

``RunRequest`` goes down (one JSON line per job); ``JobStatus`` comes back in the job's
``status`` frame. The zygote is trusted code, but it runs inside the sandbox beside the
samples, so the parent validates what it reads: ``JobStatus.from_json`` never raises, and
a frame it cannot read becomes a status whose ``lost`` says why.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Optional


@dataclass(frozen=True)
class RunRequest:
    """Parent -> zygote: run the job in ``job_dir`` (its ``job.json`` holds what to run).

    ``timeout_s`` / ``memory_mb``: the limits the zygote's watchdog enforces on the sample's
    process tree (memory_mb None: none). ``device``: the job's device (``cpu``, ``cuda``),
    which decides whether spares warm a device context. ``spares_ahead``: processes to keep
    forked for the next jobs (None: the zygote's default for the device); ``rehearse``:
    whether those rehearse the harness's GPU work (``rehearsal.py``).
    """

    job_dir: str
    timeout_s: float
    memory_mb: Optional[int] = None
    device: Optional[str] = None
    spares_ahead: Optional[int] = None
    rehearse: bool = True

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, obj: Any) -> "RunRequest":
        """The request the parent sent (trusted: a malformed one is a bug and raises ``ValueError``)."""
        if not isinstance(obj, dict) or set(obj) != {f.name for f in dataclasses.fields(cls)}:
            raise ValueError(f"not a run request: {obj!r:.200}")
        return cls(**obj)


@dataclass(frozen=True)
class ZygoteClock:
    """The zygote's view of one job's timing (``CLOCK_MONOTONIC``, the clock the child's meta uses too).

    ``dispatched``: the job was handed to its process; ``ended``: the zygote saw the
    harness finish (or the process die); ``teardown_s``: how long the job first waited for
    the previous sample's processes to end.
    """

    dispatched: float
    ended: float
    teardown_s: float


@dataclass(frozen=True)
class JobStatus:
    """How one sample's process ended, as the zygote observed it (not as the sample reported it).

    ``returncode`` / ``signal``: its exit (``-signal`` when signalled). ``timed_out`` /
    ``memory_exceeded``: the watchdog killed it past that limit. ``finished``: the harness
    wrote its done byte (its files are complete) and the zygote then ended the process.
    ``peak_rss_mb``: the tree's peak resident memory; ``wall_s``: dispatch to the end of
    teardown. ``seal``: the first bytes of the seal pipe, round A's size and sha256 sent
    before the bait ran (``harness._send_seal``), None if nothing came. ``clock``: see
    ``ZygoteClock``. ``lost``: None for a status the zygote sent; otherwise why there is none
    (the zygote died or went silent, or sent a frame that is not a valid status), and
    every other field is unknown (left at its default).
    """

    returncode: Optional[int] = None
    signal: Optional[int] = None
    timed_out: bool = False
    memory_exceeded: bool = False
    finished: bool = False
    peak_rss_mb: Optional[float] = None
    wall_s: Optional[float] = None
    seal: Optional[bytes] = None
    clock: Optional[ZygoteClock] = None
    lost: Optional[str] = None

    def to_json(self) -> dict:
        """The status frame's body (JSON-ready: the seal as hex)."""
        body = dataclasses.asdict(self)
        body["seal"] = None if self.seal is None else self.seal.hex()
        return body

    @classmethod
    def from_json(cls, obj: Any) -> "JobStatus":
        """The status in a frame body; anything else (wrong fields, wrong types) becomes a ``lost`` status."""
        if not isinstance(obj, dict):
            return cls(lost=f"malformed status frame: expected an object, got {type(obj).__name__}")
        names = [f.name for f in dataclasses.fields(cls)]
        if set(obj) != set(names):
            missing, unknown = sorted(set(names) - set(obj)), sorted(set(obj) - set(names))
            return cls(lost=f"malformed status frame: missing {missing}, unknown {unknown}")
        values = {}
        for name in names:
            try:
                values[name] = _PARSERS[name](obj[name])
            except (TypeError, ValueError) as e:
                return cls(lost=f"malformed status frame: {name}={obj[name]!r:.100} ({e})")
        return cls(**values)


def _optional(parse):
    return lambda v: None if v is None else parse(v)


def _int(v) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("not an integer")
    return v


def _bool(v) -> bool:
    if not isinstance(v, bool):
        raise TypeError("not a boolean")
    return v


def _number(v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise TypeError("not a finite number")
    return float(v)


def _str(v) -> str:
    if not isinstance(v, str):
        raise TypeError("not a string")
    return v


def _clock(v) -> ZygoteClock:
    names = [f.name for f in dataclasses.fields(ZygoteClock)]
    if not isinstance(v, dict) or set(v) != set(names):
        raise ValueError(f"clock needs exactly {names}")
    return ZygoteClock(**{name: _number(v[name]) for name in names})


_PARSERS = {
    "returncode": _optional(_int), "signal": _optional(_int),
    "timed_out": _bool, "memory_exceeded": _bool, "finished": _bool,
    "peak_rss_mb": _optional(_number), "wall_s": _optional(_number),
    "seal": _optional(lambda v: bytes.fromhex(_str(v))),
    "clock": _optional(_clock), "lost": _optional(_str),
}
