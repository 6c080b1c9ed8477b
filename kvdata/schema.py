"""The columns of every config, in one place.

A row travels as a data class (``KernelRecord`` / ``QARecord``) from a builder to the
pipeline, which turns it into an Arrow row with ``to_row()`` and writes it under the
Arrow schema of its config (``arrow_schema(config)``). ``datasets.Features`` for the
same config come from ``features(config)``. Rejected input travels as ``Reject``.

Re-verification and the overlap audit read these same columns; re-verification's own results
have theirs too (``RESULT_SCHEMA``).
"""
from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from enum import Enum
from typing import Any, Optional

import pyarrow as pa

KERNEL_CONFIGS: tuple[str, ...] = ("hip_cudaagent", "hip_gpumode", "hip2hip", "triton")
QA_CONFIG = "qa"
ALL_CONFIGS: tuple[str, ...] = KERNEL_CONFIGS + (QA_CONFIG,)
LANGUAGES = ("hip", "triton")
QA_LIBRARIES = ("rocblas", "rocsolver")

# Default comparison tolerances of the upstream evaluation, per language.
DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {  # language -> (atol, rtol)
    "hip": (1e-4, 1e-4),
    "triton": (1e-3, 1e-4),
}


class RejectReason(str, Enum):
    """Why an input record did not become a row. Every reject carries exactly one."""

    BAD_JSON = "bad_json"                    # a line / file that does not parse
    BAD_ENCODING = "bad_encoding"            # bytes that are not UTF-8
    MISSING_FILE = "missing_file"            # a file the record points to does not exist
    UNREADABLE = "unreadable"                # exists but cannot be read (permissions, I/O, a directory)
    MISSING_FIELD = "missing_field"          # a required field is absent or of the wrong type
    EMPTY_CODE = "empty_code"                # a code field is empty or whitespace only
    NO_MODEL_CLASS = "no_model_class"        # reference lacks `class Model(nn.Module)`
    NO_GET_INPUTS = "no_get_inputs"          # reference lacks `get_inputs()`
    NO_KERNEL = "no_kernel"                  # kernel code lacks a @triton.jit kernel / PYBIND11_MODULE
    SYNTAX_ERROR = "syntax_error"            # Python code that does not parse
    MISSING_LICENSE = "missing_license"      # no license could be found
    UNKNOWN_LICENSE = "unknown_license"      # a license text / name that maps to no SPDX id
    LICENSE_NOT_ALLOWED = "license_not_allowed"  # an SPDX id outside the build's allow-list
    COMPILE_FAILED = "compile_failed"        # upstream evaluation: did not compile
    RUN_FAILED = "run_failed"                # upstream evaluation: did not run
    MISMATCH = "mismatch"                    # upstream evaluation: wrong output
    NOT_FASTER = "not_faster"                # upstream evaluation: speedup <= 1
    BASELINE_ONLY = "baseline_only"          # upstream evaluation of the baseline itself, not of a rewrite
    MALFORMED = "malformed"                  # structure broken: unclosed comment / group, duplicated entry
    NO_DECLARATION = "no_declaration"        # a documented API group that declares no function
    UNGROUNDED = "ungrounded"                # QA answer not found in the text it was mined from
    BOILERPLATE = "boilerplate"              # QA answer repeated across the tree, or nothing beyond a type
    DUPLICATE_EXACT = "duplicate_exact"      # same normalised text as a kept row
    DUPLICATE_NEAR = "duplicate_near"        # MinHash near-duplicate of a kept row
    OTHER = "other"                          # anything else a builder caught; the message says what


@dataclass
class Provenance:
    """Where a row came from. Kernel rows fill repo/path/commit/pipeline/generator;
    QA rows fill repo/path/commit and the line range the answer was mined from."""

    repo: Optional[str] = None          # upstream repo id or URL
    path: Optional[str] = None          # path inside the upstream tree / file
    commit: Optional[str] = None        # commit sha or version tag
    pipeline: Optional[str] = None      # which generation pipeline produced it
    generator: Optional[str] = None     # model / agent / tool that wrote the code
    retrieved: Optional[str] = None     # ISO date the input was read
    line_start: Optional[int] = None    # 1-based, inclusive (QA)
    line_end: Optional[int] = None      # 1-based, inclusive (QA)
    dirty: Optional[bool] = None        # the git checkout had uncommitted changes when read (null: not a checkout)
    upstream: Optional[str] = None      # JSON: what the upstream record said that no column holds (info.json keys...)


