"""AMD's release as published (docs/notes/layouts.md): real-shaped trees written by scripts/release_fixtures.py
from the evidence, built with the real pipeline into parquet, each row checked against what the writer put in."""
from __future__ import annotations

import json
import sys
import tarfile
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import release_fixtures as rf  # noqa: E402

from kvdata.builders import source_class  # noqa: E402
from kvdata.builders.tables import array_elements  # noqa: E402
from kvdata.cli import main as cli  # noqa: E402
from kvdata.schema import KernelRecord, QARecord, Reject  # noqa: E402


def read(kind: str, path, **options):
    items = list(source_class(kind)(str(path), **options).read())
    kept = [i for i in items if isinstance(i, (KernelRecord, QARecord))]
    rejects = [i for i in items if isinstance(i, Reject)]
    assert len(kept) + len(rejects) == len(items)
    return kept, rejects


def reasons(rejects) -> dict[str, str]:
    return {r.ref: getattr(r.reason, "value", r.reason) for r in rejects}


def built_rows(out: Path, config: str) -> list[dict]:
    return [row for f in sorted((out / "data" / config).glob("*.parquet")) for row in pq.read_table(f).to_pylist()]


def cli_build(out: Path, *args: str):
    result = CliRunner().invoke(cli, ["build", "--out", str(out), "--quiet", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads((out / "accounting.json").read_text())


def sid_of_module(code: str) -> int:
    """The sample index a module was written for (its docstring names it)."""
    return int(code.split("of sample ", 1)[1].split('"', 1)[0].rstrip("."))


# ============================================================== v0.1 gpumode, as AMD's converter reads it
@pytest.fixture(scope="module")
def v01(tmp_path_factory):
    release = tmp_path_factory.mktemp("v01") / "AIG-Datasets"
    return release, rf.write_v01(release, tasks=6, variants=3)


def check_gpumode(kept, rejects, manifest, ref_of):
    assert {ref_of(k) for k in kept} == set(manifest.kept)
    assert reasons(rejects) == manifest.rejected
    for k in kept:
        sid = manifest.tasks[ref_of(k)]
        i = next(n for n in range(50) if rf.sample_id(n) == sid)
        assert k.task_name == sid
        assert k.pytorch_code == rf.module_code(i) and k.pytorch_functional_code == rf.functional_code(i)
        assert "PYBIND11_MODULE" in k.kernel_code and f"sample {i} variant" in k.kernel_code


def gpumode_ref(k) -> str:
    return k.provenance.path.split("pytorch_hip_kernel_gpumode/", 1)[1]


@pytest.mark.parametrize("depth", ["", "v0.1", "v0.1/PyTorch_HIP_kernel_dataset", str(rf.GPUMODE)])
def test_v01_tree_named_at_any_depth_pairs_each_variant_with_its_references(v01, depth):
    release, manifest = v01
    kept, rejects = read("hip_gpumode", release / depth if depth else release)
    check_gpumode(kept, rejects, manifest, gpumode_ref)
    assert len(kept) + len(rejects) == manifest.inputs


def test_v01_info_json_facts_go_to_verification_and_the_rest_to_provenance(v01):
    release, _ = v01
    kept, _ = read("hip_gpumode", release)
    by_variant = {k.variant: k for k in kept}
    sid = rf.sample_id(0)
    v1 = by_variant[f"hip_opt/{sid}/hip_{sid}_v1"]
    assert v1.verification.speedup == pytest.approx(1.1) and v1.verification.correct is True
    assert v1.verification.compile_ok is True and v1.verification.hardware == "MI300X"
    assert json.loads(v1.provenance.upstream) == {"iteration": 1}
    extra = by_variant[f"hip_opt/{sid}/info.json#extra_candidate"]      # an entry naming no file: its own variant
    assert extra.kernel_code == rf.hip_code(0, 3) and extra.verification.speedup == pytest.approx(1.3)


@pytest.mark.parametrize("pack,leading", [("tar", ""), ("tar.gz", ""), ("tar.gz", "release_v01/")])
def test_v01_hip_opt_archive_reads_member_by_member_like_the_folder(tmp_path, pack, leading):
    release = tmp_path / "AIG-Datasets"
    manifest = rf.write_v01(release, tasks=5, variants=2, pack=pack, leading=leading)
    assert not (release / rf.GPUMODE / "hip_opt").exists()
    kept, rejects = read("hip_gpumode", release)
    check_gpumode(kept, rejects, manifest, gpumode_ref)
    folder = rf.write_v01(tmp_path / "folder", tasks=5, variants=2)
    kept_folder, _ = read("hip_gpumode", tmp_path / "folder")
    assert sorted(k.id for k in kept_folder) != [] and sorted(k.kernel_code for k in kept) == sorted(
        k.kernel_code for k in kept_folder) and folder.inputs == manifest.inputs


def test_a_whole_release_in_a_tar_reads_through_fsspec(tmp_path):
    manifest = rf.write_v01(tmp_path / "rel" / "AIG-Datasets", tasks=4, variants=2)
    archive = tmp_path / "release.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(tmp_path / "rel" / "AIG-Datasets", arcname="AIG-Datasets")
    kept, rejects = read("hip_gpumode", f"tar://AIG-Datasets::{archive}")
    check_gpumode(kept, rejects, manifest, gpumode_ref)


def test_a_broken_archive_is_one_reject_and_the_members_before_the_break_stand(tmp_path):
    release = tmp_path / "AIG-Datasets"
    rf.write_v01(release, tasks=4, variants=2, pack="tar", orphans=False)
    archive = release / rf.GPUMODE / "hip_opt.tar"
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) // 2 + 100])         # cut mid-member
    kept, rejects = read("hip_gpumode", release)
    assert any(r.ref == "hip_opt.tar" and r.reason.value == "unreadable" for r in rejects)
    assert 0 < len(kept) < 8


# ============================================================== the eval kit
def test_kit_comparison_rows_give_pairs_timed_over_the_baseline_kernel(tmp_path):
    manifest = rf.write_kit_run(tmp_path / "kit", tasks=4, gens=2)
    kept, rejects = read("hip2hip", tmp_path / "kit")
    assert reasons(rejects) == manifest.rejected
    assert sorted(json.loads(k.provenance.upstream)["result"] for k in kept) == sorted(manifest.kept)
    for k in kept:
        v = k.verification
        assert v.speedup_over == "baseline_kernel" and v.ref_ms is None
        assert v.speedup == pytest.approx(v.baseline_ms / v.kernel_ms, rel=1e-3)
        assert k.provenance.path.startswith("run/level-1/eval/staging/optimized/")
        i = next(n for n in range(10) if f"hip_{rf.sample_id(n)}" == k.task_name)
        assert k.baseline_kernel_code == rf.hip_code(i, 0) and k.kernel_code != k.baseline_kernel_code
        assert k.pytorch_code == rf.module_code(i) and k.pytorch_functional_code == rf.functional_code(i)
    # the per-side files are joined in the comparison: read once, not three times
    assert len(kept) + len(rejects) == manifest.inputs


def test_kit_references_outside_the_run_come_from_pytorch_root(tmp_path):
    manifest = rf.write_kit_run(tmp_path / "kit", tasks=3, gens=1)
    kept, rejects = read("hip2hip", tmp_path / "kit" / "run", license="MIT")
    assert kept == [] and {r.reason.value for r in rejects} >= {"missing_file"}
    kept, _ = read("hip2hip", tmp_path / "kit" / "run", license="MIT", pytorch_root=str(tmp_path / "kit" / "data"))
    assert len(kept) == len(manifest.kept)


def test_kit_comprehensive_rows_find_the_reference_beside_the_candidate(tmp_path):
    manifest = rf.write_kit_comprehensive(tmp_path / "kit", tasks=3)
    kept, rejects = read("hip2hip", tmp_path / "kit")
    assert not rejects and len(kept) == len(manifest.kept)
    for k in kept:
        i = next(n for n in range(10) if f"hip_{rf.sample_id(n)}" == k.task_name)
        assert k.baseline_kernel_code == rf.hip_code(i, 0) and k.kernel_code == rf.hip_code(i, 2)
        assert k.verification.baseline_ms == pytest.approx(0.3) and k.verification.ref_ms is None


def test_kit_origin_side_alone_is_rejected_as_baseline_only(tmp_path):
    rf.write_kit_run(tmp_path / "kit", tasks=2, gens=1)
    (tmp_path / "kit" / "run" / "level-1" / "eval" / "comparison" / "origin_vs_optimized_results.json").unlink()
    kept, rejects = read("hip2hip", tmp_path / "kit")
    got = Counter(r.reason.value for r in rejects)
    assert got["baseline_only"] == 2 and len(kept) == 2     # the optimized side's rows are read instead
    assert all(k.verification.speedup_over == "baseline_kernel" for k in kept)


def test_kvdata_jsonl_keeps_its_pytorch_time(sample_dir):
    kept, _ = read("hip2hip", sample_dir / "hip2hip")
    assert kept and all(k.verification.speedup_over == "pytorch" and k.verification.ref_ms and
                        k.verification.baseline_ms is None for k in kept)


# ============================================================== the lab's RL data
def test_rl_data_paths_remap_under_the_release_found_beside_the_lab(tmp_path):
    rf.write_v01(tmp_path / "AIG-Datasets", tasks=6, variants=2)
    manifest = rf.write_rl_data(tmp_path / "lab", tmp_path / "AIG-Datasets", tasks=6)
    kept, rejects = read("hip_rl_data", tmp_path / "lab")
    assert reasons(rejects) == manifest.rejected
    for k in kept:
        i = next(n for n in range(10) if rf.sample_id(n) == k.task_name)
        assert k.kernel_code == rf.hip_code(i, 0) and k.pytorch_code == rf.module_code(i)
        assert k.pytorch_functional_code == rf.functional_code(i) and k.license == "MIT"
        assert json.loads(k.provenance.upstream)["signature"] == ["const float*", "float*", "int"]
    assert len(kept) == len(manifest.kept)


def test_rl_data_without_a_reference_tree_names_the_option(tmp_path):
    manifest = rf.write_rl_data(tmp_path / "lab", tmp_path / "nowhere", tasks=2)
    kept, rejects = read("hip_rl_data", tmp_path / "lab", license="MIT")
    assert not kept and len(rejects) == manifest.inputs
    assert any("reference_root" in r.message for r in rejects)
    rf.write_v01(tmp_path / "elsewhere" / "AIG", tasks=2, variants=1)
    kept, _ = read("hip_rl_data", tmp_path / "lab", reference_root=str(tmp_path / "elsewhere"))
    assert len(kept) == 2


def test_verl_parquet_rows_carry_the_ground_truth(tmp_path):
    manifest = rf.write_verl(tmp_path / "verl", tasks=4)
    kept, rejects = read("hip_verl", tmp_path / "verl")
    assert reasons(rejects) == manifest.rejected and len(kept) == len(manifest.kept)
    for k in kept:
        i = next(n for n in range(10) if rf.sample_id(n) == k.task_name)
        assert (k.kernel_code, k.pytorch_code) == (rf.hip_code(i, 0), rf.module_code(i))
        assert json.loads(k.provenance.upstream)["atol"] == 0.0001


# ============================================================== v0.2
@pytest.fixture(scope="module")
def v02(tmp_path_factory):
    release = tmp_path_factory.mktemp("v02") / "AIG-Datasets"
    return release, rf.write_v02(release, rows=4)


@pytest.mark.parametrize("folder,kind", [("hip-to-hip", "v02_hip2hip"), ("pytorch_hip_kernel_gpumode", "v02_gpumode"),
                                         ("pytorch_hip_kernel_cuda_agent_ops_6k", "v02_cudaagent"),
                                         ("rocm-libraries", "v02_qa"), ("PyTorch_triton_datasets", "v02_triton")])
def test_v02_folders_map_the_unified_schema(v02, folder, kind):
    release, manifests = v02
    kept, rejects = read(kind, release / "v0.2" / folder)
    man = manifests[folder]
    assert reasons(rejects) == man.rejected
    assert sorted(json.loads(k.provenance.upstream)["row"] for k in kept) == sorted(man.kept)
    if kind == "v02_hip2hip":
        assert all(k.baseline_kernel_code and k.pytorch_code is None for k in kept)
        assert sorted(k.verification.speedup for k in kept) == pytest.approx([1.2 + i / 10 for i in range(4)])
    if kind == "v02_qa":
        assert {k.library for k in kept} == {"rocblas"} and {k.kind for k in kept} == {"purpose"}
    if kind == "v02_triton":
        assert Counter(k.provenance.pipeline for k in kept) == {f"triton-{s}": 4 for s in ("stack", "bench",
                                                                                         "gpumode", "aice")}


def test_v02_table_whose_keys_do_not_map_is_refused_in_one_line_then_read_with_columns(tmp_path):
    folder = tmp_path / "v0.2" / "hip-to-hip"
    folder.mkdir(parents=True)
    (tmp_path / "LICENSE").write_text(rf.MIT)
    rows = [{"src": rf.hip_code(i, 0), "dst": rf.hip_code(i, 1), "op": f"op{i}"} for i in range(3)]
    (folder / "pairs.json").write_text(json.dumps(rows))
    kept, rejects = read("v02_hip2hip", folder)
    assert not kept and len(rejects) == 1
    message = rejects[0].message
    assert "\n" not in message and all(k in message for k in ("dst", "op", "src", "--option v02_hip2hip.columns"))
    kept, rejects = read("v02_hip2hip", folder, columns={"baseline_kernel_code": "src", "kernel_code": "dst",
                                                         "task_name": "op"})
    assert not rejects and [k.task_name for k in kept] == ["op0", "op1", "op2"]


# ============================================================== the release kind, the build, inspect
def test_release_kind_builds_each_subset_with_its_own_accounting(tmp_path):
    release = tmp_path / "AIG-Datasets"
    v01 = rf.write_v01(release, tasks=4, variants=2)
    v02 = rf.write_v02(release, rows=3)
    accounting = cli_build(tmp_path / "out", "--source", f"release={release}")
    sources = accounting["sources"]
    assert sources[f"release:{rf.GPUMODE.as_posix()}"]["input"] == v01.inputs
    for folder, man in v02.items():
        line = sources[f"release:v0.2/{folder}"]
        assert line["input"] == man.inputs and line["reconciles"]
    assert accounting["reconciles"]
    assert len(built_rows(tmp_path / "out", "qa")) == 3


def test_a_release_with_nothing_in_it_is_a_one_line_error(tmp_path):
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(cli, ["build", "--out", str(tmp_path / "out"), "--source",
                                      f"release={tmp_path / 'empty'}"])
    assert result.exit_code == 2 and "sources --inspect" in result.output and "Traceback" not in result.output


def test_built_v01_rows_load_with_their_upstream_metadata(v01, tmp_path):
    release, manifest = v01
    accounting = cli_build(tmp_path / "out", "--source", f"hip_gpumode={release / 'v0.1'}")
    line = accounting["sources"]["hip_gpumode"]
    assert line["input"] == manifest.inputs and line["reconciles"]
    rows = built_rows(tmp_path / "out", "hip_gpumode")
    assert len(rows) == line["kept"] and all(r["provenance"]["path"].startswith("v0.1/") for r in rows)
    assert any(r["provenance"]["upstream"] for r in rows)


def test_inspect_names_the_kind_of_every_folder(tmp_path):
    manifests = rf.write_all(tmp_path, tasks=4, variants=2)
    result = CliRunner().invoke(cli, ["sources", "--inspect", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    found = {r["path"]: r for r in json.loads(result.output)}
    expected = {"AIG-Datasets/" + rf.GPUMODE.as_posix(): ("hip_gpumode", manifests["v0.1"].inputs),
                "AIG-Datasets/v0.2/hip-to-hip": ("v02_hip2hip", manifests["hip-to-hip"].inputs),
                "AIG-Datasets/v0.2/rocm-libraries": ("v02_qa", manifests["rocm-libraries"].inputs),
                "AIG-Datasets/v0.2/PyTorch_triton_datasets": ("v02_triton", 16),
                "kit/run/level-1/eval": ("hip2hip", manifests["kit_run"].inputs),
                "lab/hip_kernel_rldataset": ("hip_rl_data", manifests["rl_data"].inputs),
                "verl": ("hip_verl", manifests["verl"].inputs)}
    for path, (kind, records) in expected.items():
        assert (found[path]["kind"], found[path]["records"]) == (kind, records), path
    assert "question_code" in found["AIG-Datasets/v0.2/hip-to-hip"]["keys"]
    # the kit's dataset folder pairs hip_<x>.hip with py_<x>.py: a gpumode tree with nothing missing
    assert (found["kit/data/level-1"]["kind"], found["kit/data/level-1"]["missing"]) == ("hip_gpumode", [])
    assert any("pytorch_root" in m for m in found["kit/run/level-1/eval"]["missing"])


def test_inspect_of_a_hip_opt_archive_says_where_it_belongs(tmp_path):
    release = tmp_path / "r"
    rf.write_v01(release, tasks=2, variants=1, pack="tar.gz")
    result = CliRunner().invoke(cli, ["sources", "--inspect", str(release / rf.GPUMODE / "hip_opt.tar.gz")])
    assert result.exit_code == 0 and "beside" in result.output


# ============================================================== JSON arrays, split without parsing
@pytest.mark.parametrize("text", ['[1, {"a": "x,]\\"y"}, [2, 3], "s", null]', "[]", ' [ {"a": 1} ]\n',
                                  '[{"k": "\\\\"}, {"k": "{[\\u005d"}]', '[true,false ,  -1.5e3]'])
def test_array_elements_split_like_json_loads(text):
    data = text.encode()
    spans = array_elements(data)
    assert [json.loads(data[o:o + n]) for o, n in spans] == json.loads(text)


@pytest.mark.parametrize("text", ["[1,]", "[1],", '{"a": 1}', "[[1]", '["open]', ""])
def test_array_elements_refuse_what_is_not_one_array(text):
    assert array_elements(text.encode()) is None


def test_inspect_of_the_bundled_sample_finds_the_kinds_its_sources_yaml_names(sample_dir):
    import yaml

    from kvdata.builders.inspect import inspect_tree

    found = {(r.kind, Path(r.source).resolve()) for r in inspect_tree(str(sample_dir))}
    for listing in sample_dir.glob("*/sources.yaml"):
        for spec in yaml.safe_load(listing.read_text()):
            if spec["kind"] == "triton_table":          # any table: its columns are options, not a layout
                continue
            path = (listing.parent / spec["path"]).resolve()
            kind = spec["kind"]
            if kind == "release":                        # inspect names the subset it would read
                kind, path = "hip_gpumode", path / rf.GPUMODE
            assert (kind, path) in found, (kind, path)


def test_kit_row_of_the_reference_itself_is_baseline_only(tmp_path):
    rf.write_kit_comprehensive(tmp_path / "kit", tasks=2)
    rows_file = tmp_path / "kit" / "eval" / "baseline_hip_results.json"
    rows = json.loads(rows_file.read_text())
    base = rows[0]["base_name"]
    rows.append({**rows[0], "hip_file": f"{base}.hip", "gen_idx": None, "speedup": 1.01})
    rows_file.write_text(json.dumps(rows, indent=2))
    kept, rejects = read("hip2hip", tmp_path / "kit")
    assert len(kept) == 2 and [r.reason.value for r in rejects] == ["baseline_only"]


def test_v02_triton_preset_names_the_source_of_every_table(v02):
    release, manifests = v02
    kept, _ = read("v02_triton", release / "v0.2" / "PyTorch_triton_datasets", preset="aice")
    assert {k.provenance.pipeline for k in kept} == {"triton-aice"} and len(kept) == 16
    with pytest.raises(ValueError, match="preset"):
        source_class("v02_triton")(str(release), preset="nope")
