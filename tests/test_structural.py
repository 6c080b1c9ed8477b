"""Structural overlap: real traces (sandboxed make_fx on fake tensors) of KernelBench problems and paraphrases."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvdata.audit import structural as S

PARAPHRASES = Path(__file__).parent / "paraphrases"
THRESHOLD = 0.9
# fixture folder -> the KernelBench v0.1 problem it paraphrases (level, name)
REFERENCES = {
    "conv2d_relu_biasadd": (2, "1_Conv2D_ReLU_BiasAdd"),
    "softmax": (1, "23_Softmax"),
    "gemm_add_relu": (2, "76_Gemm_Add_ReLU"),
}
HANG = "import torch\nwhile True:\n    pass\ndef get_inputs():\n    return []\n"
ALARM_IGNORED = (  # disarms the worker's per-item alarm: only the parent's watchdog can end it
    "import signal, torch, torch.nn as nn\n"
    "class Model(nn.Module):\n"
    "    def forward(self, x):\n"
    "        signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
    "        while True:\n"
    "            pass\n"
    "def get_inputs(): return [torch.rand(4)]\n"
)
CRASH = "import os, torch\nos._exit(7)\ndef get_inputs():\n    return []\n"


def _kernelbench(shared_data: Path, version: str) -> dict:
    path = shared_data / "kernelbench" / f"kernelbench_{version}.jsonl"
    rows = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return {(r["level"], r["name"]): r["code"] for r in rows}


@pytest.fixture(scope="module")
def fixtures(shared_data) -> dict[str, str]:
    v01, v0 = _kernelbench(shared_data, "v0.1"), _kernelbench(shared_data, "v0")
    codes = {f"ref/{folder}": v01[ref] for folder, ref in REFERENCES.items()}
    codes["v0/1_Conv2D_ReLU_BiasAdd"] = v0[(2, "1_Conv2D_ReLU_BiasAdd")]
    codes["v0/23_Softmax"] = v0[(1, "23_Softmax")]
    for path in sorted(PARAPHRASES.glob("*/*.py")):
        codes[f"{path.parent.name}/{path.stem}"] = path.read_text()
    return codes


@pytest.fixture(scope="module")
def traced(fixtures, tmp_path_factory):
    """One sandboxed run over everything, with a hang and a crash ahead of the good codes in the queue (the
    tracer hands out the longest codes first, so the two carry a long comment)."""
    codes = dict(fixtures)
    items = list(codes.items())
    mid = len(items) // 2
    pad = "\n# " + "x" * max(len(c) for c in codes.values()) + "\n"
    order = items[:mid] + [("bad/hang", HANG + pad), ("bad/crash", CRASH + pad),
                           ("bad/no_inputs", "import torch\nx = 1\n")] + items[mid:]
    cache = tmp_path_factory.mktemp("fpcache")
    errors: dict = {}
    stats = S.TraceStats()
    fps = S.fingerprint_many(dict(order), cache_dir=cache, timeout_s=5, workers=1, errors=errors, stats=stats)
    return fps, errors, stats, cache


@pytest.mark.parametrize("folder", sorted(REFERENCES))
def test_paraphrases_reach_threshold(traced, fixtures, folder):
    fps, errors, _, _ = traced
    ref = fps[f"ref/{folder}"]
    assert ref is not None, errors.get(f"ref/{folder}")
    paraphrases = [k for k in fixtures if k.startswith(f"{folder}/para_")]
    assert paraphrases
    for key in paraphrases:
        assert fps[key] is not None, errors.get(key)
        assert S.structural_similarity(ref, fps[key]) >= THRESHOLD, key


@pytest.mark.parametrize("folder", sorted(REFERENCES))
def test_lookalikes_stay_below_threshold(traced, fixtures, folder):
    fps, errors, _, _ = traced
    lookalikes = [k for k in fixtures if k.startswith(f"{folder}/lookalike_")]
    assert lookalikes
    for key in lookalikes:
        assert fps[key] is not None, errors.get(key)
        assert S.structural_similarity(fps[f"ref/{folder}"], fps[key]) < THRESHOLD, key


def test_distinct_references_are_far_apart(traced):
    fps = traced[0]
    refs = [fps[f"ref/{folder}"] for folder in REFERENCES]
    for i, a in enumerate(refs):
        for b in refs[i + 1:]:
            assert S.structural_similarity(a, b) < 0.5


def test_kernelbench_versions_differing_in_sizes_are_identical(traced, fixtures):
    fps = traced[0]
    for v0_key, ref_key in (("v0/1_Conv2D_ReLU_BiasAdd", "ref/conv2d_relu_biasadd"), ("v0/23_Softmax", "ref/softmax")):
        assert fixtures[v0_key] != fixtures[ref_key]          # the texts differ (sizes) ...
        assert fps[v0_key].canonical == fps[ref_key].canonical  # ... the computation does not
        assert S.structural_similarity(fps[v0_key], fps[ref_key]) == 1.0


def test_hang_and_crash_cost_only_themselves(traced, fixtures):
    fps, errors, stats, _ = traced
    assert fps["bad/hang"] is None and "timed out" in errors["bad/hang"]
    assert fps["bad/crash"] is None and "worker died" in errors["bad/crash"]
    assert fps["bad/no_inputs"] is None and "get_inputs" in errors["bad/no_inputs"]
    assert all(fps[k] is not None for k in fixtures), {k: errors.get(k) for k in fixtures if fps[k] is None}
    assert stats.worker_starts == 2  # one restart, after the crash


def test_wedged_worker_is_killed_and_the_rest_continue(tmp_path, monkeypatch, fixtures):
    monkeypatch.setattr(S.tracing, "ANSWER_GRACE_S", 2.0)
    codes = {"before": fixtures["ref/softmax"], "wedged": ALARM_IGNORED, "after": fixtures["softmax/para_module_form"]}
    errors: dict = {}
    fps = S.fingerprint_many(codes, timeout_s=2, workers=1, errors=errors)
    assert fps["wedged"] is None and "stopped answering" in errors["wedged"]
    assert fps["before"] is not None and fps["after"] is not None


def test_cache_is_hit_on_second_call(traced, fixtures):
    fps, _, _, cache = traced
    stats = S.TraceStats()
    again = S.fingerprint_many(fixtures, cache_dir=cache, stats=stats)
    assert stats.cached == len(fixtures) and stats.traced == 0 and stats.worker_starts == 0
    assert all(again[k].to_json() == fps[k].to_json() for k in fixtures)


def test_structural_pairs_flags_paraphrases_not_lookalikes(traced, fixtures):
    fps = traced[0]
    bench = {folder: fps[f"ref/{folder}"] for folder in REFERENCES}
    train = {k: fps[k] for k in fixtures if not k.startswith("ref/")}
    pairs = S.structural_pairs(bench, train, threshold=THRESHOLD)
    flagged = {(b, t) for b, t, _ in pairs}
    for folder in REFERENCES:
        for key in train:
            if key.startswith(f"{folder}/para_"):
                assert (folder, key) in flagged
            if "lookalike" in key:
                assert (folder, key) not in flagged
    assert all(THRESHOLD <= s <= 1.0 for _, _, s in pairs)
    # The sparse all-pairs scorer agrees with the pairwise definition.
    for b, t, s in pairs:
        assert s == pytest.approx(S.structural_similarity(bench[b], train[t]), abs=1e-6)


def test_untrusted_worker_output_is_rejected_not_trusted():
    forward_ref = {"i": 0, "key": "k", "ok": True, "graphs": [{"nodes": [{"op": "aten.relu.default",
                                                                         "args": [{"n": 3}]}]}]}
    _, value = S.tracing._parse_line(json.dumps(forward_ref).encode(), 0, "k")
    assert isinstance(value, S.TraceError)
    _, value = S.tracing._parse_line(b'{"i": 0, "key": "other", "ok": true, "graphs": []}', 0, "k")
    assert isinstance(value, S.TraceError) and "out of order" in value.message
    _, value = S.tracing._parse_line(b"not json", 0, "k")
    assert isinstance(value, S.TraceError)


def test_normalisation_collapses_layout_and_inplace():
    def graph(ops):
        nodes = [{"op": "placeholder", "kind": "input", "rank": 2}]
        for op in ops:
            nodes.append({"op": op, "args": [{"n": len(nodes) - 1}], "kw": {}, "rank": 2})
        nodes.append({"op": "output", "args": [[{"n": len(nodes) - 1}]]})
        return S.fingerprint_graph(S.normalize_graph(nodes))

    def matmul(transpose_first: bool):
        nodes = [{"op": "placeholder", "kind": "input", "rank": 2}, {"op": "placeholder", "kind": "input", "rank": 2}]
        a = 0
        if transpose_first:
            nodes.append({"op": "aten.t.default", "args": [{"n": 0}], "kw": {}, "rank": 2})
            a = 2
        nodes.append({"op": "aten.mm.default", "args": [{"n": a}, {"n": 1}], "kw": {}, "rank": 2})
        nodes.append({"op": "output", "args": [[{"n": len(nodes) - 1}]]})
        return S.fingerprint_graph(S.normalize_graph(nodes))

    assert matmul(True).canonical != matmul(False).canonical   # A.T @ B is not A @ B
    plain = graph(["aten.relu.default"])
    assert graph(["aten.view.default", "aten.relu_.default", "aten.contiguous.default"]).canonical == plain.canonical
    assert graph(["aten.neg.default", "aten.relu.default"]).canonical != plain.canonical
