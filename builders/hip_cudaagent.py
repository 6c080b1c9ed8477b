"""HIP-CudaAgent: PyTorch operators whose CUDA kernels were translated to HIP.

Layout read::

    <root>/LICENSE                  (optional when every record, or the ``license`` option, names one)
    <root>/*.jsonl                  one translated task per line (option ``files``: a glob under the root)

A line is a JSON object with

=========================  ========  ==========================================================
field                      required  meaning
=========================  ========  ==========================================================
``task_name``              yes       operator / task name
``pytorch_code``           yes       KernelBench-style reference (class Model, get_inputs)
``hip_code``               yes       the HIP PyTorch extension (PYBIND11_MODULE)
``pytorch_functional_code``  no      functional form (module_fn)
``cuda_code``              no        the CUDA kernel the HIP was translated from
``license``                no        SPDX name of the record (unknown: rejected); else option; else LICENSE
``repo``, ``path``,        no        upstream location of the record (provenance)
``commit``, ``generator``
``variant``                no        distinguishes several translations of one task
``verification``           no        object with any ``schema.Verification`` field
=========================  ========  ==========================================================

The CUDA source is *dropped* from the row: ``baseline_kernel_code`` is null in this
config (the baseline columns mean "HIP before optimisation", which a CUDA source is
not), and the schema has no CUDA column. Provenance keeps the upstream repo and path,
so the CUDA original stays one lookup away. One input record is one non-blank line (lines end at
``\n``; a line that is not UTF-8 is one ``bad_encoding`` reject, the file's other lines are read).
"""
from __future__ import annotations

import dataclasses
import json
from typing import Iterator, Optional

from kvdata.builders.base import Item, UnitSource, located_lines
from kvdata.builders.common import check_code, check_hip_extension, check_python, check_reference, is_problem
from kvdata.builders.common import COMMON_OPTIONS, glob_sorted, make_provenance, relative
from kvdata.builders.tables import load_json
from kvdata.schema import KernelRecord, Reject, RejectReason, Verification

DEFAULT_FILES = "*.jsonl"
REQUIRED_TEXT = ("task_name", "pytorch_code", "hip_code")
_VERIFICATION_FIELDS = {f.name: f for f in dataclasses.fields(Verification)}


def verification_from_record(value) -> Optional[Verification]:
    """A Verification from a record's ``verification`` object; unknown keys and wrong types are dropped."""
    if not isinstance(value, dict):
        return None
    kept = {}
    for key, item in value.items():
        if key not in _VERIFICATION_FIELDS or item is None:
            continue
        kind = _VERIFICATION_FIELDS[key].type
        if "bool" in kind and isinstance(item, bool):
            kept[key] = item
        elif "float" in kind and isinstance(item, (int, float)) and not isinstance(item, bool):
            kept[key] = float(item)
        elif "str" in kind and isinstance(item, str):
            kept[key] = item
    return Verification(**kept) if kept else None


class HipCudaAgentSource(UnitSource):
    """CUDA -> HIP translations with their PyTorch references, one JSON object per line.

    Options: ``files`` (glob under the root, default ``*.jsonl``), ``license``, ``allow``,
    ``repo``, ``commit``, ``path_prefix``, ``generator``, ``name``.
    """

    kind = "hip_cudaagent"
    config = "hip_cudaagent"
    pipeline = "cuda-agent"
    description = "HIP-CudaAgent: PyTorch references with HIP extensions translated from CUDA"
    options_known = COMMON_OPTIONS | {"files"}

    # ``read`` (UnitSource) is ``unit_to_item`` over ``read_units``, so that the build can run
    # the costly half (JSON, license, parsing the reference) in worker processes.
    def read_units(self) -> Iterator[tuple]:
        """One unit per input record: a Reject for a file-level problem, else (file name, line number,
        line), the line located (:func:`kvdata.builders.base.located_lines`)."""
        fs, root = self.tree()
        pattern = self.option("files", DEFAULT_FILES)
        files = glob_sorted(fs, root, pattern)
        if not files:
            yield self.reject(self.path, RejectReason.MISSING_FILE, f"no {pattern} under {self.path}")
            return
        self.tree_license(fs, root)         # once, here: the pickled Source takes it to the workers
        self.revision()
        for path in files:
            name = relative(path, root)
            yield from located_lines(self, fs, path, name)

    def unit_to_item(self, unit) -> Item:
        if isinstance(unit, Reject):
            return unit
        fs, root = self.tree()
        return self._translation(fs, root, *unit)

    def _translation(self, fs, root, name, lineno, line) -> Item:
        ref = f"{name}:{lineno}"
        text = self.line_files().text(line, ref)
        if is_problem(text):
            return self.reject(ref, *text)
        try:
            record = load_json(text)
        except json.JSONDecodeError as e:
            return self.reject(ref, RejectReason.BAD_JSON, f"{ref}: {e.msg} at column {e.colno}")
        if not isinstance(record, dict):
            return self.reject(ref, RejectReason.BAD_JSON, f"{ref}: a {type(record).__name__}, not an object")
        for field in REQUIRED_TEXT:
            problem = check_code(record.get(field), field)
            if problem:
                return self.reject(ref, *problem)
        fields, problem = self.row_license(record["hip_code"], self.tree_license(fs, root), record.get("license"))
        if problem:
            return self.reject(ref, *problem)
        problem = check_hip_extension(record["hip_code"]) or check_reference(record["pytorch_code"])
        if problem:
            return self.reject(ref, *problem)
        functional = record.get("pytorch_functional_code")
        if functional is not None:
            problem = (check_code(functional, "pytorch_functional_code")
                       or check_python(functional, "pytorch_functional_code"))
            if problem:
                return self.reject(ref, *problem)
        variant = record.get("variant")
        return KernelRecord(
            subset=self.config, source=self.name, language="hip", task_name=record["task_name"].strip(),
            pytorch_code=record["pytorch_code"], pytorch_functional_code=functional,
            kernel_code=record["hip_code"], baseline_kernel_code=None, **fields,
            provenance=self._provenance(record, name),
            variant=str(variant) if variant is not None else None,
            verification=verification_from_record(record.get("verification")),
        )

    def _provenance(self, record: dict, name: str):
        """Record fields (repo/path/commit/generator) win over options; the path defaults to the file."""
        given = {k: record[k] for k in ("repo", "path", "commit", "generator")
                 if isinstance(record.get(k), str) and record[k]}
        options = {**self.options, **given}
        if "path" in given:  # an upstream path is used as is, without this tree's prefix
            options["path_prefix"] = ""
        return make_provenance(self.path, options, given.get("path", name), self.pipeline, self.revision())
