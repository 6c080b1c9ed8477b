"""The v0.2 release's subset tables: one Source kind per folder, each mapping its columns to ours.

AMD's v0.2 (``amd/AIG-Datasets/v0.2/``) has five folders, one per subset, each holding tables (JSON arrays,
JSONL or parquet; told apart by content) in a schema "unified across its subsets": the input in
``question_code``, the answer in ``answer_code``, and a provenance reference into the v0.1 tar. The full field
list is not public (docs/notes/layouts.md says what is known and from where), so each kind maps columns by a
documented default, :data:`FIELD_CANDIDATES` (the first candidate a table has wins), which
``--option KIND.columns='{field: column, ...}'`` overrides. A table that lacks a column for a required field (the
code columns) is refused as one record, with one line naming the keys it has and the option to give. No task
column is required (none is public): :func:`task_name_of` derives one.

===================================  ==============  =========================================================
folder                               kind            question_code / answer_code become
===================================  ==============  =========================================================
pytorch_hip_kernel_cuda_agent_ops_6k v02_cudaagent   pytorch_code / kernel_code   (config hip_cudaagent)
pytorch_hip_kernel_gpumode           v02_gpumode     pytorch_code / kernel_code   (config hip_gpumode)
hip-to-hip                           v02_hip2hip     baseline_kernel_code / kernel_code  (config hip2hip)
rocm-libraries                       v02_qa          question / answer            (config qa)
PyTorch_triton_datasets              v02_triton      pytorch_code / kernel_code   (config triton)
===================================  ==============  =========================================================

Columns no field takes go into the row as metadata: facts a check found (``speedup``, ``correct``...) into
``verification``, the rest into ``provenance.upstream`` (:mod:`kvdata.builders.upstream_meta`).
"""
from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any, ClassVar, Iterator, Optional

import xxhash

from kvdata.builders.base import Item, UnitSource
from kvdata.builders.common import (check_code, check_hip_extension, check_python, check_reference,
                                    check_triton_kernel, is_problem, make_provenance, relative)
from kvdata.builders.locate import release_top
from kvdata.builders.tables import DEFAULT_BATCH_SIZE, LineAt, iter_any_table, json_row, list_input_files
from kvdata.builders.upstream_meta import read_meta
from kvdata.normalize import normalize_code
from kvdata.schema import KernelRecord, QARecord, Reject, RejectReason

#: Where each field is looked for, in order. ``question_code``/``answer_code`` are the unified schema's.
KERNEL_CANDIDATES: dict[str, tuple[str, ...]] = {
    "task_name": ("task_name", "name", "kernel_name", "problem_name", "op_name", "sample_id", "id"),
    "pytorch_code": ("question_code", "pytorch_code", "pytorch_module_code", "python_code", "torch_code",
                     "reference_code"),
    "kernel_code": ("answer_code", "kernel_code", "hip_code", "triton_code", "code"),
    "pytorch_functional_code": ("pytorch_functional_code", "functional_code"),
    "baseline_kernel_code": ("baseline_kernel_code", "baseline_code", "origin_code", "reference_hip_code"),
    "variant": ("variant", "variant_id", "gen_idx"),
    "license": ("license", "licenses", "spdx"),
    "repo": ("repo", "repo_name", "repository"),
    "commit": ("commit", "sha"),
    "path": ("provenance", "source_path", "path", "file", "file_path"),
}
QA_CANDIDATES: dict[str, tuple[str, ...]] = {
    "question": ("question", "instruction", "prompt", "query", "question_code"),
    "answer": ("answer", "output", "response", "answer_code"),
    "library": ("library", "lib"),
    "symbol": ("symbol", "api", "function", "function_name", "name"),
    "kind": ("kind", "type", "category", "question_type"),
    "license": ("license", "licenses", "spdx"),
    "repo": ("repo", "repository"),
    "commit": ("commit", "sha"),
    "path": ("provenance", "source_path", "path", "file"),
}
#: Fields whose value is code we check as such (the rest are names and metadata).
_CODE_FIELDS = frozenset({"pytorch_code", "kernel_code", "pytorch_functional_code", "baseline_kernel_code",
                          "question", "answer"})


@dataclass
class TableUnit:
    """One row of a table (decoded, a problem, or a located JSON element) and its table's column map."""

    ref: str
    row: Any
    columns: dict                        # field -> column, for this table


@dataclass
class SubsetSpec:
    """What one v0.2 folder is."""

    folder: str
    language: Optional[str]               # "hip" | "triton" | None (QA)
    required: tuple[str, ...]             # fields a table must have a column for
    fields: dict                          # field -> the columns it is looked for in, in order


