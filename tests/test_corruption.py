"""1,000 randomly corrupted records through the real builders and the pipeline: every one accounted for.

Corruptions are drawn with a seeded RNG from: truncated JSON, a non-object line, wrong types,
bytes that are not UTF-8, empty code, missing fields, unknown and disallowed licenses, malformed
and partly disallowed license expressions, a GPL header on a kernel declared MIT, files
that do not exist, references without ``class Model`` / ``get_inputs`` or that do not parse,
kernels without a kernel, failed upstream evaluations. Each corrupted record must come back as a
reject whose reason is the specific one for its corruption (never ``other``), and every source
must reconcile: input == kept + rejected + duplicates.
"""
from __future__ import annotations

import json
import random
import re
import shutil
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kvdata.buildconfig import BuildConfig
from kvdata.builders.base import SourceSpec
from kvdata.builders.common import check_hip_extension, check_reference, check_triton_kernel
from kvdata.pipeline import build

SAMPLE = Path(__file__).resolve().parent.parent / "builders" / "sample"
N_PER_SOURCE = 250          # x 4 sources = 1,000 records
CORRUPT_SHARE = 0.8
SEED = 20240611
FIRST_FILES = ("rows.jsonl", "mined.jsonl", "a_records.jsonl", "eval_results.jsonl")

TABLE_COLUMNS = {"task_name": "name", "pytorch_code": "ref", "kernel_code": "triton", "license": "lic",
                 "generator": "model"}


def _jsonl(path: Path) -> list[dict]:
    out = []
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _truncate(rng: random.Random, line: bytes) -> bytes:
    cut = rng.randrange(2, len(line) - 2)
    out = line[:cut].rstrip()
    return out if out.strip() else b'{"x'


def _break_ref(rng: random.Random, ref: str, kind: str) -> str:
    if kind == "no_model_class":
        return ref.replace("class Model(", "class Network(")
    if kind == "no_get_inputs":
        return ref.replace("def get_inputs(", "def make_inputs(")
    return ref + "\ndef broken(:\n"


_GPL_NOTICE = ("This program is free software; you can redistribute it and/or modify",
               "it under the terms of the GNU General Public License as published by",
               "the Free Software Foundation; either version 2 of the License, or",
               "(at your option) any later version.")
GPL_HEADER_PY = "".join(f"# {line}\n" for line in ("Copyright (C) 2019 Someone",) + _GPL_NOTICE) + "\n"
GPL_HEADER_C = "/*\n" + "".join(f" * {line}\n" for line in ("Copyright (C) 2019 Someone",) + _GPL_NOTICE) + " */\n"

REF_REASON = {"no_model_class": "no_model_class", "no_get_inputs": "no_get_inputs", "syntax_error": "syntax_error"}


