import pytest

from kvdata.audit.benchmarks import BENCHMARKS, load_benchmark


def test_kernelbench_jsonl_versions_and_levels(shared_data):
    path = shared_data / "kernelbench" / "kernelbench_v0.1.jsonl"
    items = load_benchmark("kernelbench", path, version="v0.1")
    assert len(items) == 270
    assert "kernelbench/v0.1/level2/1_Conv2D_ReLU_BiasAdd" in {it.id for it in items}
    l12 = load_benchmark("kernelbench", path, version="v0.1", levels=[1, 2])
    assert {it.level for it in l12} == {1, 2} and len(l12) == 200
    v0 = load_benchmark("kernelbench", shared_data / "kernelbench" / "kernelbench_v0.jsonl", version="v0")
    assert all(it.id.startswith("kernelbench/v0/") for it in v0)


def test_kernelbench_problem_folder(tmp_path, shared_data):
    items = load_benchmark("kernelbench", shared_data / "kernelbench" / "kernelbench_v0.1.jsonl", levels=[4])
    for it in items[:3]:
        d = tmp_path / f"level{it.level}"
        d.mkdir(exist_ok=True)
        (d / f"{it.name}.py").write_text(it.code)
    got = load_benchmark("kernelbench", tmp_path, version="v0.1")
    assert sorted(g.id for g in got) == sorted(it.id for it in items[:3])
    assert {g.id: g.code for g in got} == {it.id: it.code for it in items[:3]}


def test_tritonbench_and_rocmbench(shared_data):
    g = load_benchmark("tritonbench-g", shared_data / "tritonbench" / "TritonBench_G_v1.json")
    t = load_benchmark("tritonbench-t", shared_data / "tritonbench" / "TritonBench_T_v1.jsonl")
    r = load_benchmark("rocmbench", shared_data / "geak_eval" / "ROCm_eval_complex_instruct_v1.json")
    assert (len(g), len(t), len(r)) == (184, 166, 31)
    assert g[0].id.endswith(".py") and "triton" in g[0].code
    assert "torch" in t[0].code and r[0].name


def test_generic_and_errors(tmp_path):
    p = tmp_path / "b.jsonl"
    p.write_text('{"task": "a", "src": "x = 1"}\n{"task": "b", "src": "y = 2"}\n')
    items = load_benchmark("generic", p, id_column="task", code_column="src")
    assert [it.id for it in items] == ["a", "b"]
    with pytest.raises(ValueError, match="columns"):
        load_benchmark("generic", p)
    with pytest.raises(ValueError, match="unknown benchmark"):
        load_benchmark("nope", p)
    with pytest.raises(ValueError, match="bench-path"):
        load_benchmark("tritonbench-g")
    assert set(BENCHMARKS) == {"kernelbench", "tritonbench-g", "tritonbench-t", "rocmbench", "generic"}
