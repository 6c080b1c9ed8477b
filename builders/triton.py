"""Triton sources: four raw layouts of Triton kernels, one Source each, all for config ``triton``.

* ``triton_github`` (:class:`TritonGithubSource`): kernel files mined from GitHub in the
  TritonBench-G form, a JSON array (or JSONL) of ``{repo, file, output, ...}``. Mined
  kernels come without a PyTorch reference, so ``pytorch_code`` is null unless the record
  carries one.
* ``triton_kernelbook`` (:class:`TritonKernelBookSource`): PyTorch -> Triton pairs in the
  KernelBook parquet form (``python_code``, ``triton_code``, ``entry_point``, ``licenses``...).
* ``triton_kernelbench`` (:class:`TritonKernelBenchSource`): agent outputs in the KernelBench
  form, a folder per task holding ``reference.py`` (``class Model``) and ``kernel*.py``
  (``class ModelNew``).
* ``triton_table`` (:class:`TritonTableSource`): any JSON/JSONL/parquet table, with a column
  mapping given as options.

Every Source yields exactly one ``KernelRecord`` or one ``Reject`` per input record (a
table row, a JSONL line, an array element, a kernel file) and never raises on bad input.
A file that cannot be split into records at all (not JSON, not parquet, not UTF-8) counts
as one input record and yields one Reject. Options are checked when the Source is made
(``options_known``, ``check_options``): an unknown option or a value that cannot be used is a
configuration mistake and raises ``SourceOptionError`` at once. Each adapter is a
``UnitSource``: ``read_units`` lists and decodes, ``unit_to_item`` checks and builds the row
(the part the build runs in its worker processes). The table readers are in
:mod:`kvdata.builders.tables`.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Iterator, Optional, Union

from kvdata.builders.base import Item, UnitSource
from kvdata.builders.common import (
    Problem,
    check_code,
    check_python,
    check_reference,
    check_triton_kernel,
    is_problem,
    read_text,
    today,
)
from kvdata.builders.tables import DEFAULT_BATCH_SIZE, Line, LineAt, Row, iter_table, json_object, json_row
from kvdata.schema import KernelRecord, Provenance, Reject, RejectReason

LANGUAGE = "triton"
CONFIG = "triton"


# =============================================================== checks and assembly
def check_encodable(*codes: Optional[str]) -> Optional[Problem]:
    """Text must be encodable as UTF-8: JSON can smuggle in lone surrogates (``"\\ud800"``)."""
    for code in codes:
        if isinstance(code, str):
            try:
                code.encode("utf-8")
            except UnicodeEncodeError as e:
                return RejectReason.BAD_ENCODING, f"text is not valid Unicode ({e.reason} at {e.start})"
    return None


def check_task_name(name: Any) -> Optional[Problem]:
    if not isinstance(name, str) or not name.strip():
        return RejectReason.MISSING_FIELD, f"no task name (got {name!r})"
    return None


def with_task(task_name: Any, message: str) -> str:
    """Prefix a reject message with its task, when known: table refs (``file:line``) do not name it."""
    return f"{task_name}: {message}" if isinstance(task_name, str) and task_name.strip() else message


def file_stem(path: str) -> str:
    """``a/b/softmax_fwd.py`` -> ``softmax_fwd``."""
    base = posixpath.basename(str(path).replace("\\", "/"))
    return base.rsplit(".", 1)[0] if "." in base else base


@dataclass
class Draft:
    """The fields of a kernel row before its checks: what every adapter fills in."""

    task_name: Any
    kernel_code: Any
    pytorch_code: Any = None
    pytorch_functional_code: Any = None
    variant: Optional[str] = None
    provenance: Optional[Provenance] = None


def str_or_none(value: Any) -> Optional[str]:
    return None if value is None else str(value)


#: The options every Triton adapter takes, with their defaults (an adapter adds its own).
TRITON_OPTIONS: dict[str, Any] = {
    "name": None, "subset": CONFIG, "license": None, "pipeline": None, "generator": None,
    "commit": None, "batch_size": DEFAULT_BATCH_SIZE,
}


class TritonSource(UnitSource):
    """What the four Triton adapters share: options, the checks and the making of a row.

    Each adapter declares ``option_defaults`` (``TRITON_OPTIONS`` plus its own) and
    ``options_known`` (their names); ``self.option(key)`` reads a value.
    """

    config: ClassVar[str] = CONFIG
    option_defaults: ClassVar[dict[str, Any]] = TRITON_OPTIONS
    options_known: ClassVar[frozenset[str]] = frozenset(TRITON_OPTIONS)
    #: Options that are true/false (YAML booleans, or true/false/yes/no/1/0 as text).
    flags: ClassVar[tuple[str, ...]] = ()

    def check_options(self) -> None:
        batch_size = self.option("batch_size")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise self.option_error(f"`batch_size` must be a positive integer, got {batch_size!r}")
        for key in self.flags:
            self.flag(key)

    def provenance(self, **fields) -> Provenance:
        """Provenance with the Source-wide options as defaults for what a record does not say."""
        base = self.__dict__.get("_provenance_defaults")
        if base is None:                 # the same for every row of the Source: worked out once
            revision = self.revision()
            base = self._provenance_defaults = {
                "pipeline": self.option("pipeline"), "generator": self.option("generator"),
                "commit": self.option("commit") or revision.commit, "dirty": revision.dirty, "retrieved": today()}
        return Provenance(**{**base, **{k: str_or_none(v) for k, v in fields.items() if v is not None}})

    def make_item(self, ref: str, draft: Draft, declared: Any = None, tree=None,
                  require_reference: bool = False, code_checked: bool = False) -> Item:
        """Check a draft and turn it into a KernelRecord, or the first problem into a Reject.

        The license (``Source.row_license``): the kernel file's own header, else ``declared`` (the
        record's license field), else ``tree`` (default: the ``license`` option alone).

        ``code_checked``: the adapter has already checked both codes its own way (KernelBook,
        whose classes are not called ``Model``); only the name, text and license are checked.
        """
        problem = (
            check_task_name(draft.task_name)
            or check_encodable(draft.task_name, draft.kernel_code, draft.pytorch_code,
                               draft.pytorch_functional_code, draft.variant)
            or (None if code_checked else check_triton_kernel(draft.kernel_code))
            or (None if code_checked else self.check_reference_of(draft, require_reference))
        )
        if not problem:
            fields, problem = self.row_license(draft.kernel_code, tree or self.declared_tree(), declared)
        if problem:
            return self.reject(ref, problem[0], with_task(draft.task_name, problem[1]))
        return KernelRecord(
            subset=str(self.option("subset")), source=self.name, language=LANGUAGE,
            task_name=draft.task_name.strip(), pytorch_code=draft.pytorch_code,
            kernel_code=draft.kernel_code, **fields,
            provenance=draft.provenance or self.provenance(),
            pytorch_functional_code=draft.pytorch_functional_code, variant=draft.variant,
        )

    @staticmethod
    def check_reference_of(draft: Draft, required: bool) -> Optional[Problem]:
        """A reference that is present must be a valid KernelBench reference; absent is fine unless required."""
        if draft.pytorch_code is None and not required:
            return None
        problem = check_reference(draft.pytorch_code)
        if problem:
            return problem
        if draft.pytorch_functional_code is not None:
            return (check_code(draft.pytorch_functional_code, "pytorch_functional_code")
                    or check_python(draft.pytorch_functional_code, "pytorch_functional_code"))
        return None


class TritonTableLikeSource(TritonSource):
    """The adapters that read (ref, row) pairs from tables (GitHub, KernelBook, table).

    A unit is one ``(ref, row)`` of :func:`kvdata.builders.tables.iter_table`; ``read``
    (UnitSource) is ``unit_to_item`` over ``read_units``, so the build can run the costly
    half (parsing and checking code) in worker processes.
    """

    def table_columns(self) -> Optional[Iterable[str]]:
        """The columns the adapter reads (None: all)."""
        return None

    def read_units(self) -> Iterator[tuple[str, Union[Row, Line]]]:
        """(ref, row) for every input record, cheap: JSONL lines are only located (decoded by
        ``unit_to_item``), other rows only decoded; nothing is checked."""
        fs, root = self.tree()
        yield from iter_table(fs, root, columns=self.table_columns(), batch_size=self.option("batch_size"),
                              locate=True)

    def unit_to_item(self, unit: tuple[str, Union[Row, Line]]) -> Item:
        ref, row = unit
        if isinstance(row, (LineAt, bytes)):
            row = json_row(self.line_files().text(row, ref), ref)
        return self.row_to_item(ref, row)

    def row_to_item(self, ref: str, row: Row) -> Item:
        raise NotImplementedError


# =============================================================== (a) TritonBench-G / GitHub
class TritonGithubSource(TritonTableLikeSource):
    """GitHub-mined Triton files in the TritonBench-G JSON form (JSON array or JSONL).

    One input record per array element / line: ``repo`` (owner/name), ``file`` (the file
    name, whose stem is the task name) and the code in ``output``. Mined files carry no
    PyTorch reference, so ``pytorch_code`` stays null unless the record has the field
    named by ``reference_field``; a reference that is there but malformed is a reject.
    The license is the record's ``license_field`` or else the ``license`` option (the
    TritonBench-G JSON itself has neither: pass the license its files are released
    under, e.g. ``license: Apache-2.0``, or every record is a MISSING_LICENSE reject).
    """

    kind: ClassVar[str] = "triton_github"
    description: ClassVar[str] = "GitHub-mined Triton kernels, TritonBench-G JSON form"
    option_defaults: ClassVar[dict[str, Any]] = {**TRITON_OPTIONS,
        "code_field": "output", "repo_field": "repo", "file_field": "file",
        "reference_field": "pytorch_code", "license_field": "license", "pipeline": "github-mined",
    }
    options_known: ClassVar[frozenset[str]] = frozenset(option_defaults)

    def row_to_item(self, ref: str, row: Row) -> Item:
        if is_problem(row):
            return self.reject(ref, *row)
        if not isinstance(row, dict):
            return self.reject(ref, RejectReason.MISSING_FIELD, f"expected a JSON object, got {type(row).__name__}")
        file = row.get(self.option("file_field"))
        if not isinstance(file, str) or not file.strip():
            return self.reject(ref, RejectReason.MISSING_FIELD, f"no `{self.option('file_field')}` (the kernel's file name)")
        draft = Draft(
            task_name=file_stem(file),
            kernel_code=row.get(self.option("code_field")),
            pytorch_code=row.get(self.option("reference_field")) if self.option("reference_field") else None,
            provenance=self.provenance(repo=row.get(self.option("repo_field")), path=file),
        )
        declared = row.get(self.option("license_field")) if self.option("license_field") else None
        return self.make_item(ref, draft, declared)


# =============================================================== (b) KernelBook
#: KernelBook column -> what it becomes. Only these are read from the parquet files.
KERNELBOOK_COLUMNS = ("python_code", "triton_code", "entry_point", "repo_name", "module_name",
                      "licenses", "sha", "synthetic")

_KERNELBOOK_ALIAS = '''

# --- added by kvdata: KernelBench names for the KernelBook entry point `{cls}` ---
def _kvdata_split_init_inputs(args):
    """KernelBook's get_init_inputs() returns [args, kwargs]; KernelBench unpacks a flat list."""
    if len(args) == 2 and isinstance(args[0], (list, tuple)) and isinstance(args[1], dict):
        return tuple(args[0]), dict(args[1])
    return tuple(args), {{}}