def corrupt_json_record(rng, rec: dict, fields: dict) -> tuple[bytes, set[str], str]:
    """One JSONL line: a corrupted version of ``rec`` (or the valid one) and the reasons allowed for it.

    ``fields`` names the record's kernel, reference, license and required-text keys.
    """
    rec = dict(rec)
    rec[fields["name"]] = f"{rec[fields['name']]}_{rng.randrange(10**9)}"
    # vary the kernel a little so valid records are not all duplicates of each other
    rec[fields["kernel"]] = rec[fields["kernel"]] + f"\n// variant {rng.randrange(10**9)}\n".replace(
        "//", "#" if fields["python_kernel"] else "//")
    if rng.random() >= CORRUPT_SHARE:
        return json.dumps(rec).encode(), set(), "valid"
    kinds = ["truncated", "not_object", "wrong_type", "missing_field", "empty_code", "unknown_license",
             "gpl", "no_model_class", "no_get_inputs", "syntax_error", "no_kernel", "bad_expression",
             "and_disallowed", "or_allowed", "gpl_header"]
    if fields.get("line_utf8", True):
        kinds.append("invalid_utf8")
    kind = rng.choice(kinds)
    if kind == "truncated":
        return _truncate(rng, json.dumps(rec).encode()), {"bad_json"}, kind
    if kind == "not_object":
        return json.dumps(rng.choice([[1, 2], 3, "text", None])).encode(), {"bad_json", "missing_field"}, kind
    if kind == "invalid_utf8":
        line = json.dumps(rec).encode()
        at = line.index(b'"', line.index(fields["kernel"].encode()) + len(fields["kernel"]) + 2) + 1
        return line[:at] + b"\xff\xfe\xc3" + line[at:], {"bad_encoding"}, kind
    if kind == "wrong_type":
        rec[fields["kernel"]] = rng.choice([42, 3.5, ["a"], {"k": 1}, True])
        return json.dumps(rec).encode(), {"missing_field"}, kind
    if kind == "missing_field":
        del rec[rng.choice(fields["required"])]
        return json.dumps(rec).encode(), {"missing_field"}, kind
    if kind == "empty_code":
        rec[fields["kernel"]] = rng.choice(["", "   ", "\n\t\n"])
        return json.dumps(rec).encode(), {"empty_code"}, kind
    if kind == "unknown_license":
        rec[fields["license"]] = rng.choice(["Foo-Proprietary-1.0", "see website", "Company Internal"])
        return json.dumps(rec).encode(), {"unknown_license"}, kind
    if kind == "gpl":
        rec[fields["license"]] = rng.choice(["GPL-3.0", "AGPL-3.0", "CC-BY-NC-4.0"])
        return json.dumps(rec).encode(), {"license_not_allowed"}, kind
    if kind == "bad_expression":
        rec[fields["license"]] = rng.choice(["MIT AND", "(MIT OR Apache-2.0", "MIT OR OR BSD-3-Clause",
                                             "LicenseRef-scancode-unknown"])
        return json.dumps(rec).encode(), {"unknown_license"}, kind
    if kind == "and_disallowed":
        rec[fields["license"]] = rng.choice(["MIT AND GPL-3.0-only", "(Apache-2.0 OR MIT) AND AGPL-3.0-only"])
        return json.dumps(rec).encode(), {"license_not_allowed"}, kind
    if kind == "or_allowed":      # not a corruption: one alternative is allowed, the row is kept
        rec[fields["license"]] = "GPL-3.0-only OR MIT"
        return json.dumps(rec).encode(), set(), kind
    if kind == "gpl_header":      # the file's own header wins over the record's MIT
        rec[fields["license"]] = "MIT"
        rec[fields["kernel"]] = (GPL_HEADER_PY if fields["python_kernel"] else GPL_HEADER_C) + rec[fields["kernel"]]
        return json.dumps(rec).encode(), {"license_not_allowed"}, kind
    if kind in REF_REASON:
        rec[fields["ref"]] = _break_ref(rng, rec[fields["ref"]], kind)
        return json.dumps(rec).encode(), {REF_REASON[kind]}, kind
    # no_kernel
    code = rec[fields["kernel"]]
    code = re.sub(r"@\s*triton\s*\.\s*(jit|autotune|heuristics)", "@staticmethod", code)
    code = code.replace("PYBIND11_MODULE", "NOT_A_BINDING")
    rec[fields["kernel"]] = code
    return json.dumps(rec).encode(), {"no_kernel"}, kind


def make_jsonl_source(rng, folder: Path, file_name: str, records: list[dict], fields: dict) -> dict[str, set[str]]:
    """Write N_PER_SOURCE lines; return ref suffix -> allowed reasons for each corrupted one.

    Every builder decodes line by line, so a not-UTF-8 record is one reject among the file's other lines.
    """
    folder.mkdir(parents=True, exist_ok=True)
    expected: dict[str, set[str]] = {}
    lines = []
    for _ in range(N_PER_SOURCE):
        line, reasons, kind = corrupt_json_record(rng, rng.choice(records), dict(fields, line_utf8=True))
        lines.append(line)
        if reasons:
            expected[f"{file_name}:{len(lines)}"] = reasons
    (folder / file_name).write_bytes(b"\n".join(lines) + b"\n")
    return expected


