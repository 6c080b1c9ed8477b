"""Small checks every builder shares: read a file safely, validate a PyTorch reference.

Each returns a problem as ``(RejectReason, message)`` instead of raising, so a
builder turns it into a Reject in one line.
"""
from __future__ import annotations

import ast
import datetime as _dt
import re
from typing import Optional, Union

from kvdata.schema import RejectReason

Problem = tuple[RejectReason, str]

_MODEL_CLASS = re.compile(r"^\s*class\s+Model\s*\(", re.M)
_GET_INPUTS = re.compile(r"^\s*def\s+get_inputs\s*\(", re.M)
_TRITON_JIT = re.compile(r"@\s*triton\s*\.\s*(jit|autotune|heuristics)\b")
_PYBIND = re.compile(r"\bPYBIND11_MODULE\s*\(")


def today() -> str:
    return _dt.date.today().isoformat()


def read_text(fs, path: str) -> Union[str, Problem]:
    """The UTF-8 text of ``path`` on ``fs``, or the problem that prevented reading it."""
    try:
        if not fs.exists(path):
            return RejectReason.MISSING_FILE, f"{path} does not exist"
        if fs.isdir(path):
            return RejectReason.UNREADABLE, f"{path} is a directory"
        with fs.open(path, "rb") as f:
            data = f.read()
    except (OSError, PermissionError) as e:
        return RejectReason.UNREADABLE, f"{path}: {e}"
    return decode(data, path)


def decode(data: bytes, where: str = "") -> Union[str, Problem]:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        return RejectReason.BAD_ENCODING, f"{where}: not UTF-8 ({e.reason} at byte {e.start})"


def is_problem(value) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], RejectReason)


def check_code(code, field: str) -> Optional[Problem]:
    """A code field must be a non-empty string."""
    if code is None:
        return RejectReason.MISSING_FIELD, f"{field} is missing"
    if not isinstance(code, str):
        return RejectReason.MISSING_FIELD, f"{field} is {type(code).__name__}, not a string"
    if not code.strip():
        return RejectReason.EMPTY_CODE, f"{field} is empty"
    return None


def check_python(code: str, field: str) -> Optional[Problem]:
    try:
        ast.parse(code)
    except SyntaxError as e:
        return RejectReason.SYNTAX_ERROR, f"{field}: line {e.lineno}: {e.msg}"
    except ValueError as e:  # e.g. NUL bytes
        return RejectReason.SYNTAX_ERROR, f"{field}: {e}"
    return None


def check_reference(code, field: str = "pytorch_code") -> Optional[Problem]:
    """A KernelBench-style reference: parses, defines ``class Model(...)`` and ``get_inputs()``."""
    problem = check_code(code, field) or check_python(code, field)
    if problem:
        return problem
    if not _MODEL_CLASS.search(code):
        return RejectReason.NO_MODEL_CLASS, f"{field} defines no `class Model(nn.Module)`"
    if not _GET_INPUTS.search(code):
        return RejectReason.NO_GET_INPUTS, f"{field} defines no `get_inputs()`"
    return None


def check_triton_kernel(code, field: str = "kernel_code") -> Optional[Problem]:
    """Triton kernel code: parses and has at least one ``@triton.jit`` (or autotune) kernel."""
    problem = check_code(code, field) or check_python(code, field)
    if problem:
        return problem
    if not _TRITON_JIT.search(code):
        return RejectReason.NO_KERNEL, f"{field} has no @triton.jit kernel"
    return None


def check_hip_extension(code, field: str = "kernel_code") -> Optional[Problem]:
    """HIP code used as a PyTorch extension: non-empty and binds a module with PYBIND11_MODULE."""
    problem = check_code(code, field)
    if problem:
        return problem
    if not _PYBIND.search(code):
        return RejectReason.NO_KERNEL, f"{field} has no PYBIND11_MODULE binding"
    return None
