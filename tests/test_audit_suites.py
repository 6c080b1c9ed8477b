"""The audit on inputs written by red teams that had not seen its code (tests/audit_suite, tests/triton_suite).

- ``audit_suite``: LLM-style paraphrases of KernelBench v0.1 problems and look-alikes on the same skeletons;
  ``verify.py`` proves every label by running both sides. Bar: at least 80% of the held-out paraphrases
  flagged against their own original, at most 10% of the look-alikes flagged against theirs.
- ``audit_suite/lookalikes2``: a second red team's look-alikes, small benchmark computations (norms, losses,
  softmax, activations, reductions) inside bigger models that compute something else, with controls that do
  compute the problem; its ``verify.py`` proves each label. Bar: at most 10% of the look-alikes flagged against
  their target, every control found.
- ``triton_suite``: TritonBench-G kernels planted at test time (never stored) into multi-kernel library files,
  verbatim and edited, next to absent items and independently written look-alikes. Bar: at least 90% of the
  planted items flagged against the right file, at most 10% of the absent ones flagged at all.

Thresholds were tuned on the development split (``audit_suite/dev``) and on the kernel measure's own planted
set (``tests/triton_kernels``), never on these held-out cases.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kvdata.audit.benchmarks import load_benchmark
from kvdata.audit.evaluation import load_suite, score_planted, score_suite
from kvdata.audit.pipeline import run_audit
from kvdata.audit.training import TrainingRows

HERE = Path(__file__).parent
PARAPHRASES = HERE / "audit_suite"
LOOKALIKES2 = PARAPHRASES / "lookalikes2"
TRITON = HERE / "triton_suite"


@pytest.fixture(scope="module")
def kernelbench(shared_data):
    return load_benchmark("kernelbench", shared_data / "kernelbench" / "kernelbench_v0.1.jsonl", version="v0.1")


def test_paraphrase_suite_labels_hold(shared_data):
    """Every label is true: paraphrases compute their reference's function, look-alikes do not (run for real)."""
    env = {"KVDATA_SHARED_DATA": str(shared_data), "TRITON_INTERPRET": "1", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, str(PARAPHRASES / "verify.py")], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "SUMMARY:" in proc.stdout and " 0 failure" in proc.stdout


def test_second_lookalike_set_labels_hold(shared_data):
    """Every look-alike differs from its target for every parameter choice tried, every control matches it."""
    proc = subprocess.run([sys.executable, str(LOOKALIKES2 / "verify.py"), "--kernelbench",
                           str(shared_data / "kernelbench" / "kernelbench_v0.1.jsonl")], capture_output=True,
                          text=True, timeout=900, cwd=LOOKALIKES2)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_small_patterns_inside_bigger_models_are_not_flagged(tmp_path, shared_data):   # reads KernelBench v0.1
    sys.path.insert(0, str(HERE.parent / "scripts"))
    try:
        import eval_lookalikes2
    finally:
        sys.path.remove(str(HERE.parent / "scripts"))
    res = eval_lookalikes2.evaluate(["lexical", "semantic", "structural", "behavioural"], tmp_path / "cache")
    false = [c["file"] for c in res["lookalikes"] if c["flagged"]]
    missed = [c["file"] for c in res["controls"] if not c["flagged"]]
    assert len(res["lookalikes"]) >= 20 and len(res["controls"]) >= 8
    assert len(false) <= 0.1 * len(res["lookalikes"]), false
    assert not missed, missed


def test_heldout_paraphrases_found_and_lookalikes_not(kernelbench, tmp_path):
    cases = load_suite(PARAPHRASES, split="heldout")
    assert sum(c.kind == "paraphrase" for c in cases) >= 24 and sum(c.kind == "lookalike" for c in cases) >= 24
    score, result = score_suite(cases, kernelbench,
                                measures=["lexical", "semantic", "structural", "kernel", "behavioural"],
                                cache_dir=str(tmp_path / "cache"), progress=False)
    print(f"held-out: {score.n_found}/{score.n_paraphrases} paraphrases, {score.n_false_flags}/"
          f"{score.n_lookalikes} look-alikes flagged; by category {score.by_category}; missed {score.missed}; "
          f"false flags {score.false_flags}")
    assert score.recall >= 0.8, (score.missed, result.notes)
    assert score.false_flag_rate <= 0.1, score.false_flags
    # every row that could not be traced says why
    for row in result.coverage.side("train"):
        assert row.traced or row.trace_reason, row


@pytest.fixture(scope="module")
def planted(shared_data):
    sys.path.insert(0, str(TRITON))
    try:
        import plant
    finally:
        sys.path.remove(str(TRITON))
    files, truth = plant.build_corpus(str(shared_data / "tritonbench" / "TritonBench_G_v1.json"))
    return files, truth


def test_planted_triton_kernels_found_in_the_right_file(planted, shared_data):
    files, truth = planted
    bench = load_benchmark("tritonbench-g", shared_data / "tritonbench" / "TritonBench_G_v1.json")
    train = TrainingRows(list(files), list(files.values()), [None] * len(files), "planted library files")
    result = run_audit(bench, train, measures=["lexical", "kernel"], progress=False)
    score = score_planted(truth, {(p.bench_id, p.train_id) for p in result.flagged})
    print(f"planted: {score.n_found}/{score.n_planted} found, {score.n_false_flags}/{score.n_absent} absent "
          f"flagged; by edit {score.by_edit}; missed {score.missed}; false flags {score.false_flags}")
    assert score.n_planted >= 40 and score.n_absent >= 40
    assert score.recall >= 0.9, score.missed
    assert score.false_flag_rate <= 0.1, score.false_flags
    flagged = [p for p in result.flagged if p.kernels]
    assert flagged and all("~" in p.kernels for p in flagged)   # the report names the matching kernels