def make_hip2hip(rng, root: Path) -> dict[str, set[str]]:
    """A hip2hip tree: the sample's files plus evaluation records, some pointing at corrupted files."""
    shutil.copytree(SAMPLE / "hip2hip", root, ignore=shutil.ignore_patterns("eval_results*.jsonl", "expected.json"))
    good = [r for r in _jsonl(SAMPLE / "hip2hip" / "eval_results.jsonl")
            if r.get("compile_ok") is True and r.get("run_ok") is True and r.get("match_ok") is True
            and isinstance(r.get("speedup"), (int, float)) and r["speedup"] > 1
            and isinstance(r.get("base_name"), str) and isinstance(r.get("hip_file"), str)
            and (root / r["hip_file"]).is_file()]
    expected, lines = {}, []
    for i in range(N_PER_SOURCE):
        rec = dict(rng.choice(good))
        reasons: set[str] = set()
        base = rec["base_name"]
        # every record gets its own generated file so the valid ones are distinct rows
        gen = f"generated/{base}/gen_c{i}.hip"
        (root / gen).write_text((root / rec["hip_file"]).read_text() + f"\n// variant {i}\n")
        rec["hip_file"] = gen
        rec["gen_idx"] = 1000 + i
        if rng.random() < CORRUPT_SHARE:
            kind = rng.choice(["truncated", "line_not_utf8", "missing_file", "compile", "run", "match", "not_faster",
                               "wrong_type", "missing_field", "empty_hip", "hip_not_utf8", "no_binding", "ref_no_model",
                               "ref_no_get_inputs"])
            if kind == "truncated":
                lines.append(_truncate(rng, json.dumps(rec).encode()))
                expected[f"eval_results.jsonl:{len(lines)}"] = {"bad_json"}
                continue
            if kind == "line_not_utf8":      # one bad line of the results file; the file's other lines stand
                line = json.dumps(rec).encode()
                at = line.index(b'"gen_idx"')
                lines.append(line[:at] + b'"note": "\xff\xfe", ' + line[at:])
                expected[f"eval_results.jsonl:{len(lines)}"] = {"bad_encoding"}
                continue
            if kind == "missing_file":
                rec["hip_file"] = f"generated/{base}/does_not_exist_{i}.hip"
                reasons = {"missing_file"}
            elif kind in ("compile", "run", "match"):
                rec[{"compile": "compile_ok", "run": "run_ok", "match": "match_ok"}[kind]] = False
                reasons = {{"compile": "compile_failed", "run": "run_failed", "match": "mismatch"}[kind]}
            elif kind == "not_faster":
                rec["speedup"] = rng.choice([1.0, 0.5, 0.99])
                reasons = {"not_faster"}
            elif kind == "wrong_type":
                rec["compile_ok"] = rng.choice(["yes", 1, None])
                reasons = {"missing_field"}
            elif kind == "missing_field":
                del rec[rng.choice(["hip_file", "base_name"])]
                reasons = {"missing_field"}
            elif kind == "empty_hip":
                (root / gen).write_text(rng.choice(["", "  \n"]))
                reasons = {"empty_code"}
            elif kind == "hip_not_utf8":
                (root / gen).write_bytes(b"#include <x>\n\xff\xfe bad\n")
                reasons = {"bad_encoding"}
            elif kind == "no_binding":
                (root / gen).write_text((root / gen).read_text().replace("PYBIND11_MODULE", "NOT_A_BINDING"))
                reasons = {"no_kernel"}
            else:  # a new task whose reference module is broken
                new_base = f"{base}_broken{i}"
                for sub, ext in (("pytorch_code_module", ".py"), ("pytorch_code_functional", ".py"),
                                 ("reference", ".hip")):
                    src = root / sub / f"{base}{ext}"
                    if src.is_file():
                        shutil.copy(src, root / sub / f"{new_base}{ext}")
                ref_path = root / "pytorch_code_module" / f"{new_base}.py"
                kind_ref = "no_model_class" if kind == "ref_no_model" else "no_get_inputs"
                ref_path.write_text(_break_ref(rng, ref_path.read_text(), kind_ref))
                rec["base_name"] = new_base
                reasons = {kind_ref}
        lines.append(json.dumps(rec).encode())
        if reasons:
            expected[f"eval_results.jsonl:{len(lines)}"] = reasons
    (root / "eval_results.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return expected


@pytest.fixture(scope="module")
def corrupted_build(tmp_path_factory):
    rng = random.Random(SEED)
    tmp = tmp_path_factory.mktemp("corrupt")
    expected: dict[str, dict[str, set[str]]] = {}
    specs = []

    table_rows = [r for r in _jsonl(SAMPLE / "triton" / "table" / "agent_outputs.jsonl")
                  if check_reference(r.get("ref")) is None and check_triton_kernel(r.get("triton")) is None]
    expected["triton_table"] = make_jsonl_source(
        rng, tmp / "table", "rows.jsonl", table_rows,
        {"name": "name", "kernel": "triton", "ref": "ref", "license": "lic", "required": ["name", "triton"],
         "python_kernel": True})
    specs.append(SourceSpec("triton_table", str(tmp / "table" / "rows.jsonl"),
                            (("columns", TABLE_COLUMNS),)))

    github = [r for r in json.loads((SAMPLE / "triton" / "github" / "tritonbench_g_sample.json").read_text())
              if check_reference(r.get("pytorch_code")) is None and check_triton_kernel(r.get("output")) is None
              and r.get("license") in ("MIT", "Apache-2.0")]
    expected["triton_github"] = make_jsonl_source(
        rng, tmp / "github", "mined.jsonl", github,
        {"name": "file", "kernel": "output", "ref": "pytorch_code", "license": "license",
         "required": ["output"], "python_kernel": True})
    specs.append(SourceSpec("triton_github", str(tmp / "github" / "mined.jsonl")))

    agent = [r for r in _jsonl(SAMPLE / "hip_cudaagent" / "cudaagent.jsonl")
             if check_hip_extension(r.get("hip_code")) is None and check_reference(r.get("pytorch_code")) is None
             and r.get("license", "MIT") in ("MIT", "Apache-2.0")]
    cuda_dir = tmp / "cudaagent"
    expected["hip_cudaagent"] = make_jsonl_source(
        rng, cuda_dir, "a_records.jsonl", [dict(r, license=r.get("license") or "MIT") for r in agent],
        {"name": "task_name", "kernel": "hip_code", "ref": "pytorch_code", "license": "license",
         "required": ["task_name", "pytorch_code", "hip_code"], "python_kernel": False})
    shutil.copy(SAMPLE / "hip_cudaagent" / "LICENSE", cuda_dir / "LICENSE")
    specs.append(SourceSpec("hip_cudaagent", str(cuda_dir)))

    expected["hip2hip"] = make_hip2hip(rng, tmp / "hip2hip")
    specs.append(SourceSpec("hip2hip", str(tmp / "hip2hip")))

    out = tmp / "out"
    result = build(BuildConfig(sources=specs, workers=0), out, progress=False)
    return result, out, expected, specs


def test_thousand_records_were_fed(corrupted_build):
    result, _, expected, _ = corrupted_build
    acc = result.accounting["sources"]
    assert sum(s["input"] for s in acc.values()) == 4 * N_PER_SOURCE
    assert sum(len(e) for e in expected.values()) > 0.7 * 4 * N_PER_SOURCE


def test_every_source_reconciles(corrupted_build):
    result, out, _, _ = corrupted_build
    for name, s in result.accounting["sources"].items():
        assert s["input"] == s["kept"] + s["rejected_total"] + s["duplicates_total"], name
        assert s["kept"] > 0, name   # the valid records made it through
    rejects = pq.read_table(out / "rejects.parquet").num_rows
    assert rejects == result.accounting["totals"]["rejected"] + result.accounting["totals"]["duplicates"]


def test_each_corrupted_record_has_its_specific_reason(corrupted_build):
    _, out, expected, _ = corrupted_build
    got: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for r in pq.read_table(out / "rejects.parquet").to_pylist():
        got[r["source"]][r["ref"]].append(r["reason"])
    problems = []
    for source, wanted in expected.items():
        refs = got[source]
        for suffix, reasons in wanted.items():
            file_name, _, line = suffix.rpartition(":")
            # builder rejects carry the builder's ref (file:line); rows dropped later by the pipeline
            # carry `<source>#<n>`, the n-th item of the Source, which is the line of the first file
            first_file = file_name in FIRST_FILES
            matches = [reason for ref, rs in refs.items()
                       if ref == suffix or ref.endswith("/" + suffix)
                       or (first_file and (ref == f"{source}#{line}" or ref.startswith(f"{source}#{line} (")))
                       for reason in rs]
            if not matches or not set(matches) <= reasons:
                problems.append(f"{source} {suffix}: expected one of {sorted(reasons)}, got {matches}")
    assert not problems, "\n".join(problems[:20]) + f"\n({len(problems)} problems)"
    all_reasons = [r for refs in got.values() for rs in refs.values() for r in rs]
    assert "other" not in all_reasons


def test_worker_processes_account_for_every_record_the_same_way(corrupted_build, tmp_path):
    """The same 1,000 records in chunks of 37, in-process and through 2 worker processes (many chunks
    in flight, the builders' costly half in the workers): identical rows, rejects file and accounting;
    and the same as the one-chunk-per-source build (rejects come in chunk order, so as a multiset)."""
    from kvdata.hub import shard_files

    def written(folder):
        rows = {c: [r for p in shard_files(folder, c) for r in pq.read_table(p).to_pylist()] for c in result.rows}
        return rows, pq.read_table(folder / "rejects.parquet").to_pylist()

    result, out, _, specs = corrupted_build
    builds = {w: build(BuildConfig(sources=specs, workers=w, batch_size=37), tmp_path / f"w{w}", progress=False)
              for w in (0, 2)}
    assert builds[0].accounting == builds[2].accounting == result.accounting
    assert written(tmp_path / "w0") == written(tmp_path / "w2")
    rows, rejects = written(tmp_path / "w2")
    want_rows, want_rejects = written(out)
    key = lambda r: sorted((k, str(v)) for k, v in r.items())  # noqa: E731
    assert rows == want_rows and sorted(map(key, rejects)) == sorted(map(key, want_rejects))
    assert "wait" in builds[2].step_seconds and "wait" not in builds[0].step_seconds