@dataclass
class Verification:
    """What an execution check recorded. Null fields mean unknown, never 'false'."""

    hardware: Optional[str] = None      # e.g. "AMD Instinct MI325X", "NVIDIA H200", "cpu-interpreter"
    arch: Optional[str] = None          # e.g. "gfx942", "sm_90"
    rocm_version: Optional[str] = None
    torch_version: Optional[str] = None
    triton_version: Optional[str] = None
    compiler: Optional[str] = None      # e.g. "hipcc 6.3.1"
    compile_ok: Optional[bool] = None
    correct: Optional[bool] = None
    atol: Optional[float] = None
    rtol: Optional[float] = None
    ref_ms: Optional[float] = None      # the PyTorch reference's time (never another kernel's)
    kernel_ms: Optional[float] = None
    speedup: Optional[float] = None     # over what: ``speedup_over``
    verified_at: Optional[str] = None   # ISO timestamp
    baseline_ms: Optional[float] = None  # hip2hip: the baseline HIP kernel's time (AMD's eval kit calls it pytorch_time_ms)
    speedup_over: Optional[str] = None  # "pytorch" (ref_ms / kernel_ms) or "baseline_kernel" (baseline_ms / kernel_ms)


@dataclass
class KernelRecord:
    """One row of a kernel config (hip_cudaagent, hip_gpumode, hip2hip, triton)."""

    subset: str
    source: str                         # the Source that produced it, e.g. "hip_gpumode"
    language: str                       # "hip" | "triton"
    task_name: str
    pytorch_code: Optional[str]         # KernelBench-style reference; null only for mined kernels without one
    kernel_code: str
    license: str                        # SPDX expression
    provenance: Provenance
    pytorch_functional_code: Optional[str] = None
    baseline_kernel_code: Optional[str] = None   # hip2hip: the code before optimisation
    verification: Optional[Verification] = None
    variant: Optional[str] = None       # distinguishes several kernels for one task
    license_source: Optional[str] = None    # "file" (its own header), "declared" or "tree" (kvdata.licenses)
    license_relied_on: Optional[str] = None  # the part of an OR expression the build's allow-list relied on
    id: str = ""                        # filled by ``stable_id`` when empty

    def __post_init__(self) -> None:
        if not self.id:
            self.id = stable_id(self.subset, self.task_name, self.variant or "",
                                self.provenance.path or "", self.kernel_code)

    def to_row(self) -> dict[str, Any]:
        return _to_row(self)


@dataclass
class QARecord:
    """One row of the qa config."""

    subset: str
    library: str                        # "rocblas" | "rocsolver"
    kind: str                           # what the question asks about: "purpose", "parameter", ...
    question: str
    answer: str
    symbol: str                         # API name, e.g. "rocblas_sgemm"
    license: str                        # SPDX expression
    provenance: Provenance
    license_source: Optional[str] = None    # "file", "declared" or "tree" (kvdata.licenses)
    license_relied_on: Optional[str] = None  # the part of an OR expression the build's allow-list relied on
    id: str = ""

    def __post_init__(self) -> None:
        if not self.id:
            self.id = stable_id(self.subset, self.library, self.symbol, self.kind, self.question)

    def to_row(self) -> dict[str, Any]:
        return _to_row(self)


@dataclass
class Reject:
    """An input record that did not become a row, and why."""

    source: str                         # Source name
    ref: str                            # locator of the input record: path, path:line, json index
    reason: RejectReason
    message: str = ""
    config: Optional[str] = None
    id: Optional[str] = None            # the row id it would have had, where known

    def to_row(self) -> dict[str, Any]:
        """The rejects.parquet row. Its texts are made writable: a reject may quote the very text that made it
        one (a task name holding a lone surrogate, which JSON can carry and UTF-8 cannot)."""
        return {"id": utf8_safe(self.id), "source": utf8_safe(self.source), "ref": utf8_safe(self.ref),
                "reason": RejectReason(self.reason).value, "message": utf8_safe(self.message),
                "config": utf8_safe(self.config)}


