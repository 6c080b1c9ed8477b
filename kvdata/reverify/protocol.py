"""What crosses the boundary between the parent (``worker.WarmWorker``) and the sandboxed zygote
(``zygote.zygote_main``): data classes with a JSON form, never string-keyed dicts.

``RunRequest`` goes down (one JSON line per job); ``JobStatus`` comes back in the job's
``status`` frame. The zygote is trusted code, but it runs inside the sandbox beside the
samples, so the parent validates what it reads: ``JobStatus.from_json`` never raises, and
a frame it cannot read becomes a status whose ``lost`` says why.

Between the parent (``runner.Verifier``) and the harness in the sample's process
(``harness.run_job``): ``Job`` goes down as ``job.json``; ``WorkerReport`` comes back as
``meta.json``, rewritten at every stage. That file lies in the sample's own job dir, so the
parent reads it as untrusted: ``WorkerReport.from_json`` never raises, a field of the wrong
type takes its default, and nothing in it decides a verdict on its own (the tensors do).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
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


# ----------------------------------------------------------------------------- parent <-> harness
@dataclass(frozen=True)
class Job:
    """Parent -> harness: what to run for one sample (``job.json``, deleted before candidate code runs).

    ``seeds``: the compared input sets; ``bait_seeds``: the bait's, never compared;
    ``decoy_seed``: the knockout's decoy call; ``timing_seed``: the jitter of the timed
    calls' inputs. ``cache_dir``: this sample's own compile cache. ``timing``: the
    ``config.TimingConfig`` as a dict, None for no timing.
    """

    sample: dict
    seeds: list
    bait_seeds: list
    decoy_seed: int
    timing_seed: int
    device: str
    backend: str
    cache_dir: str
    poison_mb: int = 64
    timing: Optional[dict] = None
    knockout: bool = True
    other_configs: bool = True

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, obj: Any) -> "Job":
        """The job the parent wrote (trusted: a malformed one is a bug and raises ``ValueError``)."""
        names = {f.name for f in dataclasses.fields(cls)}
        if not isinstance(obj, dict) or not set(obj) <= names:
            raise ValueError(f"not a job: {str(obj)[:200]}")
        return cls(**obj)


@dataclass(frozen=True)
class WorkerError:
    """An exception the harness caught in the sample's process."""

    type: str
    message: str
    traceback: str = ""


@dataclass
class WorkerReport:
    """Harness -> parent: what the sample's process reports besides tensors (``meta.json``).

    ``stage``: the last stage begun (``start``, ``reference``, ``compile``, ``run``, ``time``,
    ``done``): a kill mid-stage still says where. ``stage_s``: seconds per stage; ``clock``:
    monotonic times (``received``, ``done``) and the spare's ``warmup``. ``launches``: kernel
    launches per call, per round; ``torch_ops``: aten ops of every recorded call (rounds A and B, then the
    other configurations).
    """

    stage: str = "start"
    error: Optional[WorkerError] = None
    stage_s: dict = field(default_factory=dict)
    clock: dict = field(default_factory=dict)
    write_confinement: Optional[str] = None
    ref_ms: Optional[float] = None
    kernel_ms: Optional[float] = None
    ref_host_gap_ms: Optional[float] = None              # host clock minus device events, median per timed call
    kernel_host_gap_ms: Optional[float] = None
    kernel_host_ms: Optional[float] = None               # the host clock around the candidate's timed call
    compile_s: Optional[float] = None
    cache_hit: Optional[bool] = None
    compile_log: str = ""
    launches: dict = field(default_factory=dict)
    torch_ops: list = field(default_factory=list)
    torch_flops: list = field(default_factory=list)     # torch's work in each recorded candidate call (FLOPs+elements)
    ref_flops: Optional[int] = None                      # FLOPs of the reference's forward (torch_op_recorder)
    ref_elements: Optional[int] = None                   # elements its other math ops touched (torch_op_recorder)
    clock_patched: list = field(default_factory=list)    # timing entry points the candidate replaced
    recorder_evaded: list = field(default_factory=list)  # dispatch-mode entry points the candidate called
    global_changes: list = field(default_factory=list)   # process-wide settings and hook tables it changed
    config_flops: list = field(default_factory=list)     # per tested configuration: [torch's work, reference's
    #                                                      FLOPs, reference's elements]
    output_aliases_input: bool = False
    output_aliases_reference: bool = False
    background_work: bool = False
    state_dict_mismatch: bool = False
    seal_not_sent: bool = False

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, obj: Any) -> "WorkerReport":
        """The report in ``meta.json``; never raises: what is missing or mistyped keeps its default."""
        report = cls()
        if not isinstance(obj, dict):
            return report
        for f in dataclasses.fields(cls):
            if f.name not in obj:
                continue
            try:
                setattr(report, f.name, _REPORT_PARSERS[f.name](obj[f.name]))
            except (TypeError, ValueError, KeyError):
                pass
        return report


