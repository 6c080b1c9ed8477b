"""The lab's RL training data: the ``rl_data*.json`` lists and the veRL parquet made from them.

Both layouts are read as AMD's converter reads them (hip_kernel_llm_lab
``rl/rl4kernel_hip/dataset/convert_to_verl_parquet.py``; docs/notes/layouts.md):

* ``hip_rl_data``: a JSON list of records whose ``data_info`` holds ``name`` (a kernel name or a list of
  them), ``hip_code_path``, ``pytorch_code_module`` and ``pytorch_code_functional`` (*paths* on AMD's
  machines, e.g. ``/home/.../AIG-Datasets/v0.1/.../hip_opt/<id>/<file>.hip``), ``original_code_body`` and
  ``signature``. Each path is remapped under the ``reference_root`` option (the v0.1 gpumode tree; found
  near the JSON file when not given) at the first of the markers ``hip_opt`` / ``pytorch_code_module`` /
  ``pytorch_code_functional``, as the converter does. A path that does not remap is a ``missing_file``
  reject naming the path: kvdata never reads a record's path as it stands (it would read any file of the
  build machine). The sample id, and so the task, is the folder of the HIP file.
* ``hip_verl``: the converter's parquet (``*_verl.parquet``): ``reward_model.ground_truth`` holds
  ``hip_code``, ``pytorch_module_code``, ``pytorch_functional_code``, ``kernel_name``, ``atol``, ``rtol``;
  ``extra_info.kernel_id_name`` is the sample id.

Both give ``hip_gpumode`` rows (they are the v0.1 gpumode kernels, chosen for RL): a build that also reads
the v0.1 tree removes the copies as duplicates. What the record says beyond the code (kernel name, signature,
the prompt's starter code, tolerances, the data source) is kept in ``provenance.upstream``.
"""
from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from typing import Any, Iterator, Optional

from kvdata.builders.base import Item, UnitSource, open_fs
from kvdata.builders.common import COMMON_OPTIONS, check_code, check_hip_extension, check_python, \
    check_reference, is_problem, make_provenance, read_text, relative, within
from kvdata.builders.hip_gpumode import RELEASE_PATH, is_gpumode_root
from kvdata.builders.locate import AmbiguousTree, find_subtree, is_dir, release_top
from kvdata.builders.tables import iter_json_array, iter_parquet, list_input_files
from kvdata.schema import KernelRecord, Reject, RejectReason

#: The markers at which AMD's converter re-anchors a recorded path under the reference root.
REFERENCE_PATH_MARKERS = ("hip_opt", "pytorch_code_module", "pytorch_code_functional")
RL_DATA_GLOB = "rl_data"           # files whose name starts with it, .json
#: How far above the named folder the reference tree is looked for (the lab keeps dataset/hip_kernel_rldataset/
#: beside dataset/AIG-Datasets/); only a tree in a folder named as the release names it is taken there.
_SEARCH_UP = 1
GPUMODE_FOLDER = "pytorch_hip_kernel_gpumode"


@dataclass
class RlUnit:
    """One record of an rl_data list (or the problem with it)."""

    ref: str
    record: Any
    reference_root: Optional[str]       # the v0.1 gpumode tree the paths remap under
    root_problem: Optional[str]         # why there is none
    tree: Any


def remap(raw: str, reference_root: str) -> Optional[str]:
    """AMD's recorded path under ``reference_root``: re-anchored at the root's own folder name, else at the
    first marker; None when neither is on the path or the result would leave the root."""
    parts = [p for p in str(raw).replace("\\", "/").split("/") if p not in ("", ".")]
    anchor = posixpath.basename(reference_root.rstrip("/"))
    tails = []
    if anchor in parts:
        tails.append(parts[parts.index(anchor) + 1:])
    for marker in REFERENCE_PATH_MARKERS:
        if marker in parts:
            tails.append(parts[parts.index(marker):])
            break
    for tail in tails:
        if tail:
            path = within(reference_root, posixpath.join(reference_root, *tail))
            if path is not None:
                return path
    return None


def kernel_name(name: Any) -> Optional[str]:
    """``data_info.name``: a string, or the first of a list (the converter's rule)."""
    if isinstance(name, str):
        return name
    if isinstance(name, list) and name and isinstance(name[0], str):
        return name[0]
    return None