class {alias}({cls}):
    def __init__(self, *args):
        args, kwargs = _kvdata_split_init_inputs(args)
        super().__init__(*args, **kwargs)
'''


_CLASS_NAME = re.compile(r"^[ \t]*class\s+([A-Za-z_]\w*)\s*[(:]", re.M)
_GET_INPUTS = re.compile(r"^\s*def\s+get_inputs\s*\(", re.M)


def defines_class(code: str, name: str) -> bool:
    """Whether ``code`` defines a class ``name`` (one shared pattern: a per-name regex
    would be compiled anew for each of KernelBook's thousands of entry points)."""
    return name in _CLASS_NAME.findall(code)


def kernelbench_alias(cls: str, alias: str) -> str:
    """Code appended to a KernelBook file so that it also speaks the KernelBench convention.

    ``alias`` subclasses ``cls`` without overriding anything but the constructor, so its
    parameters (and state_dict keys) are the entry point's own; the constructor accepts
    both KernelBook's ``Model(*[args, kwargs])`` call and KernelBench's ``Model(*args)``.
    """
    return _KERNELBOOK_ALIAS.format(cls=cls, alias=alias)


class TritonKernelBookSource(TritonTableLikeSource):
    """PyTorch -> Triton pairs in the KernelBook parquet form (GPUMODE/KernelBook).

    Columns read: ``python_code`` (an ``nn.Module`` named ``entry_point`` plus
    ``get_inputs()`` / ``get_init_inputs()``, the latter returning ``[args, kwargs]``),
    ``triton_code`` (inductor-generated ``@triton.jit`` kernels and a class
    ``<entry_point>New``), ``repo_name``, ``module_name``, ``licenses`` (list of names),
    ``sha``, ``synthetic``. Files are read in record batches, a column subset at a time.

    KernelBook does not call its classes ``Model``/``ModelNew``. With ``kernelbench_aliases``
    (default on) the builder appends a short, marked alias (``class Model(<entry_point>)``
    and ``class ModelNew(<entry_point>New)``) so every triton row follows the one
    KernelBench convention that re-verification runs; the upstream text above it is kept
    verbatim. A row whose ``python_code`` lacks the entry-point class is a NO_MODEL_CLASS
    reject, one whose ``triton_code`` lacks ``<entry_point>New`` is a NO_KERNEL reject.
    With ``kernelbench_aliases: false`` rows are kept verbatim and checked only for the
    entry-point class and ``get_inputs``.
    """

    kind: ClassVar[str] = "triton_kernelbook"
    description: ClassVar[str] = "PyTorch->Triton pairs, KernelBook parquet form"
    option_defaults: ClassVar[dict[str, Any]] = {
        **TRITON_OPTIONS, "kernelbench_aliases": True, "pipeline": "kernelbook", "generator": "torch-inductor",
    }
    options_known: ClassVar[frozenset[str]] = frozenset(option_defaults)
    flags: ClassVar[tuple[str, ...]] = ("kernelbench_aliases",)

    def table_columns(self) -> Optional[Iterable[str]]:
        return KERNELBOOK_COLUMNS

    def row_to_item(self, ref: str, row: Row) -> Item:
        if is_problem(row):
            return self.reject(ref, *row)
        if not isinstance(row, dict):
            return self.reject(ref, RejectReason.MISSING_FIELD, f"expected a row object, got {type(row).__name__}")
        entry = row.get("entry_point")
        if not isinstance(entry, str) or not entry.isidentifier():
            return self.reject(ref, RejectReason.MISSING_FIELD, f"`entry_point` is not a class name: {entry!r}")
        python_code, triton_code = row.get("python_code"), row.get("triton_code")
        problem = (check_code(python_code, "python_code") or check_code(triton_code, "triton_code")
                   or check_encodable(python_code, triton_code)
                   or check_python(python_code, "python_code")
                   or check_triton_kernel(triton_code, "triton_code")
                   or self.check_entry_point(python_code, triton_code, entry))
        if problem:
            return self.reject(ref, problem[0], with_task(entry, problem[1]))
        if self.flag("kernelbench_aliases") and entry != "Model":
            python_code = python_code.rstrip("\n") + "\n" + kernelbench_alias(entry, "Model")
            triton_code = triton_code.rstrip("\n") + "\n" + kernelbench_alias(f"{entry}New", "ModelNew")
        draft = Draft(
            task_name=entry, kernel_code=triton_code, pytorch_code=python_code,
            provenance=self.provenance(repo=row.get("repo_name"), path=row.get("module_name"), commit=row.get("sha")),
        )
        # Both codes were parsed and checked above, the KernelBook way; parsing is most of the cost.
        return self.make_item(ref, draft, row.get("licenses"), code_checked=True)

    def check_entry_point(self, python_code: str, triton_code: str, entry: str) -> Optional[Problem]:
        if not defines_class(python_code, entry):
            return RejectReason.NO_MODEL_CLASS, f"python_code defines no class {entry} (the entry point)"
        if not _GET_INPUTS.search(python_code):
            return RejectReason.NO_GET_INPUTS, "python_code defines no `get_inputs()`"
        if self.flag("kernelbench_aliases") and not defines_class(triton_code, f"{entry}New"):
            return RejectReason.NO_KERNEL, f"triton_code defines no class {entry}New to run its kernels"
        return None


# =============================================================== (c) KernelBench agent outputs
class TritonKernelBenchSource(TritonSource):
    """Agent outputs in the KernelBench form: one folder per task.

    Layout::

        <root>/LICENSE                  optional: the tree's license (read when no option/meta names one)
        <root>/<task>/reference.py      class Model(nn.Module), get_inputs(), get_init_inputs()
        <root>/<task>/kernel.py         class ModelNew(nn.Module) launching @triton.jit kernels
        <root>/<task>/kernel_<v>.py     more candidates for the task: variant <v>
        <root>/<task>/meta.json         optional: {license, generator, pipeline, repo, commit}

    The input records are the kernel files (``kernel_glob``); a task folder with no kernel
    file counts as one record and is a MISSING_FILE reject, so nothing on disk goes
    unaccounted. (A JSONL of ``task_name, pytorch_code, kernel_code`` is the
    ``triton_table`` Source with its default columns.)
    """

    kind: ClassVar[str] = "triton_kernelbench"
    description: ClassVar[str] = "Model/ModelNew agent outputs, KernelBench folder form"
    option_defaults: ClassVar[dict[str, Any]] = {
        **TRITON_OPTIONS, "reference_file": "reference.py", "kernel_prefix": "kernel", "meta_file": "meta.json",
        "pipeline": "kernelbench-agent",
    }
    options_known: ClassVar[frozenset[str]] = frozenset(option_defaults)

    def check_options(self) -> None:
        super().check_options()
        for key in ("reference_file", "kernel_prefix", "meta_file"):
            if not isinstance(self.option(key), str) or not self.option(key):
                raise self.option_error(f"`{key}` must be a non-empty file name, got {self.option(key)!r}")

    def read_units(self) -> Iterator[Any]:
        """A Reject for a tree- or task-level problem, else one
        ``(task dir, kernel path, reference, meta, license)`` per kernel file; the task's
        reference and meta.json are read once, the kernel file in ``unit_to_item``."""
        fs, root = self.tree()
        try:
            if not fs.isdir(root):
                reason = RejectReason.UNREADABLE if fs.exists(root) else RejectReason.MISSING_FILE
                yield self.reject(root, reason, f"{root} is not a folder of task folders")
                return
            tasks = sorted(str(p) for p in fs.ls(root, detail=False) if fs.isdir(p))
        except OSError as e:
            yield self.reject(root, RejectReason.UNREADABLE, f"{root}: {e}")
            return
        for task_dir in tasks:
            kernels = self.kernel_files(fs, task_dir)
            if not kernels:
                yield self.reject(task_dir, RejectReason.MISSING_FILE,
                                  f"{task_dir} holds no {self.option('kernel_prefix')}*.py file")
                continue
            meta = self.read_meta(fs, task_dir)
            reference = read_text(fs, posixpath.join(task_dir, self.option("reference_file")))
            declared = None if is_problem(meta) else meta.get("license")
            # the tree's LICENSE is read (once, here in the main process) only when a task needs it
            tree = self.tree_license(fs, root) if declared is None and self.option("license") is None else None
            for kernel_path in kernels:
                yield task_dir, kernel_path, reference, meta, (declared, tree)

    def unit_to_item(self, unit) -> Item:
        if isinstance(unit, Reject):
            return unit
        fs, root = self.tree()
        return self.kernel_to_item(fs, root, *unit)

    def kernel_files(self, fs, task_dir: str) -> list[str]:
        prefix = self.option("kernel_prefix")
        names = []
        for p in fs.ls(task_dir, detail=False):
            base = posixpath.basename(str(p))
            if base.startswith(prefix) and base.endswith(".py") and not fs.isdir(p):
                names.append(str(p))
        return sorted(names)

    def read_meta(self, fs, task_dir: str) -> Union[dict, Problem]:
        path = posixpath.join(task_dir, self.option("meta_file"))
        if not fs.exists(path):
            return {}
        return json_object(read_text(fs, path), path)

    def kernel_to_item(self, fs, root: str, task_dir: str, kernel_path: str, reference, meta, license_) -> Item:
        declared, tree = license_
        if is_problem(meta):
            return self.reject(kernel_path, *meta)
        if is_problem(reference):
            return self.reject(kernel_path, *reference)
        kernel = read_text(fs, kernel_path)
        if is_problem(kernel):
            return self.reject(kernel_path, *kernel)
        task = posixpath.basename(task_dir.rstrip("/"))
        stem = file_stem(kernel_path)
        variant = stem[len(self.option("kernel_prefix")):].lstrip("_-") or None
        rel = posixpath.relpath(kernel_path, root)
        draft = Draft(
            task_name=task, kernel_code=kernel, pytorch_code=reference, variant=variant,
            provenance=self.provenance(path=rel, repo=meta.get("repo"), commit=meta.get("commit"),
                                       generator=meta.get("generator"), pipeline=meta.get("pipeline")),
        )
        return self.make_item(kernel_path, draft, declared, tree, require_reference=True)


# =============================================================== (d) any table + column mapping
#: Logical field -> default column name. ``columns:`` overrides any of them.
TABLE_FIELDS: dict[str, str] = {
    "task_name": "task_name", "pytorch_code": "pytorch_code", "kernel_code": "kernel_code",
    "pytorch_functional_code": "pytorch_functional_code", "variant": "variant", "license": "license",
    "repo": "repo", "path": "path", "commit": "commit", "generator": "generator", "pipeline": "pipeline",
}


class TritonTableSource(TritonTableLikeSource):
    """Any JSON/JSONL/parquet table (a file or a folder of them) with a column mapping.

    ``columns`` maps this corpus's field names (keys of ``TABLE_FIELDS``) to the table's
    column names, e.g. ``{pytorch_code: ref, kernel_code: triton, task_name: name}``;
    unmapped fields use their own name. A reference is required (``require_reference``,
    default true); set it false for tables of mined kernels without one.
    """

    kind: ClassVar[str] = "triton_table"
    description: ClassVar[str] = "any JSONL/parquet table of Triton kernels, with a column mapping"
    option_defaults: ClassVar[dict[str, Any]] = {**TRITON_OPTIONS, "columns": None, "require_reference": True}
    options_known: ClassVar[frozenset[str]] = frozenset(option_defaults)
    flags: ClassVar[tuple[str, ...]] = ("require_reference",)

    def check_options(self) -> None:
        super().check_options()
        mapping = self.option("columns") or {}
        if not isinstance(mapping, dict):
            raise self.option_error(f"`columns` must be a mapping of field -> column, got {mapping!r}")
        unknown = sorted(set(mapping) - set(TABLE_FIELDS))
        if unknown:
            raise self.option_error(f"unknown field(s) in `columns`: {unknown}; known: {sorted(TABLE_FIELDS)}")
        #: logical field -> the table's column (checked above, so kept here once)
        self.columns = {**TABLE_FIELDS, **{k: str(v) for k, v in mapping.items()}}

    def table_columns(self) -> Optional[Iterable[str]]:
        return self.columns.values()

    def field(self, row: dict, name: str) -> Any:
        return row.get(self.columns[name])

    def row_to_item(self, ref: str, row: Row) -> Item:
        if is_problem(row):
            return self.reject(ref, *row)
        if not isinstance(row, dict):
            return self.reject(ref, RejectReason.MISSING_FIELD, f"expected an object, got {type(row).__name__}")
        variant = self.field(row, "variant")
        draft = Draft(
            task_name=self.field(row, "task_name"), kernel_code=self.field(row, "kernel_code"),
            pytorch_code=self.field(row, "pytorch_code"),
            pytorch_functional_code=self.field(row, "pytorch_functional_code"),
            variant=None if variant is None else str(variant),
            provenance=self.provenance(**{k: self.field(row, k) for k in ("repo", "path", "commit", "generator", "pipeline")}),
        )
        return self.make_item(ref, draft, self.field(row, "license"), require_reference=self.flag("require_reference"))
