"""Tests for the four Triton Sources (builders/triton.py) on real files: the bundled sample,
the real TritonBench-G JSON, and small malformed inputs written here with json/pyarrow."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from kvdata.builders import source_class
from kvdata.builders.base import SourceOptionError
from kvdata.builders.triton import (
    TritonGithubSource,
    TritonKernelBenchSource,
    TritonKernelBookSource,
    TritonTableSource,
)
from kvdata.schema import KernelRecord, Reject, RejectReason

REPO = Path(__file__).resolve().parent.parent
TRITON_SAMPLE = REPO / "builders" / "sample" / "triton"
R = RejectReason

REFERENCE = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
'''

KERNEL = '''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
        return out
'''


def reasons(items) -> Counter:
    return Counter(i.reason for i in items if isinstance(i, Reject))


def records(items) -> list[KernelRecord]:
    return [i for i in items if isinstance(i, KernelRecord)]


def write_jsonl(path: Path, lines: list) -> Path:
    """Lines are dicts (dumped), str (written as is) or bytes (written raw)."""
    with path.open("wb") as f:
        for line in lines:
            if isinstance(line, dict):
                line = json.dumps(line)
            f.write(line if isinstance(line, bytes) else line.encode("utf-8"))
            f.write(b"\n")
    return path


# ------------------------------------------------------------------ the bundled sample
def sample_sources():
    specs = yaml.safe_load((TRITON_SAMPLE / "sources.yaml").read_text())
    return [source_class(s["kind"])(str(TRITON_SAMPLE / s["path"]), **(s.get("options") or {})) for s in specs]


def test_sample_sources_cover_expected_labels():
    expected = json.loads((TRITON_SAMPLE / "expected.json").read_text())
    items = [item for source in sample_sources() for item in source.read()]
    assert len(items) == len(expected)            # one item per task, none lost, none invented
    kept = {r.task_name: r for r in records(items)}
    rejected = [i for i in items if isinstance(i, Reject)]
    assert set(kept) == {n for n, lab in expected.items() if lab in ("correct", "incorrect")}
    assert sorted(i.message.split(": ", 1)[0] for i in rejected) == sorted(
        n for n, lab in expected.items() if lab == "malformed")
    assert {r.source for r in kept.values()} == {"triton_kernelbench", "triton_kernelbook", "triton_github", "triton_table"}
    assert all(r.language == "triton" and r.pytorch_code and r.license for r in kept.values())
    assert all(i.config == "triton" for i in rejected)
    assert reasons(items) == Counter({R.NO_GET_INPUTS: 1, R.NO_KERNEL: 1, R.EMPTY_CODE: 1,
                                      R.MISSING_LICENSE: 1, R.UNKNOWN_LICENSE: 1})


def test_sample_ids_unique_and_stable_across_reads():
    first = [i.id for s in sample_sources() for i in records(s.read())]
    second = [i.id for s in sample_sources() for i in records(s.read())]
    assert first == second
    assert len(set(first)) == len(first)
    assert all(i.startswith("triton-") for i in first)


def test_sample_rows_fit_the_arrow_schema():
    from kvdata.schema import arrow_schema

    rows = [r.to_row() for s in sample_sources() for r in records(s.read())]
    table = pa.Table.from_pylist(rows, schema=arrow_schema("triton"))
    assert table.num_rows == len(rows)


def test_sample_labels_hold_on_the_triton_interpreter(tmp_path):
    """The dev checker runs every pair on the CPU interpreter and exits 1 on any label mismatch."""
    out = tmp_path / "check.json"
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "check_triton_sample.py"), "--seeds", "2",
                           "--json", str(out)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TRITON_INTERPRET": "1"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    report = json.loads(out.read_text())
    observed = {r["task"]: r["observed"] for r in report["rows"]}
    assert observed == json.loads((TRITON_SAMPLE / "expected.json").read_text())


# ------------------------------------------------------------------ (a) triton_github
def test_real_tritonbench_g_reads_184_items(shared_data):
    path = shared_data / "tritonbench" / "TritonBench_G_v1.json"
    items = list(TritonGithubSource(str(path), license="Apache-2.0").read())
    assert len(items) == 184
    kept = records(items)
    assert len(kept) == 184
    assert all(r.pytorch_code is None and r.license == "Apache-2.0" for r in kept)
    raw = json.loads(path.read_text())
    assert [r.provenance.repo for r in kept] == [x["repo"] for x in raw]
    assert [r.provenance.path for r in kept] == [x["file"] for x in raw]
    assert [r.task_name for r in kept] == [x["file"].rsplit(".", 1)[0] for x in raw]
    ids = [r.id for r in kept]
    assert len(set(ids)) == 184
    assert ids == [r.id for r in records(TritonGithubSource(str(path), license="Apache-2.0").read())]


def test_real_tritonbench_g_without_license_rejects_every_record(shared_data):
    items = list(TritonGithubSource(str(shared_data / "tritonbench" / "TritonBench_G_v1.json")).read())
    assert len(items) == 184
    assert reasons(items) == Counter({R.MISSING_LICENSE: 184})


def test_github_reference_field_and_per_record_license(tmp_path):
    rows = [
        {"repo": "a/b", "file": "k1.py", "output": KERNEL},                                  # no reference
        {"repo": "a/b", "file": "dir/k2.py", "output": KERNEL, "ref": REFERENCE, "lic": "BSD-3-Clause"},
        {"repo": "a/b", "file": "k3.py", "output": KERNEL, "ref": "def f(): pass\n"},         # malformed ref
        {"repo": "a/b", "file": "k4.py", "output": KERNEL, "ref": ""},                        # empty ref
        {"repo": "a/b", "file": "k5.py", "output": KERNEL, "lic": "Some-Custom-EULA"},
        {"repo": "a/b", "output": KERNEL},                                                    # no file
        ["not", "an", "object"],
    ]
    path = tmp_path / "mined.json"
    path.write_text(json.dumps(rows))
    items = list(TritonGithubSource(str(path), license="MIT", reference_field="ref", license_field="lic").read())
    assert len(items) == len(rows)
    k1, k2 = records(items)
    assert (k1.task_name, k1.pytorch_code, k1.license) == ("k1", None, "MIT")
    assert (k2.task_name, k2.pytorch_code, k2.license, k2.provenance.path) == ("k2", REFERENCE, "BSD-3-Clause", "dir/k2.py")
    assert [i.reason for i in items[2:]] == [R.NO_MODEL_CLASS, R.EMPTY_CODE, R.UNKNOWN_LICENSE,
                                             R.MISSING_FIELD, R.MISSING_FIELD]
    assert items[2].ref == f"{path}[2]" and items[2].message.startswith("k3: ")


def test_github_jsonl_form_and_whole_file_problems(tmp_path):
    good = {"repo": "a/b", "file": "k.py", "output": KERNEL}
    jsonl = write_jsonl(tmp_path / "mined.jsonl", [good, "", "{not json", b"\xff\xfe bad bytes", good])
    items = list(TritonGithubSource(str(jsonl), license="MIT").read())
    assert [type(i).__name__ for i in items] == ["KernelRecord", "Reject", "Reject", "KernelRecord"]
    assert [i.reason for i in items if isinstance(i, Reject)] == [R.BAD_JSON, R.BAD_ENCODING]
    assert items[1].ref == f"{jsonl}:3"

    broken = tmp_path / "broken.json"
    broken.write_text('[{"file": "a.py"')
    assert [(i.reason, i.ref) for i in TritonGithubSource(str(broken), license="MIT").read()] == [(R.BAD_JSON, str(broken))]
    latin = tmp_path / "latin.json"
    latin.write_bytes('[{"file": "caf\u00e9.py"}]'.encode("latin-1"))
    assert [i.reason for i in TritonGithubSource(str(latin), license="MIT").read()] == [R.BAD_ENCODING]
    missing = [i.reason for i in TritonGithubSource(str(tmp_path / "nope.json"), license="MIT").read()]
    assert missing == [R.MISSING_FILE]


def test_github_kernel_checks(tmp_path):
    rows = [
        {"file": "empty.py", "output": "  \n"},
        {"file": "plain.py", "output": "import torch\n\ndef f(x):\n    return x + 1\n"},
        {"file": "syntax.py", "output": "@triton.jit\ndef k(:\n"},
        {"file": "none.py", "output": None},
        {"file": "surrogate.py", "output": KERNEL + "# \ud800\n"},
    ]
    path = tmp_path / "g.json"
    path.write_text(json.dumps(rows))          # json.dumps escapes the lone surrogate as \\ud800
    items = list(TritonGithubSource(str(path), license="MIT").read())
    assert [i.reason for i in items] == [R.EMPTY_CODE, R.NO_KERNEL, R.SYNTAX_ERROR, R.MISSING_FIELD, R.BAD_ENCODING]


# ------------------------------------------------------------------ (b) triton_kernelbook
def kernelbook_row(entry="Doubler", python_code=None, triton_code=None, licenses=("MIT",)):
    python_code = python_code if python_code is not None else f'''import torch
import torch.nn as nn


class {entry}(nn.Module):
    def __init__(self, k=1.0):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x * 2 * self.k


def get_inputs():
    return [torch.rand([4, 4])]


def get_init_inputs():
    return [[], {{'k': 3.0}}]
'''
    triton_code = triton_code if triton_code is not None else KERNEL.replace("class ModelNew", f"class {entry}New")
    return {"entry_point": entry, "python_code": python_code, "triton_code": triton_code, "repo_name": "o/r",
            "module_name": entry.lower(), "licenses": list(licenses), "sha": "abc123", "synthetic": False,
            "stars": 1, "original_triton_code": None}


def test_kernelbook_parquet_in_batches(tmp_path):
    rows = [kernelbook_row(f"Mod{i}") for i in range(7)]
    rows += [
        kernelbook_row("NoClass", python_code=REFERENCE),                                   # class Model, not NoClass
        kernelbook_row("NoInputs", python_code="import torch.nn as nn\n\nclass NoInputs(nn.Module):\n    pass\n"),
        kernelbook_row("NoNew", triton_code=KERNEL),                                         # ModelNew, not NoNewNew
        kernelbook_row("NoJit", triton_code="class NoJitNew:\n    pass\n"),
        kernelbook_row("NoLicense", licenses=()),
        kernelbook_row("OddLicense", licenses=("MIT", "Weird-1.0")),
        kernelbook_row("Two", licenses=("MIT", "Apache-2.0")),
        {**kernelbook_row("X"), "entry_point": None},
    ]
    path = tmp_path / "kb.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=3)
    items = list(TritonKernelBookSource(str(path), batch_size=2).read())
    assert len(items) == len(rows)
    kept = records(items)
    assert [r.task_name for r in kept] == [f"Mod{i}" for i in range(7)] + ["Two"]
    assert kept[-1].license == "MIT AND Apache-2.0"
    assert [i.reason for i in items if isinstance(i, Reject)] == [
        R.NO_MODEL_CLASS, R.NO_GET_INPUTS, R.NO_KERNEL, R.NO_KERNEL, R.MISSING_LICENSE, R.UNKNOWN_LICENSE,
        R.MISSING_FIELD]
    first = kept[0]
    assert (first.provenance.repo, first.provenance.path, first.provenance.commit) == ("o/r", "mod0", "abc123")
    assert first.pytorch_code.startswith(rows[0]["python_code"].rstrip("\n"))   # upstream text kept verbatim
    assert "class Model(Mod0):" in first.pytorch_code and "class ModelNew(Mod0New):" in first.kernel_code


def test_kernelbook_alias_runs_in_kernelbench_convention(tmp_path):
    """The appended Model alias accepts KernelBook's [args, kwargs] and keeps the entry point's parameters."""
    path = tmp_path / "kb.parquet"
    pq.write_table(pa.Table.from_pylist([kernelbook_row("Doubler")]), path)
    (record,) = TritonKernelBookSource(str(path)).read()
    namespace: dict = {}
    exec(compile(record.pytorch_code, "reference", "exec"), namespace)  # our own test code, not sample input
    model = namespace["Model"](*namespace["get_init_inputs"]())
    assert isinstance(model, namespace["Doubler"]) and model.k == 3.0
    assert namespace["Model"](2.0).k == 2.0                               # a flat KernelBench list works too


def test_kernelbook_verbatim_mode_and_bad_files(tmp_path):
    path = tmp_path / "kb.parquet"
    row = kernelbook_row("Doubler")
    pq.write_table(pa.Table.from_pylist([row]), path)
    (record,) = TritonKernelBookSource(str(path), kernelbench_aliases=False).read()
    assert record.pytorch_code == row["python_code"] and record.kernel_code == row["triton_code"]

    no_code = tmp_path / "nocode.parquet"
    pq.write_table(pa.table({"entry_point": ["A", "B"], "licenses": [["MIT"], ["MIT"]]}), no_code)
    assert [i.reason for i in TritonKernelBookSource(str(no_code)).read()] == [R.MISSING_FIELD, R.MISSING_FIELD]
    fake = tmp_path / "fake.parquet"
    fake.write_text("not parquet")
    assert [i.reason for i in TritonKernelBookSource(str(fake)).read()] == [R.UNREADABLE]


def test_kernelbook_folder_of_parquet_files(tmp_path):
    for name in ("b.parquet", "a.parquet"):
        pq.write_table(pa.Table.from_pylist([kernelbook_row(name[0].upper())]), tmp_path / name)
    (tmp_path / "README.md").write_text("ignored")
    assert [r.task_name for r in TritonKernelBookSource(str(tmp_path)).read()] == ["A", "B"]


# ------------------------------------------------------------------ (c) triton_kernelbench
def make_task(root: Path, name: str, reference: str | None = REFERENCE, kernels: dict | None = None, meta=None):
    folder = root / name
    folder.mkdir(parents=True)
    if reference is not None:
        (folder / "reference.py").write_text(reference)
    for fname, text in (kernels if kernels is not None else {"kernel.py": KERNEL}).items():
        (folder / fname).write_bytes(text if isinstance(text, bytes) else text.encode())
    if meta is not None:
        (folder / "meta.json").write_text(meta if isinstance(meta, str) else json.dumps(meta))


MIT_TEXT = """MIT License

