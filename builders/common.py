"""Small checks every builder shares: read a file safely, validate a PyTorch reference.

Each returns a problem as ``(RejectReason, message)`` instead of raising, so a
builder turns it into a Reject in one line.
"""
from __future__ import annotations

import _symtable
import ast
import datetime as _dt
import posixpath
import re
from typing import Optional, Union

import xxhash

from kvdata.schema import Provenance, RejectReason, Verification

Problem = tuple[RejectReason, str]

DEFAULT_REPO = "amd/AIG-Datasets"
_HF_URL = re.compile(r"^hf://(?:datasets/)?(?P<repo>[^/@]+/[^/@]+)(?:@(?P<rev>[^/]+))?/?(?P<rest>.*)$")

_MODEL_CLASS = re.compile(r"^\s*class\s+Model\s*\(", re.M)
_GET_INPUTS = re.compile(r"^\s*def\s+get_inputs\s*\(", re.M)
# a decorator starts its line: "# @triton.jit was removed" or a docstring's "use @triton.jit" decorates nothing
_TRITON_JIT = re.compile(r"^[ \t]*@[ \t]*triton[ \t]*\.[ \t]*(jit|autotune|heuristics)\b", re.M)
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
    """A SYNTAX_ERROR problem when ``code`` does not parse as Python, else None.

    Parsing is most of a builder's cost, and references repeat across the variants of a
    task (upstream GPU MODE: 5,910 references for 22,397 kernels), so verdicts are
    memoised per distinct text (:func:`_python_verdict`).
    """
    return _memoised(_python_verdict, code, field)


_VERDICTS: dict[tuple, Optional[Problem]] = {}
_VERDICTS_MAX = 100_000     # ~10 MB of keys; the memo restarts when full


def _memoised(check, code, field: str) -> Optional[Problem]:
    """``check(code, field)``, memoised by a 128-bit digest of the text (not the text itself,
    so that the memo stays small however large the texts)."""
    if not isinstance(code, str):
        return check(code, field)
    key = (check.__name__, field, xxhash.xxh3_128_digest(code.encode("utf-8", "surrogatepass")))
    verdict = _VERDICTS.get(key, _VERDICTS)
    if verdict is _VERDICTS:
        verdict = check(code, field)
        if len(_VERDICTS) >= _VERDICTS_MAX:
            _VERDICTS.clear()
        _VERDICTS[key] = verdict
    return verdict


def _python_verdict(code: str, field: str) -> Optional[Problem]:
    """``check_python`` uncached. Accepting code only needs the parser, not ``ast.parse``'s
    conversion of the tree into Python objects: ``symtable`` runs the same parser (and a
    symbol table pass) ~25% faster. It can only be stricter than ``ast.parse`` (the
    symbol pass rejects e.g. a module-level ``nonlocal``), so any failure is re-judged by
    ``ast.parse`` and the verdict and message are exactly the ones ``ast.parse`` gives."""
    try:
        _symtable.symtable(code, "<check>", "exec")
        return None
    except Exception:
        pass
    try:
        ast.parse(code)
    except SyntaxError as e:
        return RejectReason.SYNTAX_ERROR, f"{field}: line {e.lineno}: {e.msg}"
    except ValueError as e:  # e.g. NUL bytes
        return RejectReason.SYNTAX_ERROR, f"{field}: {e}"
    return None


def check_reference(code, field: str = "pytorch_code") -> Optional[Problem]:
    """A KernelBench-style reference: parses, defines ``class Model(...)`` and ``get_inputs()``.

    Memoised per distinct text (references repeat across a task's variants)."""
    if isinstance(code, str):
        return _memoised(_reference_verdict, code, field)
    return check_code(code, field)


def _reference_verdict(code: str, field: str) -> Optional[Problem]:
    problem = check_code(code, field) or check_python(code, field)
    if problem:
        return problem
    if not _MODEL_CLASS.search(code):
        return RejectReason.NO_MODEL_CLASS, f"{field} defines no `class Model(nn.Module)`"
    if not _GET_INPUTS.search(code):
        return RejectReason.NO_GET_INPUTS, f"{field} defines no `get_inputs()`"
    return None


