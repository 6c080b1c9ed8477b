"""HIP builders (hip_gpumode, hip2hip, hip_cudaagent) on real files: the bundled sample and tmp trees."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from kvdata.builders import source_class
from kvdata.builders.hip2hip import Hip2HipSource
from kvdata.builders.hip_cudaagent import HipCudaAgentSource
from kvdata.builders.common import hub_location
from kvdata.builders.hip_gpumode import HipGpuModeSource, task_of_variant
from kvdata.schema import KernelRecord, Reject, RejectReason

LICENSE = (Path(__file__).parent / "license_redteam" / "trees" / "mit_tree_with_gpl_file" / "LICENSE").read_text()
MODULE = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
'''
FUNCTIONAL = "import torch\n\ndef module_fn(x):\n    return torch.relu(x)\n"
HIP = '''#include <torch/extension.h>
torch::Tensor forward(torch::Tensor x) { return x.clamp_min(0); }  // %s
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward); }
'''


def split(items):
    kept = [i for i in items if isinstance(i, KernelRecord)]
    rejects = [i for i in items if isinstance(i, Reject)]
    assert len(kept) + len(rejects) == len(items)
    return kept, rejects


def reasons(rejects) -> dict[str, RejectReason]:
    return {r.ref: RejectReason(r.reason) for r in rejects}


def write(path: Path, text, binary: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if binary:
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# ============================================================== registry and sample
def test_registry_names_the_classes():
    assert source_class("hip_gpumode") is HipGpuModeSource
    assert source_class("hip2hip") is Hip2HipSource
    assert source_class("hip_cudaagent") is HipCudaAgentSource


@pytest.mark.parametrize("folder", ["hip_gpumode", "hip2hip", "hip_cudaagent"])
def test_sample_folder_has_sources_yaml_and_license(sample_dir, folder):
    import yaml

    specs = yaml.safe_load((sample_dir / folder / "sources.yaml").read_text())
    assert [s["kind"] for s in specs] == [folder]
    assert (sample_dir / folder / specs[0]["path"] / "LICENSE").is_file()


def _read_sample(sample_dir, folder):
    import yaml

    spec = yaml.safe_load((sample_dir / folder / "sources.yaml").read_text())[0]
    cls = source_class(spec["kind"])
    return cls(str(sample_dir / folder / spec["path"]), **(spec.get("options") or {}))


def test_sample_gpumode_accounting(sample_dir):
    root = sample_dir / "hip_gpumode"
    kept, rejects = split(list(_read_sample(sample_dir, "hip_gpumode").read()))
    hip_files = list(root.glob("hip_code/*.hip")) + list(root.glob("hip_opt/*.hip"))
    no_kernel = [r for r in rejects if r.reason == RejectReason.NO_KERNEL]
    assert len(kept) + len(rejects) == len(hip_files) + len(no_kernel)
    assert reasons(rejects) == {
        "hip_code/13_Negate.hip": RejectReason.NO_GET_INPUTS,
        "hip_code/1_ReLU_2.hip": RejectReason.EMPTY_CODE,
        "hip_code/99_Orphan.hip": RejectReason.MISSING_FILE,
        "pytorch_code_module/14_Unported.py": RejectReason.NO_KERNEL,
    }
    expected = json.loads((root / "expected.json").read_text())
    assert {k.provenance.path for k in kept} == set(expected)
    for k in kept:
        assert k.subset == "hip_gpumode" and k.language == "hip" and k.license == "Apache-2.0"
        assert k.pytorch_functional_code and "module_fn" in k.pytorch_functional_code
        assert k.variant == k.provenance.path[: -len(".hip")]
        assert k.provenance.commit == "sample" and k.provenance.pipeline == "gpumode"
    by_path = {k.provenance.path: k for k in kept}
    assert by_path["hip_opt/12_Gemm_ReLU_1.hip"].task_name == "12_Gemm_ReLU"
    assert by_path["hip_opt/12_Gemm_1.hip"].task_name == "12_Gemm"
    assert "relu" in by_path["hip_opt/12_Gemm_ReLU_1.hip"].pytorch_code


def test_sample_hip2hip_accounting(sample_dir):
    root = sample_dir / "hip2hip"
    kept, rejects = split(list(_read_sample(sample_dir, "hip2hip").read()))
    lines = [line for line in (root / "eval_results.jsonl").read_text().splitlines() if line.strip()]
    assert len(kept) + len(rejects) == len(lines)
    got = Counter(RejectReason(r.reason) for r in rejects)
    for reason in (RejectReason.COMPILE_FAILED, RejectReason.RUN_FAILED, RejectReason.MISMATCH,
                   RejectReason.NOT_FASTER, RejectReason.BAD_JSON, RejectReason.MISSING_FILE,
                   RejectReason.MISSING_FIELD):
        assert got[reason] == 1, reason
    bad_json = next(r for r in rejects if r.reason == RejectReason.BAD_JSON)
    assert bad_json.ref.startswith("eval_results.jsonl:") and bad_json.ref in bad_json.message
    assert set(json.loads((root / "expected.json").read_text())) == {k.provenance.path for k in kept}
    for k in kept:
        v = k.verification
        assert v.compile_ok and v.correct and v.speedup > 1 and v.ref_ms > v.kernel_ms
        assert k.baseline_kernel_code == (root / "reference" / f"{k.task_name}.hip").read_text()
        assert k.baseline_kernel_code != k.kernel_code and k.variant == "gen_0"


def test_sample_cudaagent_accounting(sample_dir):
    root = sample_dir / "hip_cudaagent"
    kept, rejects = split(list(_read_sample(sample_dir, "hip_cudaagent").read()))
    lines = [line for line in (root / "cudaagent.jsonl").read_text().splitlines() if line.strip()]
    assert len(kept) + len(rejects) == len(lines)
    assert sorted(RejectReason(r.reason).value for r in rejects) == sorted(
        ["bad_json", "no_get_inputs", "empty_code", "unknown_license"])
    # GPL is kept by the Source (the build's allow-list drops it), unless the Source is given one
    assert [k.license for k in kept if k.task_name == "16_Copyleft"] == ["GPL-3.0-only"]
    _, rejects = split(list(HipCudaAgentSource(str(root), allow=["MIT", "Apache-2.0"]).read()))
    assert Counter(RejectReason(r.reason) for r in rejects)[RejectReason.LICENSE_NOT_ALLOWED] == 1
    assert set(json.loads((root / "expected.json").read_text())) == {k.provenance.path for k in kept}
    for k in kept:
        assert k.baseline_kernel_code is None and "PYBIND11_MODULE" in k.kernel_code
        assert k.provenance.pipeline == "cuda-agent" and k.provenance.repo == "kvdata/sample-cuda-agent-ops"


@pytest.mark.parametrize("folder", ["hip_gpumode", "hip2hip", "hip_cudaagent"])
def test_sample_ids_unique_and_stable(sample_dir, folder):
    first = [i.id for i in _read_sample(sample_dir, folder).read() if isinstance(i, KernelRecord)]
    second = [i.id for i in _read_sample(sample_dir, folder).read() if isinstance(i, KernelRecord)]
    assert first == second and len(set(first)) == len(first)
    assert all(i.startswith(folder + "-") for i in first)


# ============================================================== hip_gpumode on tmp trees
@pytest.mark.parametrize("stem,task", [
    ("12_Gemm", "12_Gemm"), ("12_Gemm_ReLU", "12_Gemm_ReLU"), ("12_Gemm_3", "12_Gemm"),
    ("12_Gemm_ReLU_3", "12_Gemm_ReLU"), ("12_Gemm__tiled", "12_Gemm"), ("12_Gemm_ReLU__lds_2", "12_Gemm_ReLU"),
    ("12_Gemm_ReLU/v7", "12_Gemm_ReLU"), ("12_Gemm_Tanh_1", None), ("12_Gemm_x", None), ("13_Other", None),
    ("12_Gemm_ReLU_", None),
])
def test_variant_naming_rule(stem, task):
    assert task_of_variant(stem, {"12_Gemm", "12_Gemm_ReLU"}) == task


def test_variant_naming_rule_without_the_longer_task():
    # 12_Gemm_ReLU_2 must not be given to 12_Gemm when 12_Gemm_ReLU has no reference.
    assert task_of_variant("12_Gemm_ReLU_2", {"12_Gemm"}) is None
    assert task_of_variant("7_2", {"7", "7_2"}) == "7_2"  # an exact name beats the numbered reading


def make_gpumode(root: Path, tasks=("12_Gemm", "12_Gemm_ReLU")) -> Path:
    write(root / "LICENSE", LICENSE)
    for t in tasks:
        write(root / "pytorch_code_module" / f"{t}.py", MODULE)
        write(root / "pytorch_code_functional" / f"{t}.py", FUNCTIONAL)
    return root


def test_gpumode_prefix_tasks_and_accounting(tmp_path):
    root = make_gpumode(tmp_path)
    for name in ("hip_code/12_Gemm.hip", "hip_code/12_Gemm_1.hip", "hip_opt/12_Gemm_ReLU_1.hip",
                 "hip_opt/12_Gemm_ReLU__fast.hip", "hip_code/12_Gemm_Tanh_1.hip"):
        write(root / name, HIP % name)
    kept, rejects = split(list(HipGpuModeSource(str(root)).read()))
    assert {k.variant: k.task_name for k in kept} == {
        "hip_code/12_Gemm": "12_Gemm", "hip_code/12_Gemm_1": "12_Gemm",
        "hip_opt/12_Gemm_ReLU_1": "12_Gemm_ReLU", "hip_opt/12_Gemm_ReLU__fast": "12_Gemm_ReLU"}
    assert reasons(rejects) == {"hip_code/12_Gemm_Tanh_1.hip": RejectReason.MISSING_FILE}
    assert all(k.license == "MIT" and k.pytorch_functional_code == FUNCTIONAL for k in kept)


def test_gpumode_malformed_inputs(tmp_path):
    root = make_gpumode(tmp_path, tasks=("a", "b", "c", "d", "e", "f"))
    write(root / "pytorch_code_module" / "b.py", MODULE.replace("class Model", "class Net"))
    write(root / "pytorch_code_module" / "c.py", "def get_inputs(:\n")
    write(root / "pytorch_code_functional" / "d.py", "def module_fn(x:\n")
    write(root / "hip_code" / "a.hip", HIP % "a")
    write(root / "hip_code" / "a_1.hip", "int main() { return 0; }\n")        # no binding
    write(root / "hip_code" / "a_2.hip", "// caf\xe9\n".encode("latin-1"), binary=True)
    (root / "hip_code" / "a_3.hip").mkdir()                                  # a directory, not a file
    write(root / "hip_code" / "b.hip", HIP % "b")
    write(root / "hip_code" / "c.hip", HIP % "c")
    write(root / "hip_code" / "d.hip", HIP % "d")
    write(root / "hip_opt" / "e_1.hip", "   \n")
    items = list(HipGpuModeSource(str(root)).read())
    kept, rejects = split(items)
    assert [k.variant for k in kept] == ["hip_code/a"]
    got = reasons(rejects)
    assert got == {
        "hip_code/a_1.hip": RejectReason.NO_KERNEL, "hip_code/a_2.hip": RejectReason.BAD_ENCODING,
        "hip_code/b.hip": RejectReason.NO_MODEL_CLASS, "hip_code/c.hip": RejectReason.SYNTAX_ERROR,
        "hip_code/d.hip": RejectReason.SYNTAX_ERROR, "hip_opt/e_1.hip": RejectReason.EMPTY_CODE,
        "pytorch_code_module/f.py": RejectReason.NO_KERNEL,
    }  # a_3.hip is a directory: fs.find lists files only, so it is no input record at all


def test_gpumode_license_problems_reject_every_record(tmp_path):
    root = make_gpumode(tmp_path, tasks=("a",))
    (root / "LICENSE").unlink()
    write(root / "hip_code" / "a.hip", HIP % "a")
    write(root / "hip_code" / "a_1.hip", HIP % "a1")
    _, rejects = split(list(HipGpuModeSource(str(root)).read()))
    assert [r.reason for r in rejects] == [RejectReason.MISSING_LICENSE] * 2
    write(root / "LICENSE", "Internal use only.")
    _, rejects = split(list(HipGpuModeSource(str(root)).read()))
    assert [r.reason for r in rejects] == [RejectReason.UNKNOWN_LICENSE] * 2
    kept, _ = split(list(HipGpuModeSource(str(root), license="BSD-3-Clause").read()))
    assert [k.license for k in kept] == ["BSD-3-Clause"] * 2
    kept, _ = split(list(HipGpuModeSource(str(root), license="GPL-3.0").read()))
    assert [k.license for k in kept] == ["GPL-3.0-only"] * 2
    _, rejects = split(list(HipGpuModeSource(str(root), license="GPL-3.0", allow="MIT").read()))
    assert [r.reason for r in rejects] == [RejectReason.LICENSE_NOT_ALLOWED] * 2


@pytest.mark.parametrize("cls", [HipGpuModeSource, Hip2HipSource, HipCudaAgentSource])
def test_unknown_option_is_a_value_error(cls, tmp_path):
    with pytest.raises(ValueError, match="licence"):
        cls(str(tmp_path), licence="MIT")
    cls(str(tmp_path), license="MIT", commit="x", name="n")


def test_gpumode_missing_root_is_one_reject(tmp_path):
    _, rejects = split(list(HipGpuModeSource(str(tmp_path / "nope")).read()))
    assert len(rejects) == 1 and rejects[0].reason == RejectReason.MISSING_FILE


def test_gpumode_provenance_options_and_hub_urls(tmp_path):
    root = make_gpumode(tmp_path, tasks=("a",))
    write(root / "hip_code" / "a.hip", HIP % "a")
    (k,) = HipGpuModeSource(str(root), repo="org/x", commit="abc", path_prefix="v0.1/gm",
                            generator="agent-7", hardware="AMD Instinct MI325X", arch="gfx942").read()
    assert (k.provenance.repo, k.provenance.path, k.provenance.commit, k.provenance.generator) == \
        ("org/x", "v0.1/gm/hip_code/a.hip", "abc", "agent-7")
    assert (k.verification.hardware, k.verification.arch, k.verification.correct) == \
        ("AMD Instinct MI325X", "gfx942", None)
    assert hub_location("hf://datasets/amd/AIG-Datasets/v0.1/PyTorch_HIP_kernel_dataset/x/") == \
        ("amd/AIG-Datasets", None, "v0.1/PyTorch_HIP_kernel_dataset/x")
    assert hub_location("hf://datasets/amd/AIG-Datasets@v0.2/a") == ("amd/AIG-Datasets", "v0.2", "a")
    assert hub_location(str(root)) == (None, None, "")


# ============================================================== hip2hip on tmp trees
def make_hip2hip(root: Path, records: list, meta=None) -> Path:
    write(root / "LICENSE", LICENSE)
    write(root / "pytorch_code_module" / "t.py", MODULE)
    write(root / "reference" / "t.hip", HIP % "baseline")
    write(root / "generated" / "t" / "gen_0.hip", HIP % "optimised")
    if meta is not None:
        write(root / "meta.json", json.dumps(meta))
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    write(root / "eval_results.jsonl", "\n".join(lines) + "\n")
    return root


def ok_record(**changes):
    record = {"hip_file": "generated/t/gen_0.hip", "base_name": "t", "gen_idx": 0, "compile_ok": True,
              "run_ok": True, "match_ok": True, "pytorch_time_ms": 2.0, "hip_time_ms": 1.0, "speedup": 2.0,
              "error_message": ""}
    record.update(changes)
    return record


def test_hip2hip_statuses_and_verification(tmp_path):
    root = make_hip2hip(tmp_path, [
        ok_record(),
        ok_record(speedup=None, pytorch_time_ms=3.0, hip_time_ms=1.5),          # speedup computed
        ok_record(speedup=1.0),                                                 # equal is not faster
        ok_record(compile_ok=False, error_message="boom"),
        ok_record(run_ok=False), ok_record(match_ok=False),
        ok_record(compile_ok="yes"),                                             # wrong type
        ok_record(speedup=None, hip_time_ms=None),                               # no way to know
        "",                                                                      # blank: not a record
        "[1, 2]", "{nope",
        ok_record(hip_file="t/gen_0.hip"),                                       # found under generated/
        ok_record(hip_file="/home/eval/run3/generated/t/gen_0.hip"),             # absolute upstream path
        ok_record(hip_file="generated/t/missing.hip"),
        ok_record(base_name="u"),                                                # no reference files
        ok_record(hip_file="generated/t"),                                       # a directory
    ], meta={"hardware": "AMD Instinct MI325X", "arch": "gfx942"})
    kept, rejects = split(list(Hip2HipSource(str(root)).read()))
    assert [k.verification.speedup for k in kept] == [2.0, 2.0, 2.0, 2.0]
    v = kept[0].verification
    assert (v.hardware, v.arch, v.compile_ok, v.correct, v.ref_ms, v.kernel_ms) == \
        ("AMD Instinct MI325X", "gfx942", True, True, 2.0, 1.0)
    assert kept[0].baseline_kernel_code == HIP % "baseline" and kept[0].kernel_code == HIP % "optimised"
    assert kept[0].pytorch_functional_code is None
    got = [(r.ref, RejectReason(r.reason)) for r in rejects]
    assert got == [
        ("eval_results.jsonl:3", RejectReason.NOT_FASTER), ("eval_results.jsonl:4", RejectReason.COMPILE_FAILED),
        ("eval_results.jsonl:5", RejectReason.RUN_FAILED), ("eval_results.jsonl:6", RejectReason.MISMATCH),
        ("eval_results.jsonl:7", RejectReason.MISSING_FIELD), ("eval_results.jsonl:8", RejectReason.MISSING_FIELD),
        ("eval_results.jsonl:10", RejectReason.BAD_JSON), ("eval_results.jsonl:11", RejectReason.BAD_JSON),
        ("eval_results.jsonl:14", RejectReason.MISSING_FILE), ("eval_results.jsonl:15", RejectReason.MISSING_FILE),
        ("eval_results.jsonl:16", RejectReason.UNREADABLE),
    ]
    assert "boom" in rejects[1].message
    # hardware options override meta.json
    kept, _ = split(list(Hip2HipSource(str(root), hardware="other", arch="gfx950").read()))
    assert (kept[0].verification.hardware, kept[0].verification.arch) == ("other", "gfx950")


def test_hip2hip_no_results_and_bad_encoding(tmp_path):
    _, rejects = split(list(Hip2HipSource(str(tmp_path)).read()))
    assert [r.reason for r in rejects] == [RejectReason.MISSING_FILE]
    write(tmp_path / "eval_results.jsonl", b'{"a": "\xff"}\n', binary=True)
    _, rejects = split(list(Hip2HipSource(str(tmp_path)).read()))
    assert [r.reason for r in rejects] == [RejectReason.BAD_ENCODING]


def test_hip2hip_license_checked_after_status(tmp_path):
    root = make_hip2hip(tmp_path, [ok_record(), ok_record(match_ok=False)])
    (root / "LICENSE").unlink()
    _, rejects = split(list(Hip2HipSource(str(root)).read()))
    assert [r.reason for r in rejects] == [RejectReason.MISSING_LICENSE, RejectReason.MISMATCH]


# ============================================================== hip_cudaagent on tmp trees
def agent_record(**changes):
    record = {"task_name": "relu", "pytorch_code": MODULE, "pytorch_functional_code": FUNCTIONAL,
              "cuda_code": "__global__ void k() {}", "hip_code": HIP % "hip", "path": "ops/relu.json"}
    record.update(changes)
    return record


def test_cudaagent_records(tmp_path):
    write(tmp_path / "LICENSE", LICENSE)
    lines = [agent_record(), agent_record(license="Apache License 2.0", variant=2,
                                          verification={"compile_ok": True, "correct": True, "speedup": 3,
                                                        "hardware": "AMD Instinct MI300X", "bogus": 1}),
             agent_record(license="WeirdLicense"), agent_record(pytorch_code=None), agent_record(hip_code=7),
             agent_record(pytorch_functional_code="def f(:"), agent_record(hip_code="int x;"), "[]", "{"]
    write(tmp_path / "part-0.jsonl", "\n".join(json.dumps(x) if isinstance(x, dict) else x for x in lines))
    kept, rejects = split(list(HipCudaAgentSource(str(tmp_path)).read()))
    assert [k.license for k in kept] == ["MIT", "Apache-2.0"]
    assert kept[0].verification is None and kept[0].provenance.path == "ops/relu.json"
    v = kept[1].verification
    assert (v.compile_ok, v.correct, v.speedup, v.hardware) == (True, True, 3.0, "AMD Instinct MI300X")
    assert kept[1].variant == "2" and kept[0].id != kept[1].id
    assert [RejectReason(r.reason) for r in rejects] == [
        RejectReason.UNKNOWN_LICENSE, RejectReason.MISSING_FIELD, RejectReason.MISSING_FIELD,
        RejectReason.SYNTAX_ERROR, RejectReason.NO_KERNEL, RejectReason.BAD_JSON, RejectReason.BAD_JSON]
    assert [r.ref for r in rejects][-1] == "part-0.jsonl:9"


def test_cudaagent_missing_license_and_files(tmp_path):
    _, rejects = split(list(HipCudaAgentSource(str(tmp_path)).read()))
    assert [r.reason for r in rejects] == [RejectReason.MISSING_FILE]
    write(tmp_path / "a.jsonl", json.dumps(agent_record()) + "\n")
    _, rejects = split(list(HipCudaAgentSource(str(tmp_path)).read()))
    assert [r.reason for r in rejects] == [RejectReason.MISSING_LICENSE]
    kept, _ = split(list(HipCudaAgentSource(str(tmp_path), license="mit").read()))
    assert [k.license for k in kept] == ["MIT"]


@pytest.mark.parametrize("kind", ["hip_cudaagent", "hip2hip"])
def test_result_lines_end_at_newline_and_a_bad_line_costs_only_itself(tmp_path, kind):
    """JSON Lines end at "\\n": a record whose strings hold U+2028 or U+0085 unescaped (valid JSON) is one record,
    and the next line keeps its number; a line that is not UTF-8 is one bad_encoding reject among the file's
    other records (the whole file used to be one)."""
    write(tmp_path / "LICENSE", LICENSE)
    if kind == "hip_cudaagent":
        good = [agent_record(task_name=f"t{i}", path=f"ops/t{i}.json") for i in range(3)]
        name = "part-0.jsonl"
    else:
        root = make_hip2hip(tmp_path, [ok_record(), ok_record(gen_idx=1), ok_record(gen_idx=2)])
        assert root == tmp_path
        name = "eval_results.jsonl"
        good = [json.loads(line) for line in (tmp_path / name).read_text().splitlines() if line.strip()]
    good[0]["note"] = "a\u2028b\u0085c"
    lines = [json.dumps(good[0], ensure_ascii=False).encode(), b'{"broken": "\xff\xfe"}',
             json.dumps(good[1], ensure_ascii=False).encode(), b"", json.dumps(good[2]).encode()]
    write(tmp_path / name, b"\n".join(lines) + b"\n", binary=True)
    source = source_class(kind)(str(tmp_path))
    kept, rejects = split(list(source.read()))
    assert len(kept) == 3 and [(r.reason, r.ref.rsplit(":", 1)[-1]) for r in rejects] == [
        (RejectReason.BAD_ENCODING, "2")]
    assert split([source.unit_to_item(u) for u in source.read_units()])[0] == kept