def _subset(folder: str, language: Optional[str], required: tuple[str, ...], **first: tuple[str, ...]) -> SubsetSpec:
    """A SubsetSpec whose candidates are the defaults with ``first`` (field -> columns) put in front; a column
    put first for one field is taken from the others (hip2hip's question_code is the baseline, not PyTorch)."""
    base = QA_CANDIDATES if language is None else KERNEL_CANDIDATES
    moved = {c for cols in first.values() for c in cols}
    fields = {f: tuple(first.get(f, ())) + tuple(c for c in cols if c not in moved) for f, cols in base.items()}
    return SubsetSpec(folder, language, required, fields)


#: The four Triton sources of ``PyTorch_triton_datasets/``: a file whose name holds one is that source's.
TRITON_PRESETS: dict[str, str] = {"stack": "triton-stack", "bench": "triton-bench", "gpumode": "triton-gpumode",
                                  "aice": "triton-aice"}


class ReleaseTableSource(UnitSource):
    """One v0.2 subset folder (or a table file of it): every row of every table becomes a row or a reject."""

    spec: ClassVar[SubsetSpec]
    options_known = frozenset({"name", "license", "allow", "repo", "commit", "path_prefix", "generator",
                               "pipeline", "columns", "batch_size"})

    def check_options(self) -> None:
        columns = self.option("columns") or {}
        if not isinstance(columns, dict):
            raise self.option_error(f"`columns` must be a mapping of field -> column, got {columns!r}")
        if columns and all(isinstance(v, dict) for v in columns.values()):     # per folder: {folder: {...}}
            columns = columns.get(self.spec.folder, {})
        unknown = sorted(set(columns) - set(self.spec.fields))
        if unknown:
            raise self.option_error(f"unknown field(s) in `columns`: {unknown}; known: {sorted(self.spec.fields)}")
        self.column_override = {k: str(v) for k, v in columns.items()}

    def map_columns(self, keys: list[str]) -> dict:
        """field -> the table column it is read from (the override, else the first candidate present)."""
        present = set(keys)
        mapping = dict(self.column_override)
        taken = set(mapping.values())
        for field, names in self.spec.fields.items():
            if field in mapping:
                continue
            for name in names:
                if name in present and name not in taken:
                    mapping[field] = name
                    taken.add(name)
                    break
        return mapping

    # ------------------------------------------------------------- reading
    def read_units(self) -> Iterator[object]:
        fs, root = self.tree()
        files = list_input_files(fs, root)
        if is_problem(files):
            yield self.reject(self.path, *files)
            return
        from kvdata.licenses import license_root

        self._license = self.tree_license(fs, license_root(fs, root, release_top(root)))
        self.revision()
        for file in files:
            columns: Optional[dict] = None
            for ref, row in iter_any_table(fs, file, batch_size=self.option("batch_size") or DEFAULT_BATCH_SIZE,
                                           locate=True):
                ref = relative(ref, root) if ref.startswith(root + "/") else relative(ref, posixpath.dirname(root))
                if columns is None and not is_problem(row):
                    keys = self._keys(row)
                    if keys is None:
                        columns = {}
                    else:
                        columns = self.map_columns(keys)
                        missing = [f for f in self.spec.required if f not in columns]
                        if missing:
                            yield self.reject(relative(file, root) or posixpath.basename(file),
                                              RejectReason.MISSING_FIELD, self._unmapped(file, keys, missing))
                            break
                yield TableUnit(ref, row, columns or {})

    def _keys(self, row) -> Optional[list[str]]:
        """The keys of a table's first record (decoded here once, for the map)."""
        if isinstance(row, (LineAt, bytes)):
            row = json_row(self.line_files().text(row, "first row"), "first row")
        return sorted(map(str, row)) if isinstance(row, dict) else None

    def _unmapped(self, file: str, keys: list[str], missing: list[str]) -> str:
        example = ", ".join(f"{m}: COLUMN" for m in missing)
        return (f"{posixpath.basename(file)}: no column for {', '.join(missing)}; its keys are "
                f"{', '.join(keys[:20])}{' ...' if len(keys) > 20 else ''}; give "
                f"--option {self.kind}.columns='{{{example}}}'")

    def unit_to_item(self, unit) -> Item:
        if isinstance(unit, Reject):
            return unit
        row = unit.row
        if isinstance(row, (LineAt, bytes)):
            row = json_row(self.line_files().text(row, unit.ref), unit.ref)
        if is_problem(row):
            return self.reject(unit.ref, *row)
        if not isinstance(row, dict):
            return self.reject(unit.ref, RejectReason.MISSING_FIELD, f"{unit.ref}: a {type(row).__name__}, not an object")
        columns = unit.columns or self.map_columns(sorted(map(str, row)))
        values = {field: row.get(column) for field, column in columns.items()}
        missing = [f for f in self.spec.required if values.get(f) is None]
        if missing:
            return self.reject(unit.ref, RejectReason.MISSING_FIELD,
                               f"{unit.ref}: no value for {', '.join(missing)} (columns "
                               f"{', '.join(columns.get(m, '?') for m in missing)})")
        meta = read_meta({k: v for k, v in row.items() if k not in set(columns.values())}, skip=())
        return self.make_row(unit.ref, values, meta)

    def make_row(self, ref: str, values: dict, meta) -> Item:
        declared = values.get("license")
        if isinstance(declared, list):
            declared = " AND ".join(map(str, declared)) if declared else None
        code = values.get("answer") if self.spec.language is None else values.get("kernel_code")
        problem = self.check_values(values)
        if problem:
            return self.reject(ref, *problem)
        fields, problem = self.row_license(code, self._license, declared)
        if problem:
            return self.reject(ref, *problem)
        provenance = self._provenance(ref, values, meta)
        if self.spec.language is None:
            symbol = _text(values.get("symbol")) or _symbol_in(values["question"], values["answer"])
            if symbol is None:
                return self.reject(ref, RejectReason.MISSING_FIELD,
                                   f"{ref}: no symbol column and no roc*/hip* name in the question or answer")
            return QARecord(subset=self.config, library=_text(values.get("library")) or _library_of(ref),
                            kind=_text(values.get("kind")) or "released", question=values["question"],
                            answer=values["answer"], symbol=symbol, provenance=provenance, **fields)
        variant = values.get("variant")
        return KernelRecord(
            subset=self.config, source=self.name, language=self.spec.language,
            task_name=task_name_of(values), pytorch_code=values.get("pytorch_code"),
            pytorch_functional_code=values.get("pytorch_functional_code"), kernel_code=code,
            baseline_kernel_code=values.get("baseline_kernel_code"), provenance=provenance,
            variant=None if variant is None else str(variant), verification=meta.to_verification(), **fields)

    def pipeline_of(self, ref: str) -> str:
        """The ``pipeline`` option, else for Triton the source its file name names (:data:`TRITON_PRESETS`),
        else ``release-v0.2``."""
        if self.option("pipeline"):
            return str(self.option("pipeline"))
        if self.spec.language == "triton":
            name = posixpath.basename(ref.split("[", 1)[0].split(":", 1)[0]).lower()
            for key, pipeline in TRITON_PRESETS.items():
                if key in name:
                    return pipeline
        return "release-v0.2"

    def check_values(self, values: dict) -> Optional[tuple]:
        for field, value in values.items():
            if field in _CODE_FIELDS and value is not None:
                problem = check_code(value, field)
                if problem:
                    return problem
        if self.spec.language is None:
            return None
        name = values.get("task_name")
        if name is not None and (not isinstance(name, (str, int)) or not str(name).strip()):
            return RejectReason.MISSING_FIELD, f"task name is {name!r}"
        if self.spec.language == "hip":
            problem = check_hip_extension(values["kernel_code"])
            if not problem and values.get("baseline_kernel_code") is not None:
                problem = check_hip_extension(values["baseline_kernel_code"], "baseline_kernel_code")
        else:
            problem = check_triton_kernel(values["kernel_code"])
        if problem:
            return problem
        if values.get("pytorch_code") is not None:
            problem = check_reference(values["pytorch_code"])
        if not problem and values.get("pytorch_functional_code") is not None:
            problem = check_python(values["pytorch_functional_code"], "pytorch_functional_code")
        return problem

    def _provenance(self, ref: str, values: dict, meta):
        raw = values.get("path")
        upstream = dict(meta.other)
        path = ref
        if isinstance(raw, dict):                # a provenance object: its path-like key, the rest kept
            upstream["provenance"] = raw
            for key in ("path", "file", "member", "source_path", "hip_path"):
                if isinstance(raw.get(key), str):
                    path = raw[key]
                    break
        elif isinstance(raw, str) and raw.strip():
            upstream["provenance"] = raw
        upstream["row"] = ref
        provenance = make_provenance(self.path, self.options, path, self.pipeline_of(ref), self.revision())
        if values.get("repo"):
            provenance.repo = str(values["repo"])
        if values.get("commit"):
            provenance.commit = str(values["commit"])
        if not meta.found_something():
            upstream.update(meta.verification)
        provenance.upstream = json.dumps(upstream, sort_keys=True, ensure_ascii=False, default=str)
        return provenance


