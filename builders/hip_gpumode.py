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

from kvdata.builders.base import Item, UnitSource
from kvdata.builders.common import COMMON_OPTIONS, check_hip_extension, check_reference, \
    is_problem, list_files, make_provenance, read_functional, read_text, relative, \
    verification_from_options
from kvdata.schema import KernelRecord, Reject, RejectReason

MODULE_DIR = "pytorch_code_module"
FUNCTIONAL_DIR = "pytorch_code_functional"
VARIANT_DIRS = ("hip_code", "hip_opt")

_NUMBERED = re.compile(r"^(?P<task>.+)_(?P<n>\d+)$")


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


class HipGpuModeSource(UnitSource):
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

    # ``read`` (UnitSource) is ``unit_to_item`` over ``read_units``: listing the tree and the
    # license are done once, in the main process; reading and checking a variant and its
    # references (the costly half) can run in the build's worker processes.
    def read_units(self) -> Iterator[object]:
        """A Reject for a tree-level problem or a task without variants, else one
        ``(hip path, variant, task or None, tree license)`` per ``.hip`` file."""
        fs, root = self.tree()
        module_dir = posixpath.join(root, MODULE_DIR)
        if not _is_dir(fs, module_dir):
            yield self.reject(self.path, RejectReason.MISSING_FILE, f"{MODULE_DIR}/ not found under {self.path}")
            return
        modules = {relative(p, module_dir)[:-3]: p for p in list_files(fs, module_dir, ".py")
                   if "/" not in relative(p, module_dir)}  # one level: <task>.py
        license_ = self.tree_license(fs, root)
        self.revision()
        tasks = set(modules)
        with_variant: set[str] = set()
        for variant_dir in VARIANT_DIRS:
            folder = posixpath.join(root, variant_dir)
            for hip_path in list_files(fs, folder, ".hip"):
                stem = relative(hip_path, folder)[: -len(".hip")]
                task = task_of_variant(stem, tasks)
                if task is not None:
                    with_variant.add(task)
                yield hip_path, f"{variant_dir}/{stem}", task, license_
        for task in sorted(tasks - with_variant):
            yield self.reject(relative(modules[task], root), RejectReason.NO_KERNEL,
                              f"task {task} has no HIP variant under {' or '.join(VARIANT_DIRS)}/")

    def unit_to_item(self, unit) -> Item:
        if isinstance(unit, Reject):
            return unit
        hip_path, variant, task, tree = unit
        fs, root = self.tree()
        return self._variant(fs, root, hip_path, variant, task, self.per_process("references", dict), tree)

    # ------------------------------------------------------------- one variant file
    def _variant(self, fs, root, hip_path, variant, task, references, tree) -> Item:
        ref = relative(hip_path, root)
        if task is None:
            return self.reject(ref, RejectReason.MISSING_FILE,
                               f"no {MODULE_DIR}/<task>.py for variant {variant} "
                               f"(task would be {guessed_task(variant.split('/', 1)[1])!r})")
        kernel = read_text(fs, hip_path)
        if is_problem(kernel):
            return self.reject(ref, *kernel)
        license_, problem = self.row_license(kernel, tree)
        if problem:
            return self.reject(ref, *problem)
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
            provenance=make_provenance(self.path, self.options, ref, self.pipeline, self.revision()), variant=variant,
            **license_,
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