Copyright (c) 2025 Someone

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
documentation files (the "Software"), to deal in the Software without restriction, including without limitation
the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
permit persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of
the Software.
"""


def test_kernelbench_folder_layout(tmp_path):
    root = tmp_path / "runs"
    make_task(root, "relu", kernels={"kernel.py": KERNEL, "kernel_v2.py": KERNEL + "\n# tuned\n", "notes.txt": "x"})
    make_task(root, "no_ref", reference=None)
    make_task(root, "no_kernels", kernels={})
    make_task(root, "no_inputs", reference=REFERENCE.replace("def get_inputs", "def make_inputs"))
    make_task(root, "no_model", reference=REFERENCE.replace("class Model", "class Net"))
    make_task(root, "latin", kernels={"kernel.py": KERNEL.encode() + b"# caf\xe9\n"})
    make_task(root, "meta_lic", meta={"license": "BSD-2-Clause", "generator": "agent-x"})
    make_task(root, "bad_meta", meta="{oops")
    make_task(root, "meta_unknown", meta={"license": "All rights reserved"})
    (root / "LICENSE").write_text(MIT_TEXT)
    items = list(TritonKernelBenchSource(str(root)).read())
    assert len(items) == 10                  # 9 kernel files + 1 task folder without any
    by_ref = {Path(i.provenance.path if isinstance(i, KernelRecord) else i.ref).parts[-2:]: i for i in items}
    relu, relu_v2 = by_ref[("relu", "kernel.py")], by_ref[("relu", "kernel_v2.py")]
    assert (relu.task_name, relu.variant, relu.license) == ("relu", None, "MIT")
    assert relu_v2.variant == "v2" and relu_v2.id != relu.id
    assert by_ref[("meta_lic", "kernel.py")].license == "BSD-2-Clause"
    assert by_ref[("meta_lic", "kernel.py")].provenance.generator == "agent-x"
    assert Counter(i.reason for i in items if isinstance(i, Reject)) == Counter({
        R.MISSING_FILE: 2, R.NO_GET_INPUTS: 1, R.NO_MODEL_CLASS: 1, R.BAD_ENCODING: 1, R.BAD_JSON: 1,
        R.UNKNOWN_LICENSE: 1})


def test_kernelbench_license_option_and_missing_license(tmp_path):
    make_task(tmp_path, "relu")
    (item,) = TritonKernelBenchSource(str(tmp_path)).read()
    assert item.reason == R.MISSING_LICENSE
    (item,) = TritonKernelBenchSource(str(tmp_path), license="apache 2.0").read()
    assert item.license == "Apache-2.0"
    assert [i.reason for i in TritonKernelBenchSource(str(tmp_path / "absent")).read()] == [R.MISSING_FILE]


# ------------------------------------------------------------------ (d) triton_table
def test_table_column_mapping_jsonl_and_parquet(tmp_path):
    columns = {"task_name": "name", "pytorch_code": "ref", "kernel_code": "triton", "license": "lic",
               "repo": "origin", "variant": "try"}
    rows = [
        {"name": "relu", "ref": REFERENCE, "triton": KERNEL, "lic": "MIT", "origin": "o/r", "try": 2},
        {"name": "relu", "ref": REFERENCE, "triton": KERNEL + "\n", "lic": None, "origin": None, "try": None},
        {"name": "", "ref": REFERENCE, "triton": KERNEL, "lic": "MIT", "origin": None, "try": None},
        {"name": "noref", "ref": None, "triton": KERNEL, "lic": "MIT", "origin": None, "try": None},
        {"name": "nomodel", "ref": "def get_inputs():\n    return []\n", "triton": KERNEL, "lic": "MIT",
         "origin": None, "try": None},
    ]
    jsonl = write_jsonl(tmp_path / "t.jsonl", rows)
    parquet = tmp_path / "t.parquet"
    pq.write_table(pa.Table.from_pylist(rows), parquet)
    for path in (jsonl, parquet):
        items = list(TritonTableSource(str(path), columns=columns, license="Apache-2.0").read())
        assert len(items) == len(rows)
        first, second = records(items)
        assert (first.task_name, first.variant, first.license, first.provenance.repo) == ("relu", "2", "MIT", "o/r")
        assert second.license == "Apache-2.0" and second.variant is None
        assert [i.reason for i in items[2:]] == [R.MISSING_FIELD, R.MISSING_FIELD, R.NO_MODEL_CLASS]
    relaxed = list(TritonTableSource(str(jsonl), columns=columns, require_reference=False).read())
    assert records(relaxed)[-1].task_name == "noref" and records(relaxed)[-1].pytorch_code is None


def test_table_lines_on_another_file_system_travel_as_bytes(tmp_path):
    """A JSONL file fsspec reads from elsewhere (here ``memory://``, as ``hf://`` would) cannot be re-read by
    offset: its lines are units of bytes, and the items equal the local file's, a BOM and a bad line included."""
    import pickle

    import fsspec

    from kvdata.builders.tables import LineAt

    columns = {"task_name": "name", "pytorch_code": "ref", "kernel_code": "triton", "license": "lic"}
    data = ("\ufeff" + json.dumps({"name": "relu", "ref": REFERENCE, "triton": KERNEL, "lic": "MIT"}) + "\n\n"
            + '{"name": "bad\n' + json.dumps({"name": "gelu", "ref": REFERENCE, "triton": KERNEL + "#\n",
                                                "lic": "MIT"}) + "\n").encode()
    (tmp_path / "t.jsonl").write_bytes(data)
    memory = fsspec.filesystem("memory")
    memory.pipe("/kvdata-test/t.jsonl", data)
    local = TritonTableSource(str(tmp_path / "t.jsonl"), columns=columns)
    remote = TritonTableSource("memory://kvdata-test/t.jsonl", columns=columns)
    assert {type(row) for _, row in local.read_units()} == {LineAt}
    assert {type(row) for _, row in remote.read_units()} == {bytes}
    shipped = pickle.loads(pickle.dumps(remote))           # as a build worker gets it
    items = [shipped.unit_to_item(u) for u in remote.read_units()]
    expected = list(local.read())
    assert [type(i) for i in items] == [type(i) for i in expected] and len(items) == 3
    assert [i.task_name for i in records(items)] == [i.task_name for i in records(expected)] == ["relu", "gelu"]
    assert [i.ref.rsplit(":", 1)[-1] for i in items if isinstance(i, Reject)] == ["3"]


def test_table_default_columns_and_option_errors(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [{"task_name": "relu", "pytorch_code": REFERENCE,
                                               "kernel_code": KERNEL, "license": "mit"}])
    (record,) = TritonTableSource(str(path)).read()
    assert (record.task_name, record.license, record.source) == ("relu", "MIT", "triton_table")
    (named,) = TritonTableSource(str(path), name="agent_run_7").read()
    assert named.source == "agent_run_7"
    with pytest.raises(SourceOptionError, match="unknown field"):
        TritonTableSource(str(path), columns={"kernel": "x"})
    with pytest.raises(SourceOptionError, match="unknown option.*did you mean 'columns'"):
        TritonTableSource(str(path), colums={})


def test_json_array_named_jsonl_is_read_as_array(tmp_path):
    """TritonBench-T ships a pretty-printed JSON array under a .jsonl name; read it as one."""
    path = tmp_path / "arr.jsonl"
    path.write_text(json.dumps([{"task_name": "relu", "pytorch_code": REFERENCE, "kernel_code": KERNEL,
                                 "license": "MIT"}] * 2, indent=2))
    assert len(records(TritonTableSource(str(path)).read())) == 2


def test_registry_names_the_four_classes():
    assert source_class("triton_github") is TritonGithubSource
    assert source_class("triton_kernelbook") is TritonKernelBookSource
    assert source_class("triton_kernelbench") is TritonKernelBenchSource
    assert source_class("triton_table") is TritonTableSource
    assert {c.config for c in (TritonGithubSource, TritonKernelBookSource, TritonKernelBenchSource,
                               TritonTableSource)} == {"triton"}


def test_sample_kernels_survive_near_duplicate_removal():
    """Every sample task must reach the built corpus: no two kernels may be near duplicates
    under the build's own fingerprints (the default threshold, with a margin for MinHash noise)."""
    dedup = pytest.importorskip("kvdata.dedup")
    from kvdata.buildconfig import DEFAULT_NEAR_DUP_THRESHOLD

    kept = [r for s in sample_sources() for r in records(s.read())]
    sigs = dedup.fingerprint("triton", [r.kernel_code for r in kept], [r.pytorch_code or "" for r in kept],
                             dedup.FingerprintSettings()).sigs
    worst = max(((sigs[i] == sigs[j]).mean(), kept[i].task_name, kept[j].task_name)
                for i in range(len(kept)) for j in range(i + 1, len(kept)))
    assert worst[0] < DEFAULT_NEAR_DUP_THRESHOLD - 0.05, worst