def utf8_safe(text: Optional[str]) -> Optional[str]:
    """``text``, with anything UTF-8 cannot encode (lone surrogates) written as a backslash escape."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def stable_id(*parts: str) -> str:
    """A short id that depends only on content, so rebuilds give the same ids.

    ``parts[0]`` (the subset) is kept readable as the prefix: ``triton-3f2a...``.
    """
    h = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:20]
    return f"{parts[0]}-{h}"


def _to_row(obj: Any) -> dict[str, Any]:
    return dataclasses.asdict(obj)


# ---------------------------------------------------------------- Arrow schemas
PROVENANCE_TYPE = pa.struct([
    ("repo", pa.string()), ("path", pa.string()), ("commit", pa.string()),
    ("pipeline", pa.string()), ("generator", pa.string()), ("retrieved", pa.string()),
    ("line_start", pa.int64()), ("line_end", pa.int64()), ("dirty", pa.bool_()),
    ("upstream", pa.string()),
])

VERIFICATION_TYPE = pa.struct([
    ("hardware", pa.string()), ("arch", pa.string()), ("rocm_version", pa.string()),
    ("torch_version", pa.string()), ("triton_version", pa.string()), ("compiler", pa.string()),
    ("compile_ok", pa.bool_()), ("correct", pa.bool_()),
    ("atol", pa.float64()), ("rtol", pa.float64()),
    ("ref_ms", pa.float64()), ("kernel_ms", pa.float64()), ("speedup", pa.float64()),
    ("verified_at", pa.string()), ("baseline_ms", pa.float64()), ("speedup_over", pa.string()),
])

KERNEL_SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("subset", pa.string(), nullable=False),
    pa.field("source", pa.string(), nullable=False),
    pa.field("language", pa.string(), nullable=False),
    pa.field("task_name", pa.string(), nullable=False),
    pa.field("variant", pa.string()),
    pa.field("pytorch_code", pa.string()),
    pa.field("pytorch_functional_code", pa.string()),
    pa.field("kernel_code", pa.string(), nullable=False),
    pa.field("baseline_kernel_code", pa.string()),
    pa.field("license", pa.string(), nullable=False),
    pa.field("license_source", pa.string()),
    pa.field("license_relied_on", pa.string()),
    pa.field("provenance", PROVENANCE_TYPE, nullable=False),
    pa.field("verification", VERIFICATION_TYPE),
])

QA_SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("subset", pa.string(), nullable=False),
    pa.field("library", pa.string(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),
    pa.field("question", pa.string(), nullable=False),
    pa.field("answer", pa.string(), nullable=False),
    pa.field("symbol", pa.string(), nullable=False),
    pa.field("license", pa.string(), nullable=False),
    pa.field("license_source", pa.string()),
    pa.field("license_relied_on", pa.string()),
    pa.field("provenance", PROVENANCE_TYPE, nullable=False),
])

REJECT_SCHEMA = pa.schema([
    pa.field("id", pa.string()),
    pa.field("source", pa.string(), nullable=False),
    pa.field("ref", pa.string(), nullable=False),
    pa.field("reason", pa.string(), nullable=False),
    pa.field("message", pa.string()),
    pa.field("config", pa.string()),
])

# The kernel columns re-verification needs from any input (a built config, JSONL, parquet).
REVERIFY_COLUMNS = ("id", "language", "pytorch_code", "kernel_code", "pytorch_functional_code")

# One re-verification result per sample and backend (``reverify.store``: JSONL while running, parquet at the end).
RESULT_SCHEMA = pa.schema([
    ("id", pa.string()), ("status", pa.string()), ("correct", pa.bool_()), ("flags", pa.list_(pa.string())),
    ("message", pa.string()), ("max_abs_err", pa.float64()), ("ref_ms", pa.float64()), ("kernel_ms", pa.float64()),
    ("speedup", pa.float64()), ("backend", pa.string()), ("portability", pa.bool_()), ("hardware", pa.string()),
    ("arch", pa.string()), ("torch_version", pa.string()), ("triton_version", pa.string()),
    ("rocm_version", pa.string()), ("compiler", pa.string()), ("isolation", pa.string()),
    ("compile_ok", pa.bool_()), ("cache_hit", pa.bool_()), ("seeds", pa.list_(pa.int64())), ("atol", pa.float64()),
    ("rtol", pa.float64()), ("config_hash", pa.string()), ("subset", pa.string()), ("task_name", pa.string()),
    ("language", pa.string()), ("wall_s", pa.float64()), ("overhead_s", pa.float64()), ("peak_rss_mb", pa.float64()),
    ("verified_at", pa.string()),
    ("torch_compute_ops", pa.list_(pa.string())),   # the math aten ops the candidate's forward ran (information)
    ("knockout", pa.string()),                      # what the kernel knockout showed, in short (None: not run)
    ("generalises", pa.string()),                   # other sizes and value ranges: true / false: ... / untested: ...
    ("timed_outputs_checked", pa.bool_()),          # the timed calls' outputs were compared too (None: not timed)
    ("sanitizer", pa.string()),                     # what compute-sanitizer memcheck found (None: not run)
])


def arrow_schema(config: str) -> pa.Schema:
    """The Arrow schema of a config."""
    if config in KERNEL_CONFIGS:
        return KERNEL_SCHEMA
    if config == QA_CONFIG:
        return QA_SCHEMA
    raise ValueError(f"unknown config {config!r}; expected one of {', '.join(ALL_CONFIGS)}")


def features(config: str):
    """The ``datasets.Features`` of a config (imported lazily: datasets is slow to import)."""
    from datasets import Features

    return Features.from_arrow_schema(arrow_schema(config))


def record_class(config: str):
    return QARecord if config == QA_CONFIG else KernelRecord