_SAMPLE_IN_PATH = re.compile(r"hip_opt/([^/!]+)/")


def task_name_of(values: dict) -> str:
    """The row's task: its task column; else the sample folder its provenance points into (``hip_opt/<id>/``, the
    v0.1 tar's layout); else one name per distinct input (``question_code``: the reference, or the baseline for
    hip-to-hip), ``q-<hash>``, so that rows of one reference stay one task. v0.2's public columns include no task
    name (docs/notes/layouts.md)."""
    name = values.get("task_name")
    if name is not None:
        return str(name).strip()
    where = values.get("path")
    where = json.dumps(where, sort_keys=True) if isinstance(where, dict) else where
    m = _SAMPLE_IN_PATH.search(where) if isinstance(where, str) else None
    if m:
        return m.group(1)
    source = values.get("pytorch_code") or values.get("baseline_kernel_code") or values.get("kernel_code") or ""
    return "q-" + xxhash.xxh3_64_hexdigest(normalize_code(source).encode("utf-8", "surrogatepass"))


def _text(value) -> Optional[str]:
    return str(value).strip() if isinstance(value, (str, int)) and str(value).strip() else None


_SYMBOL = re.compile(r"\b(?:roc|hip)[a-z]*_\w+")


def _symbol_in(*texts) -> Optional[str]:
    """The first rocBLAS/rocSOLVER-style API name (``rocblas_sgemm``) in the texts, for a QA table without a
    symbol column."""
    for text in texts:
        m = _SYMBOL.search(text) if isinstance(text, str) else None
        if m:
            return m.group()
    return None


