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
as one input record and yields one Reject. Options are checked when the Source is made: an
unknown option is a configuration mistake and raises ``TypeError`` at once.
"""
from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Iterator, Optional, Union

from kvdata.builders.base import Item, Source, open_fs
from kvdata.builders.common import (
    Problem,
    check_code,
    check_python,
    check_reference,
    check_triton_kernel,
    decode,
    is_problem,
    read_text,
    today,
)
from kvdata.schema import KernelRecord, Provenance, RejectReason

LANGUAGE = "triton"
CONFIG = "triton"
DEFAULT_BATCH_SIZE = 1024
TABLE_SUFFIXES = (".jsonl", ".json", ".parquet")

Row = Union[dict, Problem]


# =============================================================== reading tables
def list_input_files(fs, root: str, suffixes: Iterable[str] = TABLE_SUFFIXES) -> Union[list[str], Problem]:
    """The table files a Source reads: ``root`` itself, or the matching files under a folder, sorted.

    Sorted order keeps item order (and so dedup winners) the same from one build to the next.
    """
    suffixes = tuple(suffixes)
    try:
        if not fs.exists(root):
            return RejectReason.MISSING_FILE, f"{root} does not exist"
        if not fs.isdir(root):
            return [root]
        found = [p for p in fs.find(root) if str(p).lower().endswith(suffixes)]
    except OSError as e:
        return RejectReason.UNREADABLE, f"{root}: {e}"
    if not found:
        return RejectReason.MISSING_FILE, f"{root} holds no {'/'.join(suffixes)} file"
    return sorted(str(p) for p in found)


def iter_json_array(fs, path: str) -> Iterator[tuple[str, Row]]:
    """(ref, element) for each element of a JSON array file; one problem if the file is not one."""
    text = read_text(fs, path)
    if is_problem(text):
        yield path, text
        return
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        yield path, (RejectReason.BAD_JSON, f"{path}: not JSON ({e.msg} at line {e.lineno})")
        return
    if isinstance(data, dict):      # a single object is a table of one
        data = [data]
    if not isinstance(data, list):
        yield path, (RejectReason.BAD_JSON, f"{path}: expected a JSON array of objects, got {type(data).__name__}")
        return
    for i, element in enumerate(data):
        yield f"{path}[{i}]", element


def iter_jsonl(fs, path: str) -> Iterator[tuple[str, Row]]:
    """(ref, object) for each non-blank line of a JSONL file, streamed line by line.

    A file whose first non-blank byte is ``[`` is a JSON array despite its name (as
    TritonBench-T ships its ``.jsonl``) and is read as one.
    """
    try:
        with fs.open(path, "rb") as f:
            head = f.read(4096).lstrip()
    except OSError as e:
        yield path, (RejectReason.UNREADABLE, f"{path}: {e}")
        return
    if head.startswith(b"["):
        yield from iter_json_array(fs, path)
        return
    try:
        with fs.open(path, "rb") as f:
            for lineno, raw in enumerate(f, start=1):
                if not raw.strip():
                    continue
                ref = f"{path}:{lineno}"
                line = decode(raw, ref)
                if is_problem(line):
                    yield ref, line
                    continue
                try:
                    yield ref, json.loads(line)
                except json.JSONDecodeError as e:
                    yield ref, (RejectReason.BAD_JSON, f"{ref}: not JSON ({e.msg})")
    except OSError as e:
        yield path, (RejectReason.UNREADABLE, f"{path}: {e}")


def iter_parquet(fs, path: str, columns: Optional[Iterable[str]] = None,
                 batch_size: int = DEFAULT_BATCH_SIZE) -> Iterator[tuple[str, Row]]:
    """(ref, row dict) for each row of a parquet file, read in record batches.

    Only ``columns`` that the file has are read (KernelBook rows carry large code columns
    we do not need). A file pyarrow cannot open counts as one unreadable record.
    """
    import pyarrow.parquet as pq

    try:
        f = fs.open(path, "rb")
    except OSError as e:
        yield path, (RejectReason.UNREADABLE, f"{path}: {e}")
        return
    with f:
        try:
            pf = pq.ParquetFile(f)
        except Exception as e:  # pyarrow raises ArrowInvalid, OSError...: any means "not parquet"
            yield path, (RejectReason.UNREADABLE, f"{path}: not a parquet file ({e})")
            return
        names = pf.schema_arrow.names
        wanted = None if columns is None else [c for c in dict.fromkeys(columns) if c in names]
        index = 0
        for batch in pf.iter_batches(batch_size=batch_size, columns=wanted):
            for row in batch.to_pylist():
                yield f"{path}[{index}]", row
                index += 1


def iter_table(fs, path: str, columns: Optional[Iterable[str]] = None,
               batch_size: int = DEFAULT_BATCH_SIZE) -> Iterator[tuple[str, Row]]:
    """(ref, row) for every record of a JSON/JSONL/parquet file or of every such file in a folder."""
    files = list_input_files(fs, path)
    if is_problem(files):
        yield path, files
        return
    for file in files:
        lower = file.lower()
        if lower.endswith(".parquet"):
            yield from iter_parquet(fs, file, columns, batch_size)
        elif lower.endswith(".jsonl"):
            yield from iter_jsonl(fs, file)
        else:
            yield from iter_json_array(fs, file)


# =============================================================== licenses
def license_from_declared(record_value: Any, option_value: Any) -> tuple[Optional[str], Optional[Problem]]:
    """(SPDX id, None) from a record's own license field, else the Source's ``license`` option.

    A record that names a license we cannot map is rejected rather than given the
    Source-wide fallback: the record's own word is the better evidence, and it says
    something other than the fallback.
    """
    from kvdata.licenses import normalize_spdx

    for where, declared in (("record", record_value), ("`license` option", option_value)):
        if declared is None or declared == "" or (isinstance(declared, (list, tuple)) and not declared):
            continue
        spdx = normalize_spdx(declared)
        if spdx:
            return spdx, None
        return None, (RejectReason.UNKNOWN_LICENSE, f"{where} license {declared!r} maps to no SPDX id")
    return None, (RejectReason.MISSING_LICENSE, "the record names no license and the source has no `license` option")


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


class TritonSource(Source):
    """What the four Triton adapters share: options, the checks and the making of a row."""

    config: ClassVar[str] = CONFIG
    #: option name -> default. ``name`` (the accounting key) is known to every Source.
    defaults: ClassVar[dict[str, Any]] = {}
    _common_defaults: ClassVar[dict[str, Any]] = {
        "name": None, "subset": CONFIG, "license": None, "pipeline": None, "generator": None,
        "commit": None, "batch_size": DEFAULT_BATCH_SIZE,
    }

    def __init__(self, path: str, **options) -> None:
        known = {**self._common_defaults, **self.defaults}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise TypeError(f"{self.kind}: unknown option(s) {unknown}; known options: {sorted(known)}")
        super().__init__(path, **options)
        self.settings = {**known, **options}

    def option(self, key: str) -> Any:
        return self.settings[key]

    def provenance(self, **fields) -> Provenance:
        """Provenance with the Source-wide options as defaults for what a record does not say."""
        base = {"pipeline": self.option("pipeline"), "generator": self.option("generator"),
                "commit": self.option("commit"), "retrieved": today()}
        base.update({k: str_or_none(v) for k, v in fields.items() if v is not None})
        return Provenance(**base)

    def make_item(self, ref: str, draft: Draft, license_: tuple[Optional[str], Optional[Problem]],
                  require_reference: bool = False, code_checked: bool = False) -> Item:
        """Check a draft and turn it into a KernelRecord, or the first problem into a Reject.

        ``code_checked``: the adapter has already checked both codes its own way (KernelBook,
        whose classes are not called ``Model``); only the name, text and license are checked.
        """
        problem = (
            check_task_name(draft.task_name)
            or check_encodable(draft.task_name, draft.kernel_code, draft.pytorch_code,
                               draft.pytorch_functional_code, draft.variant)
            or (None if code_checked else check_triton_kernel(draft.kernel_code))
            or (None if code_checked else self.check_reference_of(draft, require_reference))
            or license_[1]
        )
        if problem:
            return self.reject(ref, problem[0], with_task(draft.task_name, problem[1]))
        return KernelRecord(
            subset=str(self.option("subset")), source=self.name, language=LANGUAGE,
            task_name=draft.task_name.strip(), pytorch_code=draft.pytorch_code,
            kernel_code=draft.kernel_code, license=license_[0],
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

    ``read`` is ``unit_to_item`` over ``read_units``; both halves are public so that the
    build can run the costly one (parsing and checking code) in worker processes.
    """

    def table_columns(self) -> Optional[Iterable[str]]:
        """The columns the adapter reads (None: all)."""
        return None

    def read_units(self) -> Iterator[tuple[str, Row]]:
        """(ref, row) for every input record, cheap: the rows are only decoded, not checked."""
        fs, root = open_fs(self.path)
        yield from iter_table(fs, root, columns=self.table_columns(), batch_size=int(self.option("batch_size")))

    def unit_to_item(self, unit: tuple[str, Row]) -> Item:
        return self.row_to_item(*unit)

    def read(self) -> Iterator[Item]:
        for unit in self.read_units():
            yield self.unit_to_item(unit)

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
    defaults: ClassVar[dict[str, Any]] = {
        "code_field": "output", "repo_field": "repo", "file_field": "file",
        "reference_field": "pytorch_code", "license_field": "license", "pipeline": "github-mined",
    }

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
        license_ = license_from_declared(row.get(self.option("license_field")) if self.option("license_field") else None,
                                         self.option("license"))
        return self.make_item(ref, draft, license_)


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
    defaults: ClassVar[dict[str, Any]] = {
        "kernelbench_aliases": True, "pipeline": "kernelbook", "generator": "torch-inductor",
    }

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
        if self.option("kernelbench_aliases") and entry != "Model":
            python_code = python_code.rstrip("\n") + "\n" + kernelbench_alias(entry, "Model")
            triton_code = triton_code.rstrip("\n") + "\n" + kernelbench_alias(f"{entry}New", "ModelNew")
        draft = Draft(
            task_name=entry, kernel_code=triton_code, pytorch_code=python_code,
            provenance=self.provenance(repo=row.get("repo_name"), path=row.get("module_name"), commit=row.get("sha")),
        )
        license_ = license_from_declared(row.get("licenses"), self.option("license"))
        # Both codes were parsed and checked above, the KernelBook way; parsing is most of the cost.
        return self.make_item(ref, draft, license_, code_checked=True)

    def check_entry_point(self, python_code: str, triton_code: str, entry: str) -> Optional[Problem]:
        if not defines_class(python_code, entry):
            return RejectReason.NO_MODEL_CLASS, f"python_code defines no class {entry} (the entry point)"
        if not _GET_INPUTS.search(python_code):
            return RejectReason.NO_GET_INPUTS, "python_code defines no `get_inputs()`"
        if self.option("kernelbench_aliases") and not defines_class(triton_code, f"{entry}New"):
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
    defaults: ClassVar[dict[str, Any]] = {
        "reference_file": "reference.py", "kernel_prefix": "kernel", "meta_file": "meta.json",
        "pipeline": "kernelbench-agent",
    }

    def read(self) -> Iterator[Item]:
        fs, root = open_fs(self.path)
        try:
            if not fs.isdir(root):
                reason = RejectReason.UNREADABLE if fs.exists(root) else RejectReason.MISSING_FILE
                yield self.reject(root, reason, f"{root} is not a folder of task folders")
                return
            tasks = sorted(str(p) for p in fs.ls(root, detail=False) if fs.isdir(p))
        except OSError as e:
            yield self.reject(root, RejectReason.UNREADABLE, f"{root}: {e}")
            return
        tree_license: Optional[tuple] = None   # resolved once, when first needed
        for task_dir in tasks:
            kernels = self.kernel_files(fs, task_dir)
            if not kernels:
                yield self.reject(task_dir, RejectReason.MISSING_FILE,
                                  f"{task_dir} holds no {self.option('kernel_prefix')}*.py file")
                continue
            meta = self.read_meta(fs, task_dir)
            reference = read_text(fs, posixpath.join(task_dir, self.option("reference_file")))
            if not is_problem(meta) and meta.get("license") is None and self.option("license") is None:
                if tree_license is None:
                    from kvdata.licenses import resolve_license

                    tree_license = resolve_license(fs, root)
                license_ = tree_license
            else:
                license_ = license_from_declared(None if is_problem(meta) else meta.get("license"),
                                                 self.option("license"))
            for kernel_path in kernels:
                yield self.kernel_to_item(fs, root, task_dir, kernel_path, reference, meta, license_)

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
        text = read_text(fs, path)
        if is_problem(text):
            return text
        try:
            meta = json.loads(text)
        except json.JSONDecodeError as e:
            return RejectReason.BAD_JSON, f"{path}: not JSON ({e.msg})"
        if not isinstance(meta, dict):
            return RejectReason.BAD_JSON, f"{path}: expected a JSON object"
        return meta

    def kernel_to_item(self, fs, root: str, task_dir: str, kernel_path: str, reference, meta, license_) -> Item:
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
        return self.make_item(kernel_path, draft, license_, require_reference=True)


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
    defaults: ClassVar[dict[str, Any]] = {"columns": None, "require_reference": True}

    def __init__(self, path: str, **options) -> None:
        super().__init__(path, **options)
        mapping = self.option("columns") or {}
        if not isinstance(mapping, dict):
            raise TypeError(f"{self.kind}: `columns` must be a mapping of field -> column, got {mapping!r}")
        unknown = sorted(set(mapping) - set(TABLE_FIELDS))
        if unknown:
            raise TypeError(f"{self.kind}: unknown field(s) in `columns`: {unknown}; known: {sorted(TABLE_FIELDS)}")
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
        license_ = license_from_declared(self.field(row, "license"), self.option("license"))
        return self.make_item(ref, draft, license_, require_reference=bool(self.option("require_reference")))
