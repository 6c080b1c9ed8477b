"""HIP-GPUMode: PyTorch modules with several HIP extension variants each.

Two namings of one layout are read (docs/notes/layouts.md has the evidence for each)::

    the v0.1 release, as AMD's scripts read it              kvdata's sample naming
    <root>/pytorch_code_module/py_<id>.py                   <root>/pytorch_code_module/<task>.py
    <root>/pytorch_code_functional/py_<id>_func.py          <root>/pytorch_code_functional/<task>.py
    <root>/hip_opt/<id>/*.hip                               <root>/hip_code/<variant>.hip, hip_opt/<variant>.hip
    <root>/hip_opt/<id>/info.json
    <root>/hip_opt.tar[.gz|.tgz|.bz2|.xz]   (hip_opt packed: read member by member, never unpacked)

``<root>`` is found below whatever folder of a downloaded release the user names: the release root,
``v0.1/``, ``PyTorch_HIP_kernel_dataset/`` or the gpumode folder itself (:mod:`kvdata.builders.locate`).
The task of ``py_<id>.py`` is ``<id>``; its functional form is ``py_<id>_func.py`` (or ``<task>.py``).

**Input records.** One ``.hip`` file is one record. An ``info.json`` entry (an object whose values are
objects, AMD's converter reads their ``code``) describes the ``.hip`` file its key names (``k``, ``k.hip``
or a ``file``/``path`` field): its keys then go to that row, facts such as ``speedup`` or ``correct`` into
``verification`` and the rest into ``provenance.upstream`` (:mod:`kvdata.builders.upstream_meta`). An
entry that names no file is a record of its own, kept when it has ``code`` and rejected
``missing_field`` when it has none. Scalar values of ``info.json`` describe every file of the folder. An
``info.json`` that is not a JSON object is one ``bad_json`` record. A task whose module has no variant is
one more record (``no_kernel``), so every reference is accounted for.

**Variant naming** (a file directly under ``hip_code/``/``hip_opt/``). A stem ``S`` belongs to task ``T``
when ``S`` is ``T``, ``hip_T`` (AMD's eval kit pairs ``hip_<x>.hip`` with ``py_<x>.py``), ``T_<digits>``,
``T__<tag>`` or ``T/<anything>`` (one folder per task); the longest
matching task wins, and a stem that matches no task is rejected ``missing_file`` (its reference is absent;
it is never given to a shorter task).
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any, Iterator, Optional

from kvdata.builders.archive import ArchiveError, archive_beside, has_parent_step, member_groups
from kvdata.builders.base import Item, UnitSource
from kvdata.builders.common import COMMON_OPTIONS, check_hip_extension, check_reference, decode, \
    is_problem, list_files, make_provenance, read_functional, read_text, relative, \
    verification_from_options
from kvdata.builders.locate import AmbiguousTree, find_subtree, is_dir, is_file, release_top
from kvdata.builders.tables import json_object
from kvdata.builders.upstream_meta import UpstreamMeta, read_meta
from kvdata.schema import KernelRecord, Reject, RejectReason

MODULE_DIR = "pytorch_code_module"
FUNCTIONAL_DIR = "pytorch_code_functional"
VARIANT_DIRS = ("hip_code", "hip_opt")
INFO_FILE = "info.json"
#: The release's own folder names, heaviest first: they pick the gpumode tree below a release root.
RELEASE_PATH = ("pytorch_hip_kernel_gpumode", "PyTorch_HIP_kernel_dataset", "v0.1")
#: Keys of an info.json entry that name the file it describes.
_FILE_KEYS = ("file", "filename", "file_name", "path", "hip_file", "hip_path")

_NUMBERED = re.compile(r"^(?P<task>.+)_(?P<n>\d+)$")
_PY_MODULE = re.compile(r"^py_(?P<id>.+)\.py$")


# ----------------------------------------------------------------- naming
def module_task(filename: str) -> str:
    """The task of a module file: ``py_<id>.py`` -> ``<id>`` (the release), ``<task>.py`` -> ``<task>``."""
    m = _PY_MODULE.match(filename)
    return m.group("id") if m else filename[: -len(".py")]


def functional_names(task: str, module_file: str) -> tuple[str, ...]:
    """The functional file names that may belong to a task, in the order they are tried."""
    if _PY_MODULE.match(module_file):
        return f"py_{task}_func.py", f"py_{task}.py", f"{task}.py"
    return f"{task}.py", f"py_{task}_func.py"


def task_of_variant(stem: str, tasks: set[str]) -> Optional[str]:
    """The task a variant stem belongs to under the naming rule of this module, or None."""
    if stem in tasks:
        return stem
    if stem.startswith("hip_") and stem[4:] in tasks:      # the eval kit's hip_<x>.hip <-> py_<x>.py
        return stem[4:]
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


def is_gpumode_root(fs, folder: str) -> bool:
    return is_dir(fs, posixpath.join(folder, MODULE_DIR))


# ----------------------------------------------------------------- units
@dataclass
class VariantUnit:
    """One variant to check: a file to read (``path``) or code already read (``code``: an archive member
    or an info.json entry)."""

    ref: str                            # where it is, relative to the root (``archive!member`` in a tar)
    variant: str                        # e.g. ``hip_opt/<id>/<file>``, ``hip_opt/<id>/info.json#<key>``
    task: Optional[str]
    tree: Any                           # the tree's TreeLicense
    path: Optional[str] = None
    code: Optional[bytes] = None
    meta: Optional[UpstreamMeta] = None


@dataclass
class _Folder:
    """The files of one variant folder, and what its info.json says."""

    files: dict[str, Any]               # file name -> path (folder) or bytes (archive member)
    info: Any = None                    # the parsed info.json, a problem, or None when absent
    info_ref: str = ""


class HipGpuModeSource(UnitSource):
    """PyTorch module + functional references with HIP extension variants (hip_code/, hip_opt/, a tar).

    Options: ``license`` (declared SPDX name; else the LICENSE file of the tree or of the release above it),
    ``allow``, ``repo``, ``commit``, ``path_prefix``, ``generator``, ``hardware``/``arch`` (where the
    variants were checked), ``name``.
    """

    kind = "hip_gpumode"
    config = "hip_gpumode"
    pipeline = "gpumode"
    description = "HIP-GPUMode: PyTorch references with HIP variants (v0.1 py_<id>/hip_opt/<id>/info.json, a tar)"
    options_known = COMMON_OPTIONS

    # ``read`` (UnitSource) is ``unit_to_item`` over ``read_units``: listing the tree, the license and the
    # info.json files are read once, in the main process; reading and checking a variant and its references
    # (the costly half) can run in the build's worker processes.
    def read_units(self) -> Iterator[object]:
        fs, named = self.tree()
        try:
            found = find_subtree(fs, named, lambda f: is_gpumode_root(fs, f), RELEASE_PATH)
        except AmbiguousTree as e:
            yield self.reject(self.path, RejectReason.MISSING_FILE, str(e))
            return
        if found is None:
            yield self.reject(self.path, RejectReason.MISSING_FILE,
                              f"no {MODULE_DIR}/ at or below {self.path} (is it a gpumode tree or a release?)")
            return
        root = self._root = found.root
        from kvdata.licenses import license_root

        tree = self.tree_license(fs, license_root(fs, root, release_top(named)))
        self.revision()
        modules = self._modules(fs, root)
        self._module_files = {task: posixpath.basename(path) for task, path in modules.items()}
        tasks = set(modules)
        with_variant: set[str] = set()
        for unit in self._variant_units(fs, root, tasks, tree):
            if isinstance(unit, VariantUnit) and unit.task is not None:
                with_variant.add(unit.task)
            yield unit
        for task in sorted(tasks - with_variant):
            yield self.reject(relative(modules[task], root), RejectReason.NO_KERNEL,
                              f"task {task} has no HIP variant under {' or '.join(VARIANT_DIRS)}/")

    def _modules(self, fs, root: str) -> dict[str, str]:
        module_dir = posixpath.join(root, MODULE_DIR)
        modules: dict[str, str] = {}
        for path in list_files(fs, module_dir, ".py"):
            name = relative(path, module_dir)
            if "/" not in name:                         # one level: py_<id>.py or <task>.py
                modules.setdefault(module_task(name), path)
        return modules

    def _variant_units(self, fs, root: str, tasks: set[str], tree) -> Iterator[object]:
        for variant_dir in VARIANT_DIRS:
            folder = posixpath.join(root, variant_dir)
            if is_dir(fs, folder):
                yield from self._folder_units(fs, root, folder, variant_dir, tasks, tree)
            archive = archive_beside(fs, folder)
            if archive is not None:
                yield from self._archive_units(fs, root, archive, variant_dir, tasks, tree)

    def _folder_units(self, fs, root, folder, variant_dir, tasks, tree) -> Iterator[object]:
        groups: dict[str, _Folder] = {}
        for path in list_files(fs, folder, ""):
            name = relative(path, folder)
            parent, base = posixpath.split(name)
            if base == INFO_FILE:
                group = groups.setdefault(parent, _Folder({}))
                group.info_ref = relative(path, root)
                group.info = json_object(read_text(fs, path), group.info_ref)
            elif base.endswith(".hip"):
                groups.setdefault(parent, _Folder({})).files[base] = path
        for parent in sorted(groups):
            yield from self._group_units(groups[parent], parent, variant_dir, tasks, tree,
                                         lambda base, p=parent: relative(posixpath.join(folder, p, base), root))

    def _archive_units(self, fs, root, archive, variant_dir, tasks, tree) -> Iterator[object]:
        archive_ref = relative(archive, root)
        try:
            for group in member_groups(fs, archive):
                files: dict[str, Any] = {}
                folder = _Folder(files)
                for member in group.members:
                    ref = f"{archive_ref}!{member.name}"
                    base = posixpath.basename(member.name)
                    if has_parent_step(member.name):
                        yield self.reject(ref, RejectReason.MALFORMED,
                                          f"{ref}: a member name with '..' (tar refuses to extract it; not read)")
                    elif member.data is None:
                        yield self.reject(ref, RejectReason.UNREADABLE, f"{ref}: {member.size} bytes, too large")
                    elif base == INFO_FILE:
                        folder.info_ref = ref
                        folder.info = json_object(decode(member.data, ref), ref)
                    elif base.endswith(".hip"):
                        if base in files:      # a tar may hold one path twice: the later copy is what tar extracts
                            yield self.reject(ref, RejectReason.MALFORMED,
                                              f"{ref}: the archive holds this path again later; the later copy is read")
                        files[base] = member.data
                parent = _strip_to_variant_folder(group.folder, variant_dir, tasks)
                yield from self._group_units(folder, parent, variant_dir, tasks, tree,
                                             lambda b, f=group.folder: f"{archive_ref}!{posixpath.join(f, b)}")
        except ArchiveError as e:
            yield self.reject(archive_ref, RejectReason.UNREADABLE, str(e))

    def _group_units(self, group: _Folder, parent: str, variant_dir: str, tasks: set[str], tree,
                     ref_of) -> Iterator[object]:
        """The units of one folder of variants (``parent`` relative to the variant dir, "" for its top).

        Each ``.hip`` file is a unit, with what info.json says of it. An entry that names a file describes it; if
        its ``code`` is not that file's text it is a variant of its own as well (never dropped). Other entries
        with ``code`` are variants; without, rejects. A plain value keyed by a file's name describes that file;
        any other plain value describes every file of the folder."""
        entries: dict[str, dict] = {}
        shared, per_file = UpstreamMeta(), {}
        if is_problem(group.info):
            yield self.reject(group.info_ref, *group.info)
        elif group.info is not None:
            entries = {str(k): v for k, v in group.info.items() if isinstance(v, dict)}
            plain = {str(k): v for k, v in group.info.items() if not isinstance(v, dict)}
            for key, value in plain.items():
                base = _described_file(key, {}, group.files)
                if base is not None:
                    per_file.setdefault(base, {})[key] = value
            shared = read_meta({k: v for k, v in plain.items() if _described_file(k, {}, group.files) is None})
        described: dict[str, tuple[str, dict]] = {}
        for key, entry in entries.items():
            base = _described_file(key, entry, group.files)
            if base is not None and base not in described:
                described[base] = (key, entry)
        variant_of = lambda name: f"{variant_dir}/{posixpath.join(parent, name) if parent else name}"  # noqa: E731
        own: list[str] = []                       # entries that are variants of their own
        for base in sorted(group.files):
            stem = base[: -len(".hip")]
            meta = read_meta({"info.json": per_file[base]}).merged(shared) if base in per_file else shared
            if base in described:
                key, entry = described[base]
                meta = read_meta(entry).merged(meta)
                if isinstance(entry.get("code"), str) and not _same_code(entry["code"], self._text(group.files[base])):
                    own.append(key)
            data = group.files[base]
            yield VariantUnit(ref=ref_of(base), variant=variant_of(stem), task=task_of_variant(
                posixpath.join(parent, stem) if parent else stem, tasks), tree=tree,
                path=data if isinstance(data, str) else None, code=data if isinstance(data, bytes) else None,
                meta=meta)
        used = {key for key, _ in described.values()} - set(own)
        for key in sorted(set(entries) - used):
            entry = entries[key]
            ref = f"{group.info_ref}#{key}"
            code = entry.get("code")
            if not isinstance(code, str):
                yield self.reject(ref, RejectReason.MISSING_FIELD,
                                  f"{ref}: no `code` and it names no .hip file of its folder")
                continue
            task = task_of_variant(parent, tasks) if parent else task_of_variant(key, tasks)
            meta = read_meta(entry).merged(shared)
            if key in own:
                meta.other["differs_from"] = ref_of(_described_file(key, entry, group.files))
            yield VariantUnit(ref=ref, variant=variant_of(f"{INFO_FILE}#{key}"), task=task, tree=tree,
                              code=code.encode("utf-8", "surrogatepass"), meta=meta)

    def _text(self, data) -> Optional[str]:
        """The text of a variant file (a path on the tree, or an archive member's bytes); None if unreadable."""
        if isinstance(data, bytes):
            text = decode(data, "")
        else:
            fs, _ = self.tree()
            text = read_text(fs, data)
        return None if is_problem(text) else text

    # ------------------------------------------------------------- one variant
    def unit_to_item(self, unit) -> Item:
        if isinstance(unit, Reject):
            return unit
        fs, _ = self.tree()
        root = self.__dict__.get("_root") or self.tree()[1]
        return self._variant(fs, root, unit, self.per_process("references", dict))

    def _variant(self, fs, root, unit: VariantUnit, references) -> Item:
        ref = unit.ref
        if unit.task is None:
            within_dir = unit.variant.split("/", 1)[1]
            return self.reject(ref, RejectReason.MISSING_FILE,
                               f"no {MODULE_DIR}/<task>.py or py_<id>.py for variant {unit.variant} "
                               f"(task would be {guessed_task(within_dir)!r})")
        kernel = read_text(fs, unit.path) if unit.path is not None else decode(unit.code, ref)
        if is_problem(kernel):
            return self.reject(ref, *kernel)
        license_, problem = self.row_license(kernel, unit.tree)
        if problem:
            return self.reject(ref, *problem)
        problem = check_hip_extension(kernel)
        if problem:
            return self.reject(ref, *problem)
        if unit.task not in references:
            references[unit.task] = self._references(fs, root, unit.task)
        module, functional = references[unit.task]
        if is_problem(module):
            return self.reject(ref, module[0], f"reference of {unit.task}: {module[1]}")
        if is_problem(functional):
            return self.reject(ref, functional[0], f"functional reference of {unit.task}: {functional[1]}")
        meta = unit.meta or UpstreamMeta()
        path, options = self._path_in_release(ref)
        provenance = make_provenance(self.path, options, path, self.pipeline, self.revision())
        provenance.upstream = meta.upstream_json()
        return KernelRecord(
            subset=self.config, source=self.name, language="hip", task_name=unit.task,
            pytorch_code=module, pytorch_functional_code=functional, kernel_code=kernel,
            provenance=provenance, variant=unit.variant, **license_,
            verification=meta.to_verification(verification_from_options(self.options)),
        )

    def _path_in_release(self, ref: str) -> tuple[str, dict]:
        """(``ref`` as a path inside the release, the options to make its provenance with). Inside a ``v0.x``
        folder the path starts there, whatever folder the user named (so the rows, and their ids, are the same
        for ``--source hip_gpumode=<release>`` and ``=<release>/v0.1/...``); elsewhere it is relative to the
        named folder. A ``path_prefix`` option keeps the named-folder form."""
        _, named = self.tree()
        root = self.__dict__.get("_root") or named
        top = release_top(root)
        if top != root.rstrip("/") and "path_prefix" not in self.options:
            return posixpath.join(relative(root, top), ref), {**self.options, "path_prefix": ""}
        below = relative(root, named) if root != named else ""
        return (posixpath.join(below, ref) if below else ref), self.options

    def _references(self, fs, root, task):
        """(module code or problem, functional code / None / problem) of a task, read once."""
        module_file = self._module_files[task]
        module = read_text(fs, posixpath.join(root, MODULE_DIR, module_file))
        if not is_problem(module):
            module = check_reference(module) or module
        for name in functional_names(task, module_file):
            path = posixpath.join(root, FUNCTIONAL_DIR, name)
            if is_file(fs, path):
                return module, read_functional(fs, path)
        return module, None


# ----------------------------------------------------------------- helpers
def _same_code(a: str, b: Optional[str]) -> bool:
    """Whether an info.json ``code`` is the text of the file it names (line endings and outer blank space aside)."""
    return b is not None and a.replace("\r\n", "\n").strip() == b.replace("\r\n", "\n").strip()


def _described_file(key: str, entry: dict, files: dict) -> Optional[str]:
    """The .hip file of the folder an info.json entry describes: its key (with or without .hip) or a
    file field names it."""
    names = [key] + [str(entry[k]) for k in _FILE_KEYS if isinstance(entry.get(k), str)]
    for name in names:
        base = posixpath.basename(name.replace("\\", "/"))
        for candidate in (base, f"{base}.hip"):
            if candidate in files:
                return candidate
    return None


def _strip_to_variant_folder(folder: str, variant_dir: str, tasks: set[str]) -> str:
    """An archive member's folder as a folder below the variant dir: everything up to a ``hip_opt``
    component is dropped (a tar of the release tree), and a leading folder that is not a task is dropped
    when what follows is one (``hip_opt_v1/<id>/x.hip``)."""
    parts = [p for p in folder.split("/") if p]
    if variant_dir in parts:
        parts = parts[len(parts) - parts[::-1].index(variant_dir):]
    while len(parts) > 1 and parts[0] not in tasks and "/".join(parts[1:2]) in tasks:
        parts = parts[1:]
    return "/".join(parts)