def _error(v) -> WorkerError:
    if not isinstance(v, dict):
        raise TypeError("not an error object")
    return WorkerError(_str(v["type"]), _str(v["message"]), _str(v.get("traceback", "")))


def _dict(v) -> dict:
    if not isinstance(v, dict):
        raise TypeError("not an object")
    return v


def _list(v) -> list:
    if not isinstance(v, list):
        raise TypeError("not a list")
    return v


_REPORT_PARSERS = {
    "stage": _str, "error": _optional(_error), "stage_s": _dict, "clock": _dict,
    "write_confinement": _optional(_str), "ref_ms": _optional(_number), "kernel_ms": _optional(_number),
    "ref_host_gap_ms": _optional(_number), "kernel_host_gap_ms": _optional(_number),
    "kernel_host_ms": _optional(_number),
    "compile_s": _optional(_number), "cache_hit": _optional(_bool), "compile_log": _str, "launches": _dict,
    "torch_ops": _list, "torch_flops": _list, "ref_flops": _optional(_number),
    "ref_elements": _optional(_number), "clock_patched": _list,
    "recorder_evaded": _list, "global_changes": _list, "config_flops": _list,
    "output_aliases_input": _bool, "output_aliases_reference": _bool,
    "background_work": _bool, "state_dict_mismatch": _bool, "seal_not_sent": _bool,
}


# ----------------------------------------------------------------------------- runner -> store
@dataclass
class ResultRow:
    """One sample's verification result: what ``runner.Verifier.verify`` returns, executors carry back
    (across Ray's process boundary too) and the store appends. The parquet columns are
    ``schema.RESULT_SCHEMA``; ``stage_s``, ``spare_warmup_s`` and ``judge_s`` are JSONL-only diagnostics.
    """

    id: str
    status: str = "skipped"
    correct: bool = False
    flags: list = field(default_factory=list)
    message: str = ""
    max_abs_err: Optional[float] = None
    ref_ms: Optional[float] = None
    kernel_ms: Optional[float] = None
    speedup: Optional[float] = None
    backend: Optional[str] = None
    portability: Optional[bool] = None
    hardware: Optional[str] = None
    arch: Optional[str] = None
    torch_version: Optional[str] = None
    triton_version: Optional[str] = None
    rocm_version: Optional[str] = None
    compiler: Optional[str] = None
    isolation: Optional[str] = None
    compile_ok: Optional[bool] = None
    cache_hit: Optional[bool] = None
    seeds: Optional[list] = None
    atol: Optional[float] = None
    rtol: Optional[float] = None
    config_hash: Optional[str] = None
    subset: Optional[str] = None
    task_name: Optional[str] = None
    language: Optional[str] = None
    wall_s: Optional[float] = None
    overhead_s: Optional[float] = None
    peak_rss_mb: Optional[float] = None
    verified_at: Optional[str] = None
    torch_compute_ops: Optional[list] = None
    knockout: Optional[str] = None
    generalises: Optional[str] = None      # other sizes and value ranges: "true", "false: ...", "untested: ..."
    timed_outputs_checked: Optional[bool] = None
    sanitizer: Optional[str] = None
    stage_s: Optional[dict] = None
    spare_warmup_s: Optional[dict] = None
    judge_s: Optional[float] = None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)
