"""End-to-end audits on real benchmark text with planted near-duplicates and look-alikes."""
import json

import pyarrow.parquet as pq
import pytest

from kvdata.audit.benchmarks import load_benchmark
from kvdata.audit.normalize import normalize_code
from kvdata.audit.pairs import PairScores, Thresholds, flag_pair
from kvdata.audit.pipeline import run_audit, write_outputs
from kvdata.audit.training import TrainingRows, load_training


@pytest.fixture(scope="module")
def kb(shared_data):
    v0 = load_benchmark("kernelbench", shared_data / "kernelbench" / "kernelbench_v0.jsonl", version="v0")
    v1 = load_benchmark("kernelbench", shared_data / "kernelbench" / "kernelbench_v0.1.jsonl", version="v0.1")
    return v0, v1


def _reorder_functions(code: str) -> str:
    """Move the module-level helpers (sizes, get_inputs, get_init_inputs) above the model class."""
    head, sep, tail = code.partition("\n# Test code")
    if not sep:
        head, sep, tail = code.partition("\nbatch_size")
    assert sep, "task has no module-level tail to move"
    return sep.strip() + tail + "\n\n" + head


def test_planted_near_duplicates_are_flagged(kb):
    _, v1 = kb
    by_name = {it.name: it for it in v1}
    task = by_name["1_Conv2D_ReLU_BiasAdd"].code
    renamed = task.replace("bias_shape", "bshape").replace("out_channels", "n_out")
    reordered = _reorder_functions(by_name["2_ShallowWideMLP"].code)
    filler = "\n".join(f"def util_{i}(a, b):\n    return a * {i} + b" for i in range(200))
    pasted = filler + "\n" + by_name["40_LayerNorm"].code + "\n" + filler
    train = TrainingRows(["renamed", "reordered", "pasted", "unrelated"],
                         [renamed, reordered, pasted, filler], [None] * 4, "planted")
    res = run_audit(v1, train, measures=["lexical"], progress=False)
    flagged = {(p.bench_id.split("/")[-1], p.train_id): p for p in res.flagged}
    assert ("1_Conv2D_ReLU_BiasAdd", "renamed") in flagged
    assert ("2_ShallowWideMLP", "reordered") in flagged
    p = flagged[("40_LayerNorm", "pasted")]
    assert "containment" in p.reason and p.jaccard < 0.3
    assert "unrelated" not in res.flagged_train_ids()


def test_structural_veto_unflags_lookalikes():
    th = Thresholds()
    lookalike = flag_pair(PairScores("b", "t", jaccard=0.95, containment=0.9, structural=0.2), th)
    assert not lookalike.flagged and lookalike.reason.startswith("vetoed")
    same = flag_pair(PairScores("b", "t", jaccard=0.95, containment=0.9, structural=1.0), th)
    assert same.flagged and same.reason == "jaccard>=0.8;containment>=0.8;structural>=0.95"
    paraphrase = flag_pair(PairScores("b", "t", jaccard=0.05, containment=0.0, structural=0.97), th)
    assert paraphrase.flagged and paraphrase.reason == "structural>=0.95"


def test_behavioural_veto_and_what_it_spares():
    th = Thresholds()
    # a look-alike whose text and graph match but whose outputs differ: every whole-code reason is vetoed
    same_graph = flag_pair(PairScores("b", "t", jaccard=0.9, structural=1.0, structural_containment=1.0,
                                      behavioural=0.0), th)
    assert not same_graph.flagged and same_graph.reason.startswith("vetoed:behavioural")
    # a small computation inside a bigger model that computes something else (a mean of squares in a regulariser):
    # the probe ran and disagreed, so containment is vetoed too (tests/audit_suite/lookalikes2)
    inside = flag_pair(PairScores("b", "t", structural=0.4, structural_containment=1.0, behavioural=0.0), th)
    assert not inside.flagged and inside.reason == "vetoed:behavioural<0.5 (structural_containment>=0.95)"
    # ... while an unprobed pair keeps its containment flag
    unprobed = flag_pair(PairScores("b", "t", structural=0.4, structural_containment=1.0), th)
    assert unprobed.flagged and unprobed.reason == "structural_containment>=0.95"
    # a benchmark kernel in a Triton library file: probing says nothing about kernels
    kernel = flag_pair(PairScores("b", "t", kernel_jaccard=0.9, behavioural=0.0), th)
    assert kernel.flagged and kernel.reason == "kernel_jaccard>=0.8"
    # ... unless the kernel rule refused the match (ops that differ, or a kernel too short to count)
    refused = flag_pair(PairScores("b", "t", kernel_jaccard=0.9, kernel_veto="op_conflicts=2"), th)
    assert not refused.flagged
    # behaviour alone flags a paraphrase nothing else sees
    para = flag_pair(PairScores("b", "t", jaccard=0.1, structural=0.3, behavioural=1.0), th)
    assert para.flagged and para.reason == "behavioural>=0.999"
    # probed pairs are judged by behaviour, not by the structural veto
    probed = flag_pair(PairScores("b", "t", jaccard=0.9, structural=0.2, behavioural=1.0), th)
    assert probed.flagged and "jaccard" in probed.reason


