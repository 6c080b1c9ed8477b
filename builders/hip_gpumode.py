"""HIP-GPUMode: PyTorch modules with several HIP extension variants each.

Layout read (the released ``pytorch_hip_kernel_gpumode`` tree)::

    <root>/LICENSE                               (or the ``license`` option)
    <root>/pytorch_code_module/<task>.py         KernelBench-style reference: class Model, get_inputs, get_init_inputs
    <root>/pytorch_code_functional/<task>.py     optional: module_fn(...) + Model.forward(..., fn=module_fn)
    <root>/hip_code/<variant file>.hip           HIP PyTorch extensions (PYBIND11_MODULE ... m.def("forward"))
    <root>/hip_opt/<variant file>.hip            optimised variants, same naming

One input record is one ``.hip`` file; a task whose module has no variant at all is one
more input record (rejected ``no_kernel``), so every reference is accounted for.

Variant naming rule. A file stem ``S`` (path under ``hip_code/``/``hip_opt/`` without
``.hip``) belongs to task ``T`` when ``S`` is

* ``T`` itself,
* ``T_<n>`` with ``n`` all digits (``12_Gemm_3``),
* ``T__<tag>`` with any tag (``12_Gemm__lds_tiled``), or
* ``T/<anything>`` (one folder per task).

Only tasks that have a module file count, and when several match the longest ``T``
wins, so ``12_Gemm_ReLU_2`` goes to ``12_Gemm_ReLU`` and never to ``12_Gemm``. A stem
that matches no task (``12_Gemm_ReLU_2`` when only ``12_Gemm`` exists) is rejected
``missing_file``: its reference is absent, and it is *not* silently given to the
shorter task. An exact task name always wins over the ``_<n>`` reading.

Paths may be fsspec URLs (``hf://datasets/amd/AIG-Datasets/v0.1/.../pytorch_hip_kernel_gpumode``,
or ``tar://::<url-of-archive>`` for the tarred release); for ``hf://`` roots the Hub
repo and the in-repo path prefix are taken from the URL.
"""
from __future__ import annotations

import posixpath
import re
from typing import Iterator, Optional

from kvdata.builders.base import Item, Source, open_fs
from kvdata.builders.common import check_code, check_hip_extension, check_python, check_reference, \
    is_problem, read_text, today
from kvdata.licenses import resolve_allowed, resolve_license
from kvdata.schema import KernelRecord, Provenance, RejectReason, Verification

MODULE_DIR = "pytorch_code_module"
FUNCTIONAL_DIR = "pytorch_code_functional"
VARIANT_DIRS = ("hip_code", "hip_opt")
DEFAULT_REPO = "amd/AIG-Datasets"

_NUMBERED = re.compile(r"^(?P<task>.+)_(?P<n>\d+)$")
_HF_URL = re.compile(r"^hf://(?:datasets/)?(?P<repo>[^/@]+/[^/@]+)(?:@(?P<rev>[^/]+))?/?(?P<rest>.*)$")


# ----------------------------------------------------------------- shared helpers (used by hip2hip/cudaagent)
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


def list_files(fs, folder: str, suffix: str) -> list[str]:
    """Files under ``folder`` (recursive) ending with ``suffix``, sorted; [] if the folder is absent."""
    try:
        if not fs.isdir(folder):
            return []
        return sorted(p for p in fs.find(folder) if str(p).endswith(suffix))
    except (OSError, FileNotFoundError):
        return []


def make_provenance(source_path: str, options: dict, ref: str, pipeline: str) -> Provenance:
    """Provenance of one input file: repo/commit/prefix from options, else from an hf:// URL."""
    hub_repo, hub_rev, hub_prefix = hub_location(source_path)
    prefix = options.get("path_prefix", hub_prefix) or ""
    return Provenance(
        repo=options.get("repo") or hub_repo or DEFAULT_REPO,
        path=posixpath.join(prefix, ref) if prefix else ref,
        commit=options.get("commit") or options.get("version") or hub_rev,
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


def check_known_options(kind: str, options: dict, known: frozenset) -> None:
    """Raise ValueError for an option the Source does not know (a typo would otherwise be ignored)."""
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"{kind}: unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")


def tree_license(fs, root: str, declared, options: dict):
    """(SPDX, problem) of a tree. The allow-list is the build's job (its FilterLicenses step);
    a Source applies one only when given the ``allow`` option, so a build with a wider
    allow-list than the default still sees every row."""
    allow = options.get("allow")
    if allow is not None:
        return resolve_allowed(fs, root, declared, [allow] if isinstance(allow, str) else allow)
    return resolve_license(fs, root, declared)


def verification_from_options(options: dict) -> Optional[Verification]:
    """A Verification holding only where it was checked (``hardware``/``arch`` options), else None."""
    hardware, arch = options.get("hardware"), options.get("arch")
    if not hardware and not arch:
        return None
    return Verification(hardware=hardware, arch=arch)