def _library_of(ref: str) -> str:
    lowered = ref.lower()
    for name in ("rocsolver", "rocblas", "hipblas", "hipsolver", "rocfft", "rocrand", "rocsparse", "miopen"):
        if name in lowered:
            return name
    return "rocm-libraries"


class V02CudaAgentSource(ReleaseTableSource):
    kind = "v02_cudaagent"
    config = "hip_cudaagent"
    description = "v0.2 pytorch_hip_kernel_cuda_agent_ops_6k tables (question_code -> answer_code)"
    spec = _subset("pytorch_hip_kernel_cuda_agent_ops_6k", "hip", ("pytorch_code", "kernel_code"))


class V02GpuModeSource(ReleaseTableSource):
    kind = "v02_gpumode"
    config = "hip_gpumode"
    description = "v0.2 pytorch_hip_kernel_gpumode tables (question_code -> answer_code)"
    spec = _subset("pytorch_hip_kernel_gpumode", "hip", ("pytorch_code", "kernel_code"))


class V02Hip2HipSource(ReleaseTableSource):
    kind = "v02_hip2hip"
    config = "hip2hip"
    description = "v0.2 hip-to-hip tables (question_code: the baseline HIP -> answer_code)"
    spec = _subset("hip-to-hip", "hip", ("baseline_kernel_code", "kernel_code"),
                   baseline_kernel_code=("question_code",))


class V02QaSource(ReleaseTableSource):
    kind = "v02_qa"
    config = "qa"
    description = "v0.2 rocm-libraries QA tables (released rocBLAS/rocSOLVER QA entries)"
    spec = _subset("rocm-libraries", None, ("question", "answer"))


class V02TritonSource(ReleaseTableSource):
    """The four Triton sources of v0.2. ``preset`` (``stack``, ``bench``, ``gpumode``, ``aice``) names the source
    of every table read; without it a table's file name names it. Their columns are not public beyond the unified
    schema's, so every preset maps columns as the other v0.2 kinds do (``columns`` overrides)."""

    kind = "v02_triton"
    config = "triton"
    description = "v0.2 PyTorch_triton_datasets tables (Triton-Stack, -Bench, -GPUMode, -AICE; preset=...)"
    spec = _subset("PyTorch_triton_datasets", "triton", ("kernel_code",))
    options_known = ReleaseTableSource.options_known | {"preset"}

    def check_options(self) -> None:
        super().check_options()
        preset = self.option("preset")
        if preset is not None and str(preset).lower() not in TRITON_PRESETS:
            raise self.option_error(f"`preset` must be one of {', '.join(TRITON_PRESETS)}, got {preset!r}")

    def pipeline_of(self, ref: str) -> str:
        preset = self.option("preset")
        if preset is not None and not self.option("pipeline"):
            return TRITON_PRESETS[str(preset).lower()]
        return super().pipeline_of(ref)


#: folder name -> kind, for the release's expander and for ``kvdata sources --inspect``.
V02_KINDS: dict[str, str] = {cls.spec.folder: cls.kind for cls in
                             (V02CudaAgentSource, V02GpuModeSource, V02Hip2HipSource, V02QaSource, V02TritonSource)}