def check_triton_kernel(code, field: str = "kernel_code") -> Optional[Problem]:
    """Triton kernel code: parses and has at least one ``@triton.jit`` (or autotune) decorator line."""
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
    start = code.find("PYBIND11_MODULE")   # no match can start earlier; a regex from 0 is ~25 us per file
    if start < 0 or not _PYBIND.search(code, start):
        return RejectReason.NO_KERNEL, f"{field} has no PYBIND11_MODULE binding"
    return None


# ----------------------------------------------------------------- tree layouts: paths, provenance, options
def hub_location(url: str) -> tuple[Optional[str], Optional[str], str]:
    """(repo, revision, path prefix inside the repo) of an ``hf://`` URL; (None, None, "") otherwise."""
    m = _HF_URL.match(url)
    if not m:
        return None, None, ""
    return m.group("repo"), m.group("rev"), m.group("rest").strip("/")


def relative(path: str, root: str) -> str:
    """``path`` relative to ``root``, with forward slashes (fsspec paths are POSIX-like)."""
    path, root = str(path).replace("\\", "/"), str(root).replace("\\", "/").rstrip("/")
    return path[len(root) + 1:] if path.startswith(root + "/") else path


def within(root: str, path: str) -> Optional[str]:
    """``path`` with its ``.`` and ``..`` resolved when that stays inside ``root``, else None: a path a record
    names (``generated/../../etc/x``) must not make the build read a file from outside the tree it was given."""
    root = posixpath.normpath(str(root).replace("\\", "/"))
    resolved = posixpath.normpath(str(path).replace("\\", "/"))
    if resolved == root or resolved.startswith(root.rstrip("/") + "/"):
        return resolved
    return None


def list_files(fs, folder: str, suffix: str) -> list[str]:
    """Files under ``folder`` (recursive) ending with ``suffix``, sorted; [] if the folder is absent."""
    try:
        if not fs.isdir(folder):
            return []
        return sorted(p for p in fs.find(folder) if str(p).endswith(suffix))
    except (OSError, FileNotFoundError):
        return []


def glob_sorted(fs, root: str, pattern: str) -> list[str]:
    """The paths under ``root`` matching ``pattern``, sorted; none where the tree cannot be listed."""
    try:
        return sorted(fs.glob(posixpath.join(root, pattern)))
    except (OSError, FileNotFoundError):
        return []


def make_provenance(source_path: str, options: dict, ref: str, pipeline: str, revision=None) -> Provenance:
    """Provenance of one input file: repo/commit/prefix from options, else from the tree's
    revision (``Source.revision()``: ``@REV``, git HEAD, the Hub's), else from an hf:// URL."""
    hub_repo, hub_rev, hub_prefix = hub_location(source_path)
    prefix = options.get("path_prefix", hub_prefix) or ""
    return Provenance(
        repo=options.get("repo") or hub_repo or (revision.repo if revision else None) or DEFAULT_REPO,
        path=posixpath.join(prefix, ref) if prefix else ref,
        commit=options.get("commit") or options.get("version") or (revision.commit if revision else None) or hub_rev,
        dirty=revision.dirty if revision else None,
        pipeline=options.get("pipeline", pipeline),
        generator=options.get("generator"),
        retrieved=today(),
    )


def read_functional(fs, path: str):
    """A functional reference: None when the file is absent, else its code or the problem with it."""
    try:
        if not fs.exists(path):
            return None
    except OSError:
        return None
    code = read_text(fs, path)
    if is_problem(code):
        return code
    return check_code(code, "pytorch_functional_code") or check_python(code, "pytorch_functional_code") or code


COMMON_OPTIONS = frozenset({"name", "license", "allow", "repo", "commit", "version", "path_prefix",
                            "pipeline", "generator", "hardware", "arch"})



def verification_from_options(options: dict) -> Optional[Verification]:
    """A Verification holding only where it was checked (``hardware``/``arch`` options), else None."""
    hardware, arch = options.get("hardware"), options.get("arch")
    if not hardware and not arch:
        return None
    return Verification(hardware=hardware, arch=arch)