class HipRlDataSource(UnitSource):
    """AMD's ``rl_data*.json`` lists, their paths remapped under the v0.1 gpumode tree.

    Options: ``reference_root`` (the gpumode tree, or a release folder above it; default: a
    ``pytorch_hip_kernel_gpumode`` tree in the named folder or its parent), ``license`` (else the LICENSE of the reference tree or the release above it),
    ``allow``, ``repo``, ``commit``, ``path_prefix``, ``generator``, ``hardware``, ``arch``, ``name``.
    """

    kind = "hip_rl_data"
    config = "hip_gpumode"
    pipeline = "rl_data"
    description = "the lab's rl_data*.json lists (data_info paths remapped under the v0.1 gpumode tree)"
    options_known = COMMON_OPTIONS | {"reference_root"}

    def read_units(self) -> Iterator[object]:
        fs, named = self.tree()
        files = self._files(fs, named)
        if is_problem(files):
            yield self.reject(self.path, *files)
            return
        self.revision()
        top = named if is_dir(fs, named) else posixpath.dirname(named)
        root, problem = self._reference_root(fs, top)
        from kvdata.licenses import license_root

        tree = self.tree_license(fs, license_root(fs, root, release_top(root)) if root else top)
        for file in files:
            for ref, record in iter_json_array(fs, file):
                yield RlUnit(relative(ref, top), record, root, problem, tree)

    def _files(self, fs, named: str):
        if not is_dir(fs, named):
            return [named]
        found = list_input_files(fs, named, (".json",))
        if is_problem(found):
            return found
        files = [f for f in found if posixpath.basename(f).startswith(RL_DATA_GLOB)]
        return files or (RejectReason.MISSING_FILE, f"no {RL_DATA_GLOB}*.json under {named}")

    def _reference_root(self, fs, top: str) -> tuple[Optional[str], Optional[str]]:
        """(the gpumode tree the paths remap under, None) or (None, why there is none)."""
        stated = self.option("reference_root")
        starts = [str(stated)] if stated else [top] + [_up(top, n) for n in range(1, _SEARCH_UP + 1)]
        ref_fs = fs
        if stated and "://" in str(stated):
            ref_fs, stated_root = open_fs(str(stated))
            starts = [stated_root]
        def marker(folder: str) -> bool:
            named_like_release = stated or posixpath.basename(folder.rstrip("/")) == GPUMODE_FOLDER
            return bool(named_like_release) and is_gpumode_root(ref_fs, folder)

        for start in dict.fromkeys(starts):
            try:
                found = find_subtree(ref_fs, start, marker, RELEASE_PATH)
            except AmbiguousTree as e:
                return None, str(e)
            if found is not None:
                return found.root, None
        where = f"under {stated}" if stated else f"at or above {top}"
        return None, (f"no v0.1 gpumode tree (pytorch_code_module/) {where}; "
                      f"give --option {self.kind}.reference_root=PATH")

    def unit_to_item(self, unit) -> Item:
        if isinstance(unit, Reject):
            return unit
        fs, _ = self.tree()
        ref, record = unit.ref, unit.record
        if is_problem(record):
            return self.reject(ref, *record)
        info = record.get("data_info") if isinstance(record, dict) else None
        if not isinstance(info, dict):
            if isinstance(record, dict) and "kernel_name" in record and "input" in record:
                return self.reject(ref, RejectReason.MISSING_FIELD,
                                   "a kernel2kernel record (kernel_name/input): not an rl_data record with data_info")
            return self.reject(ref, RejectReason.MISSING_FIELD, "no `data_info` object")
        if unit.reference_root is None:
            return self.reject(ref, RejectReason.MISSING_FILE, unit.root_problem or "no reference tree")
        texts = {}
        for key in ("hip_code_path", "pytorch_code_module", "pytorch_code_functional"):
            raw = info.get(key)
            if not isinstance(raw, str) or not raw.strip():
                return self.reject(ref, RejectReason.MISSING_FIELD, f"data_info.{key} is missing or not a path")
            path = remap(raw, unit.reference_root)
            if path is None:
                return self.reject(ref, RejectReason.MISSING_FILE,
                                   f"data_info.{key} {raw!r} does not remap under {unit.reference_root} "
                                   f"(no {'/'.join(REFERENCE_PATH_MARKERS)} on the path)")
            text = read_text(fs, path)
            if is_problem(text):
                return self.reject(ref, text[0], f"data_info.{key} {raw!r} -> {text[1]}")
            texts[key] = (path, text)
        hip_path, kernel = texts["hip_code_path"]
        problem = (check_hip_extension(kernel) or check_reference(texts["pytorch_code_module"][1])
                   or check_code(texts["pytorch_code_functional"][1], "pytorch_functional_code")
                   or check_python(texts["pytorch_code_functional"][1], "pytorch_functional_code"))
        if problem:
            return self.reject(ref, *problem)
        license_, problem = self.row_license(kernel, unit.tree)
        if problem:
            return self.reject(ref, *problem)
        sample_id = posixpath.basename(posixpath.dirname(hip_path))
        variant = relative(hip_path, unit.reference_root)
        variant = variant[: -len(".hip")] if variant.endswith(".hip") else variant
        provenance = make_provenance(self.path, self.options, ref, self.pipeline, self.revision())
        upstream = {k: v for k, v in info.items() if k not in ("hip_code_path", "pytorch_code_module",
                                                               "pytorch_code_functional")}
        upstream["paths"] = {k: relative(p, unit.reference_root) for k, (p, _) in texts.items()}
        provenance.upstream = json.dumps(upstream, sort_keys=True, ensure_ascii=False, default=str)
        return KernelRecord(
            subset=self.config, source=self.name, language="hip", task_name=sample_id,
            pytorch_code=texts["pytorch_code_module"][1], pytorch_functional_code=texts["pytorch_code_functional"][1],
            kernel_code=kernel, provenance=provenance, variant=variant, **license_,
        )