def test_lookalikes_stay_unflagged_with_structural(kb):
    structural = pytest.importorskip("kvdata.audit.structural")
    assert structural  # the combined rule needs the op-graph measure to tell look-alikes apart
    _, v1 = kb
    softmax = next(it for it in v1 if it.name == "23_Softmax")
    neg = softmax.code.replace("torch.softmax(x, dim=1)", "torch.softmax(-x, dim=1)")
    assert neg != softmax.code
    train = TrainingRows(["neg"], [neg], [neg], "lookalike")
    res = run_audit([softmax], train, measures=["lexical", "structural"], progress=False)
    assert not res.flagged, [p.reason for p in res.pairs]


def test_kernelbench_v0_against_v01_overlap(kb, tmp_path):
    v0, v1 = kb
    train = TrainingRows([it.id for it in v0], [it.code for it in v0], [it.code for it in v0], "kernelbench v0")
    res = run_audit(v1, train, measures=["lexical"], progress=False)
    norm0 = {it.name: normalize_code(it.code) for it in v0}
    identical = {it.id for it in v1 if norm0.get(it.name) == normalize_code(it.code)}
    print(f"v0.1 items identical to v0 after normalisation: {len(identical)}; flagged: "
          f"{len({p.bench_id for p in res.flagged})} of {len(v1)}")
    assert len(identical) >= 10
    flagged_items = {p.bench_id for p in res.flagged}
    assert identical <= flagged_items
    assert len(flagged_items) > len(identical)   # rewritten-but-same problems are found too
    paths = write_outputs(res, tmp_path)
    summary = pq.read_table(paths["summary.parquet"]).to_pylist()
    assert len(summary) == len(v1)
    clean = paths["clean_tasks.txt"].read_text().split()
    assert set(clean).isdisjoint(flagged_items) and len(clean) == len(v1) - len(flagged_items)
    kept = pq.read_table(paths["train_decontaminated.parquet"]).column("id").to_pylist()
    assert len(kept) == len(v0) - len(res.flagged_train_ids())


def test_training_loader_reads_jsonl_and_parquet(tmp_path):
    import pyarrow as pa

    p = tmp_path / "t.jsonl"
    p.write_text(json.dumps({"uid": "a", "text": "x = 1"}) + "\n")
    rows = load_training(p, id_column="uid", code_column="text")
    assert rows.ids == ["a"] and rows.code == ["x = 1"]
    (tmp_path / "data" / "hip_gpumode").mkdir(parents=True)
    pq.write_table(pa.table({"id": ["k1"], "kernel_code": ["__global__ void k(){}"], "pytorch_code": ["ref"]}),
                   tmp_path / "data" / "hip_gpumode" / "train-00000-of-00001.parquet")
    built = load_training(tmp_path)
    assert built.ids == ["k1"] and built.pytorch == ["ref"]
    with pytest.raises(ValueError, match="lacks"):
        load_training(p)


def test_training_code_without_reference_is_traced(kb, tmp_path):
    """A plain JSONL training row (no pytorch_code column) still gets the structural measure:
    its code is traced when it holds a module with get_inputs, so a renamed copy is found."""
    _, v1 = kb
    relu = next(it for it in v1 if it.name == "19_ReLU")
    renamed = (relu.code.replace("torch.relu(x)", "torch.nn.functional.relu(inp)")
               .replace("forward(self, x", "forward(self, inp").replace("dim = 393216", "dim = 1024"))
    assert renamed != relu.code
    path = tmp_path / "train.jsonl"
    path.write_text(json.dumps({"id": "copy", "code": renamed}) + "\n")
    train = load_training(path)
    assert train.pytorch == [None]
    res = run_audit([relu], train, measures=["structural"], progress=False)
    scores = [p.structural for p in res.pairs if p.train_id == "copy"]
    assert scores and scores[0] >= 0.95