# ----------------------------------------------------------------- variant naming
def task_of_variant(stem: str, tasks: set[str]) -> Optional[str]:
    """The task a variant stem belongs to under the naming rule of this module, or None."""
    if stem in tasks:
        return stem
    if "/" in stem:
        head = stem.split("/", 1)[0]
        return head if head in tasks else None
    best: Optional[str] = None
    m = _NUMBERED.match(stem)
    if m and m.group("task") in tasks:
        best = m.group("task")
    start = 0
    while (i := stem.find("__", start)) > 0:
        candidate = stem[:i]
        if candidate in tasks and (best is None or len(candidate) > len(best)):
            best = candidate
        start = i + 1
    return best


def guessed_task(stem: str) -> str:
    """A readable task name for a variant whose task is unknown (for the reject message)."""
    stem = stem.split("/", 1)[0].split("__", 1)[0]
    m = _NUMBERED.match(stem)
    return m.group("task") if m else stem


class HipGpuModeSource(Source):
    """PyTorch module + functional references with HIP extension variants (hip_code/, hip_opt/).

    Options: ``license`` (declared SPDX name; else the root LICENSE file), ``allow`` (an SPDX
    allow-list applied here; by default none, the build filters), ``repo``, ``commit``, ``path_prefix``,
    ``generator``, ``hardware``/``arch`` (where the variants were checked), ``name``.
    """

    kind = "hip_gpumode"
    config = "hip_gpumode"
    pipeline = "gpumode"
    description = "HIP-GPUMode: PyTorch references with several HIP extension variants per task"
    options_known = COMMON_OPTIONS

    def __init__(self, path: str, **options) -> None:
        super().__init__(path, **options)
        check_known_options(self.kind, options, self.options_known)

    def read(self) -> Iterator[Item]:
        fs, root = open_fs(self.path)
        root = root.rstrip("/")
        module_dir = posixpath.join(root, MODULE_DIR)
        if not _is_dir(fs, module_dir):
            yield self.reject(self.path, RejectReason.MISSING_FILE, f"{MODULE_DIR}/ not found under {self.path}")
            return
        modules = {relative(p, module_dir)[:-3]: p for p in list_files(fs, module_dir, ".py")
                   if "/" not in relative(p, module_dir)}  # one level: <task>.py
        spdx, license_problem = tree_license(fs, root, self.options.get("license"), self.options)
        tasks = set(modules)
        with_variant: set[str] = set()
        references: dict[str, tuple] = {}
        for variant_dir in VARIANT_DIRS:
            folder = posixpath.join(root, variant_dir)
            for hip_path in list_files(fs, folder, ".hip"):
                stem = relative(hip_path, folder)[: -len(".hip")]
                task = task_of_variant(stem, tasks)
                if task is not None:
                    with_variant.add(task)
                yield self._variant(fs, root, hip_path, f"{variant_dir}/{stem}", task,
                                    references, spdx, license_problem)
        for task in sorted(tasks - with_variant):
            yield self.reject(relative(modules[task], root), RejectReason.NO_KERNEL,
                              f"task {task} has no HIP variant under {' or '.join(VARIANT_DIRS)}/")

    # ------------------------------------------------------------- one variant file
    def _variant(self, fs, root, hip_path, variant, task, references, spdx, license_problem) -> Item:
        ref = relative(hip_path, root)
        if task is None:
            return self.reject(ref, RejectReason.MISSING_FILE,
                               f"no {MODULE_DIR}/<task>.py for variant {variant} "
                               f"(task would be {guessed_task(variant.split('/', 1)[1])!r})")
        if license_problem:
            return self.reject(ref, *license_problem)
        kernel = read_text(fs, hip_path)
        if is_problem(kernel):
            return self.reject(ref, *kernel)
        problem = check_hip_extension(kernel)
        if problem:
            return self.reject(ref, *problem)
        if task not in references:
            references[task] = self._references(fs, root, task)
        module, functional = references[task]
        if is_problem(module):
            return self.reject(ref, module[0], f"reference of {task}: {module[1]}")
        if is_problem(functional):
            return self.reject(ref, functional[0], f"functional reference of {task}: {functional[1]}")
        return KernelRecord(
            subset=self.config, source=self.name, language="hip", task_name=task,
            pytorch_code=module, pytorch_functional_code=functional, kernel_code=kernel,
            license=spdx, provenance=make_provenance(self.path, self.options, ref, self.pipeline), variant=variant,
            verification=verification_from_options(self.options),
        )

    def _references(self, fs, root, task):
        """(module code or problem, functional code / None / problem) of a task, read once."""
        module = read_text(fs, posixpath.join(root, MODULE_DIR, f"{task}.py"))
        if not is_problem(module):
            module = check_reference(module) or module
        functional = read_functional(fs, posixpath.join(root, FUNCTIONAL_DIR, f"{task}.py"))
        return module, functional


def _is_dir(fs, path: str) -> bool:
    try:
        return fs.isdir(path)
    except OSError:
        return False