def _up(path: str, n: int) -> str:
    for _ in range(n):
        path = posixpath.dirname(path.rstrip("/")) or "/"
    return path


# ----------------------------------------------------------------- the converter's veRL parquet
@dataclass
class VerlUnit:
    ref: str
    row: Any
    tree: Any


class HipVerlSource(UnitSource):
    """The lab's veRL parquet (``*_verl.parquet``): the ground truth of each row becomes a row.

    Options: ``license`` (else a LICENSE beside the parquet), ``allow``, ``repo``, ``commit``, ``path_prefix``,
    ``generator``, ``name``.
    """

    kind = "hip_verl"
    config = "hip_gpumode"
    pipeline = "verl"
    description = "the lab's veRL parquet (reward_model.ground_truth: hip_code, PyTorch module and functional)"
    options_known = COMMON_OPTIONS

    def read_units(self) -> Iterator[object]:
        fs, named = self.tree()
        files = list_input_files(fs, named, (".parquet",))
        if is_problem(files):
            yield self.reject(self.path, *files)
            return
        top = named if is_dir(fs, named) else posixpath.dirname(named)
        tree = self.tree_license(fs, top)
        self.revision()
        for file in files:
            for ref, row in iter_parquet(fs, file):
                yield VerlUnit(relative(ref, top), row, tree)

    def unit_to_item(self, unit) -> Item:
        if isinstance(unit, Reject):
            return unit
        ref, row = unit.ref, unit.row
        if is_problem(row):
            return self.reject(ref, *row)
        reward = _as_dict(row.get("reward_model"))
        truth = _as_dict(reward.get("ground_truth")) if reward else None
        if not truth:
            return self.reject(ref, RejectReason.MISSING_FIELD, "no reward_model.ground_truth")
        extra = _as_dict(row.get("extra_info")) or {}
        kernel, module, functional = (truth.get("hip_code"), truth.get("pytorch_module_code"),
                                      truth.get("pytorch_functional_code"))
        problem = (check_code(kernel, "ground_truth.hip_code") or check_hip_extension(kernel)
                   or check_reference(module, "ground_truth.pytorch_module_code")
                   or check_code(functional, "ground_truth.pytorch_functional_code")
                   or check_python(functional, "ground_truth.pytorch_functional_code"))
        if problem:
            return self.reject(ref, *problem)
        task = extra.get("kernel_id_name") or extra.get("sample_id") or truth.get("kernel_name")
        if not isinstance(task, str) or not task.strip() or task == "unknown":
            return self.reject(ref, RejectReason.MISSING_FIELD, "no extra_info.kernel_id_name or kernel_name")
        license_, problem = self.row_license(kernel, unit.tree)
        if problem:
            return self.reject(ref, *problem)
        provenance = make_provenance(self.path, self.options, ref, self.pipeline, self.revision())
        upstream = {"data_source": row.get("data_source"), "ability": row.get("ability"),
                    "style": reward.get("style"),
                    **{k: v for k, v in truth.items() if k not in ("hip_code", "pytorch_module_code",
                                                                   "pytorch_functional_code")},
                    "extra_info": {k: v for k, v in extra.items() if k not in ("original_code_body",)}}
        provenance.upstream = json.dumps(upstream, sort_keys=True, ensure_ascii=False, default=str)
        name = truth.get("kernel_name")
        return KernelRecord(
            subset=self.config, source=self.name, language="hip", task_name=task.strip(),
            pytorch_code=module, pytorch_functional_code=functional, kernel_code=kernel, provenance=provenance,
            variant=f"verl/{name}" if isinstance(name, str) and name else None, **license_,
        )


def _as_dict(value) -> Optional[dict]:
    """A struct column as read from parquet (a dict), or one written as JSON text."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            loaded = json.loads(value)
        except json.JSONDecodeError:
            return None
        return loaded if isinstance(loaded, dict) else None
    return None
