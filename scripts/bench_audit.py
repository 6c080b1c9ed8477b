"""Throughput of the overlap audit, each part measured side by side with a baseline in one run.

    python scripts/bench_audit.py                                # lexical + CPU embedding (+ GPU when CUDA is seen)
    python scripts/bench_audit.py --sections embed-cpu --cpu-docs 32
    python scripts/bench_audit.py --sections embed-gpu --gpu-docs 8192 --json out/bench/embed_h200.json

Sections (``--sections``, comma-separated):

``lexical``
    Benchmark side: every benchmark in the shared data folder (KernelBench v0 + v0.1, TritonBench-G,
    TritonBench-T, ROCmBench; ~920 items). Training side: synthetic ~2,000-character code documents generated from
    benchmark-like templates (PyTorch modules, Triton and HIP kernels) with random identifiers, sizes and op
    choices (seeded). kvdata is measured end to end through ``kvdata.audit.pipeline.lexical_pairs``, as
    ``run_audit`` calls it: benchmark index built, comments stripped, identifiers renamed (default) at the token
    level, tokens hashed, 5-gram MinHash + LSH candidates + exact Jaccard of the candidates, 13-gram containment,
    pairs collected by id, over ``--workers`` forked processes. The datasketch baselines (normalise without
    renaming, MinHash over shingle strings with one ``update`` per shingle or one ``update_batch``, MinHashLSH
    query, exact Jaccard of candidates; no containment, so they do less work) and rensa run in one process on
    ``--baseline-docs`` documents. The machine may be shared: the JSON records ``os.getloadavg()`` before and
    after, and the rows are interleaved so that load hits them alike.

``embed-gpu`` (needs CUDA)
    ``--gpu-docs`` synthetic documents of ``--doc-chars`` characters
    (``kvdata.audit.semantic.synthetic_code_docs``), whole-document coverage, through: kvdata's path (each
    document tokenised once, token windows length-sorted into batches of 4,096, the model's modules in fp16,
    tokenising overlapped with encoding); the naive fp16 loop (the same fp16 model, each document tokenised once
    and cut at 256 tokens, length-sorted batches of 4,096: one window a document); and the path kvdata had before
    (text windows re-tokenised by ``SentenceTransformer.encode``, fp32, batch 256). Cosine of kvdata's document
    vectors against the old fp32 path, min and median, on the benchmark items (KernelBench v0.1 code,
    TritonBench-G ``output``).

``embed-cpu``
    ``--cpu-docs`` documents through ONNX Runtime int8 (the CPU default), torch fp32 with the same windows, and
    the old path (fp32, batch 32), in ``--rounds`` interleaved rounds (each row reports its fastest, with its CPU
    time). Cosine of int8 against torch fp32 over the benchmark items (``--cosine-items``, 0 = all).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

import numpy as np

from kvdata.audit.benchmarks import load_benchmark

OPS = ["torch.relu(x)", "torch.sigmoid(x)", "torch.tanh(x)", "F.gelu(x)", "torch.softmax(x, dim=1)",
       "x * {a}", "x + self.bias", "torch.clamp(x, min={a}, max={b})", "F.layer_norm(x, x.shape[1:])",
       "torch.matmul(x, x.transpose(-1, -2))", "x.mean(dim=1, keepdim=True)", "torch.logsumexp(x, dim=1)"]
LAYERS = ["nn.Linear({a}, {b})", "nn.Conv2d({a}, {b}, kernel_size=3)", "nn.BatchNorm2d({b})",
          "nn.Conv3d({a}, {b}, 3, stride=2)", "nn.GroupNorm({a}, {b})", "nn.Dropout(p=0.{a})"]


def _import_lexical() -> None:
    """The lexical section's imports, loaded only when it runs (the GPU image lacks some of their dependencies)."""
    global LexicalScanner, MinHasher, estimate_jaccard, jaccard, normalize_code, strip_comments, tokens
    global lexical_pairs
    from kvdata.audit.lexical import LexicalScanner, MinHasher, estimate_jaccard, jaccard
    from kvdata.audit.normalize import normalize_code, strip_comments, tokens
    from kvdata.audit.pipeline import lexical_pairs


def _name(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(3, 10))).strip("_") or "v"


def _torch_module(rng: random.Random) -> str:
    cls, x = _name(rng).title(), _name(rng)
    layers = [rng.choice(LAYERS).format(a=rng.randint(2, 512), b=rng.randint(2, 512)) for _ in range(rng.randint(1, 4))]
    lines = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F", "",
             f"class {cls}(nn.Module):", "    def __init__(self):", "        super().__init__()"]
    lines += [f"        self.l{i} = {layer}" for i, layer in enumerate(layers)]
    lines += ["", f"    def forward(self, {x}):"]
    for i in range(len(layers)):
        lines.append(f"        {x} = self.l{i}({x})")
        op = rng.choice(OPS).format(a=rng.randint(1, 9), b=rng.randint(10, 99)).replace("x", x)
        lines.append(f"        {x} = {op}")
    lines += [f"        return {x}", "", f"batch_size = {rng.choice([16, 32, 64, 128, 256])}",
              f"def get_inputs():\n    return [torch.randn(batch_size, {rng.randint(3, 1024)})]", ""]
    return "\n".join(lines)


def _triton_kernel(rng: random.Random) -> str:
    k, p = _name(rng), _name(rng)
    op = rng.choice(["tl.exp(v)", "tl.maximum(v, 0.0)", "v * {a}.0", "tl.sigmoid(v)", "tl.sqrt(v + 1e-5)"])
    return (f"import triton\nimport triton.language as tl\n\n@triton.jit\ndef {k}_kernel({p}_ptr, out_ptr, n, "
            f"BLOCK: tl.constexpr):\n    pid = tl.program_id(0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
            f"    mask = offs < n\n    v = tl.load({p}_ptr + offs, mask=mask)  # load\n"
            f"    tl.store(out_ptr + offs, {op.format(a=rng.randint(2, 9))}, mask=mask)\n\n"
            f"def {k}(x):\n    out = torch.empty_like(x)\n    grid = (triton.cdiv(x.numel(), {rng.choice([256, 512, 1024])}),)\n"
            f"    {k}_kernel[grid](x, out, x.numel(), BLOCK={rng.choice([256, 512, 1024])})\n    return out\n")


def _hip_kernel(rng: random.Random) -> str:
    k, a = _name(rng), _name(rng)
    return (f"#include <hip/hip_runtime.h>\n// {k}: elementwise kernel\n__global__ void {k}(const float* __restrict__ "
            f"{a}, float* out, int n) {{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            f"  if (i < n) out[i] = {a}[i] * {rng.randint(1, 99)}.0f + {rng.randint(1, 99)}.0f;\n}}\n")


def synthetic_docs(n: int, chars: int = 2000, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    makers = [_torch_module, _triton_kernel, _hip_kernel]
    docs = []
    for _ in range(n):
        parts, size = [], 0
        while size < chars:
            part = rng.choice(makers)(rng)
            parts.append(part)
            size += len(part)
        docs.append("\n".join(parts)[:chars])
    return docs


# ---------------------------------------------------------------- the measurements
def _rate(docs: int, seconds: float, cpu: float, workers: int = 1, **extra) -> dict:
    """Wall-clock rate, and the CPU time per document of this process and its workers: on a shared machine the
    latter shows what the run would reach on otherwise idle cores (``idle_docs_per_s``)."""
    return {"docs": docs, "seconds": seconds, "docs_per_s": docs / seconds, "workers": workers,
            "cpu_us_per_doc": cpu / docs * 1e6, "idle_docs_per_s": docs / cpu * workers, **extra}


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def run_kvdata(bench_code: list[str], docs: list[str], workers: int, rename: bool) -> dict:
    """The library's lexical audit end to end, as ``run_audit`` calls it: benchmark index built, training rows
    comment-stripped (and identifiers renamed) inside the scan, forked workers, pairs collected by id."""
    bench_norm = [normalize_code(c, rename_identifiers=rename) for c in bench_code]
    ids = [str(i) for i in range(len(docs))]
    bench_ids = [str(i) for i in range(len(bench_code))]
    cpu0, t0 = _cpu_seconds(), time.perf_counter()
    pairs = lexical_pairs(bench_ids, bench_norm, ids, docs, progress=False, rename_identifiers=rename,
                          raw_train=True, workers=workers)
    return _rate(len(docs), time.perf_counter() - t0, _cpu_seconds() - cpu0, workers, pairs=len(pairs),
                 rename_identifiers=rename)


def stage_costs(bench_code: list[str], docs: list[str]) -> dict:
    """CPU microseconds per document of each stage (1 process, renaming on), to show where the time goes."""
    bench_norm = [normalize_code(c, rename_identifiers=True) for c in bench_code]
    scanner = LexicalScanner(bench_norm, rename_identifiers=True)
    costs: dict[str, float] = {}

    def timed(name, fn):
        t0 = time.process_time()
        out = fn()
        costs[name] = (time.process_time() - t0) / len(docs) * 1e6
        return out

    stripped = timed("strip_comments", lambda: [strip_comments(d) for d in docs])
    timed("scan (hash, rename, MinHash, LSH, Jaccard, containment)", lambda: scanner.scan(stripped))
    timed("normalize_code (full text, for reference)", lambda: [normalize_code(d) for d in docs[:5000]])
    costs["normalize_code (full text, for reference)"] *= len(docs) / min(len(docs), 5000)
    timed("normalize_code(rename_identifiers=True), text", lambda: [normalize_code(d, rename_identifiers=True)
                                                                     for d in docs[:2000]])
    costs["normalize_code(rename_identifiers=True), text"] *= len(docs) / min(len(docs), 2000)
    return costs


def _shingle_strings(text: str, n: int = 5) -> list[str]:
    toks = tokens(text)
    return [" ".join(toks[i:i + n]) for i in range(max(len(toks) - n + 1, 1))]


def run_datasketch(bench_norm: list[str], docs: list[str], batch: bool, threshold: float = 0.5) -> dict:
    """A plain datasketch loop: normalise, MinHash over shingle strings, MinHashLSH query, exact Jaccard of the
    candidates (no containment). ``batch`` uses ``update_batch`` (datasketch's vectorised update) instead of one
    ``update`` per shingle."""
    from datasketch import MinHash, MinHashLSH

    def sketch(text: str) -> MinHash:
        m = MinHash(num_perm=128)
        shingles = [s.encode() for s in _shingle_strings(text)]
        if batch:
            m.update_batch(shingles)
        else:
            for s in shingles:
                m.update(s)
        return m

    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    for i, text in enumerate(bench_norm):
        lsh.insert(str(i), sketch(text))
    cpu0, t0 = _cpu_seconds(), time.perf_counter()
    n_pairs = 0
    for d in docs:
        text = normalize_code(d)
        for key in lsh.query(sketch(text)):
            n_pairs += jaccard(bench_norm[int(key)], text) >= threshold
    return _rate(len(docs), time.perf_counter() - t0, _cpu_seconds() - cpu0, pairs=n_pairs)


def run_rensa(docs: list[str]) -> dict:
    from rensa import RMinHash

    cpu0, t0 = _cpu_seconds(), time.perf_counter()
    for d in docs:
        m = RMinHash(num_perm=128, seed=1)
        m.update(_shingle_strings(normalize_code(d)))
        m.digest()
    return _rate(len(docs), time.perf_counter() - t0, _cpu_seconds() - cpu0,
                 note="normalise + shingle strings + RMinHash only (no LSH, no Jaccard, no containment)")


def estimate_error(bench_norm: list[str], pairs: int = 20_000, seed: int = 0) -> dict:
    """MinHash estimate minus exact Jaccard over random benchmark pairs, by band of exact Jaccard."""
    rng = random.Random(seed)
    hasher = MinHasher()
    sigs = hasher.signatures(bench_norm)
    rows = []
    for _ in range(pairs):
        a, b = rng.randrange(len(bench_norm)), rng.randrange(len(bench_norm))
        rows.append((jaccard(bench_norm[a], bench_norm[b]), estimate_jaccard(sigs[a], sigs[b])))
    out = {}
    for lo, hi in ((0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 1.01)):
        err = [e - j for j, e in rows if lo <= j < hi]
        if err:
            out[f"{lo:.1f}-{min(hi, 1.0):.1f}"] = {"pairs": len(err), "bias": sum(err) / len(err),
                                                    "mean_abs": sum(map(abs, err)) / len(err)}
    return out


def load_all_benchmarks(data: Path) -> list[str]:
    """The code of every benchmark item in the shared data folder (raw, not normalised)."""
    items = (load_benchmark("kernelbench", data / "kernelbench" / "kernelbench_v0.jsonl", version="v0")
             + load_benchmark("kernelbench", data / "kernelbench" / "kernelbench_v0.1.jsonl", version="v0.1")
             + load_benchmark("tritonbench-g", data / "tritonbench" / "TritonBench_G_v1.json")
             + load_benchmark("tritonbench-t", data / "tritonbench" / "TritonBench_T_v1.jsonl")
             + load_benchmark("rocmbench", data / "geak_eval" / "ROCm_eval_complex_instruct_v1.json"))
    return [it.code for it in items]


def lexical_section(args) -> dict:
    """The lexical audit against datasketch and rensa (see the module docstring); prints its table."""
    _import_lexical()
    bench_code = load_all_benchmarks(args.data)
    bench_norm = [normalize_code(c) for c in bench_code]
    docs = synthetic_docs(args.docs, args.chars, seed=0)
    sub = docs[:args.baseline_docs]
    results = {"bench_items": len(bench_code), "doc_chars": args.chars, "loadavg_before": os.getloadavg()}
    # Side by side: every row is measured once per round, rounds interleaved, and the fastest round of each row
    # is reported (all rounds are in the JSON), so that a burst of load from other users hits every row alike.
    runs = {
        "kvdata": lambda: run_kvdata(bench_code, docs, args.workers, rename=True),
        "datasketch": lambda: run_datasketch(bench_norm, sub, batch=False),
        "kvdata_no_rename": lambda: run_kvdata(bench_code, docs, args.workers, rename=False),
        "datasketch_update_batch": lambda: run_datasketch(bench_norm, sub, batch=True),
        "kvdata_1proc": lambda: run_kvdata(bench_code, docs[:20_000], 1, rename=True),
        "rensa": lambda: run_rensa(sub),
    }
    rounds: dict[str, list[dict]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            rounds[name].append(dict(run(), loadavg=os.getloadavg()[0]))
    for name, measured in rounds.items():
        results[name] = dict(max(measured, key=lambda r: r["docs_per_s"]), rounds=measured)
    results["loadavg_after"] = os.getloadavg()
    results["stage_us_per_doc"] = stage_costs(bench_code, docs[:20_000])
    results["estimate_error"] = estimate_error(bench_norm)
    kv, ds = results["kvdata"], results["datasketch"]
    results["speedup_vs_datasketch"] = kv["docs_per_s"] / ds["docs_per_s"]
    results["speedup_vs_datasketch_per_process"] = results["kvdata_1proc"]["docs_per_s"] / ds["docs_per_s"]
    results["speedup_vs_datasketch_update_batch"] = kv["docs_per_s"] / results["datasketch_update_batch"]["docs_per_s"]
    results["speedup_vs_datasketch_cpu"] = ds["cpu_us_per_doc"] / kv["cpu_us_per_doc"]

    print(f"\n== lexical: {len(bench_code)} benchmark items, {kv['docs']} synthetic docs of ~{args.chars} chars; load "
          f"average {results['loadavg_before'][0]:.2f} before, {results['loadavg_after'][0]:.2f} after "
          f"({os.cpu_count()} CPUs)")
    print(f"best of {args.rounds} interleaved rounds; load = 1-min load average when the row's best round ended")
    print(f"{'implementation':62s} {'docs':>7s} {'seconds':>8s} {'docs/s':>8s} {'load':>5s} {'CPU us/doc':>10s} "
          f"{'idle docs/s':>11s}")
    rows = [(f"kvdata lexical audit, renaming on ({args.workers} processes, end to end)", kv),
            (f"kvdata lexical audit, renaming off ({args.workers} processes)", results["kvdata_no_rename"]),
            ("kvdata lexical audit, renaming on (1 process)", results["kvdata_1proc"]),
            ("datasketch loop, update per shingle (1 process)", ds),
            ("datasketch loop, update_batch (1 process)", results["datasketch_update_batch"]),
            ("rensa RMinHash only (1 process)", results["rensa"])]
    for name, r in rows:
        print(f"{name:62s} {r['docs']:7d} {r['seconds']:8.2f} {r['docs_per_s']:8.0f} {r['loadavg']:5.2f} "
              f"{r['cpu_us_per_doc']:10.1f} {r['idle_docs_per_s']:11.0f}")
    print(f"speed-up vs datasketch loop: {results['speedup_vs_datasketch']:.1f}x "
          f"({results['speedup_vs_datasketch_per_process']:.1f}x per process; "
          f"{results['speedup_vs_datasketch_update_batch']:.1f}x vs update_batch; "
          f"{results['speedup_vs_datasketch_cpu']:.1f}x in CPU time per doc)")
    print("CPU us per doc (1 process): " + ", ".join(f"{k} {v:.0f}" for k, v in results["stage_us_per_doc"].items()))
    print("MinHash estimate - exact Jaccard (bias / mean abs): " + ", ".join(
        f"J {band}: {e['bias']:+.3f} / {e['mean_abs']:.3f}" for band, e in results["estimate_error"].items()))
    return results


# ---------------------------------------------------------------- embedding: the two baselines
def old_path_vectors(st, docs: list[str], batch_size: int, window: int = 254, overlap: int = 32,
                     max_windows: int = 64, counts: dict | None = None) -> np.ndarray:
    """Document vectors by the path kvdata had before issue 8, kept here as the baseline to beat.

    Each document is tokenised with character offsets; windows of ``window`` tokens (stride ``window - overlap``,
    the last one moved back to end at the last token, at most ``max_windows`` sampled evenly) are sliced from the
    text and handed to ``SentenceTransformer.encode`` as strings, which tokenises them a second time; the
    document vector is the token-weighted mean of the window vectors.
    """
    enc = st.tokenizer(docs, add_special_tokens=False, return_offsets_mapping=True, truncation=False, verbose=False)
    flat, weights, owner = [], [], []
    for i, (text, spans) in enumerate(zip(docs, enc["offset_mapping"])):
        if len(spans) <= window:
            pieces = [(text, max(1, len(spans)))]
        else:
            step = window - overlap
            starts = list(range(0, len(spans) - window + step, step))
            starts[-1] = min(starts[-1], len(spans) - window)
            if len(starts) > max_windows:
                picks = np.linspace(0, len(starts) - 1, max_windows).round().astype(int)
                starts = [starts[j] for j in sorted(set(picks.tolist()))]
            pieces = []
            for s in starts:
                e = min(s + window, len(spans))
                pieces.append((text[spans[s][0]:spans[e - 1][1]], e - s))
        for piece, n in pieces:
            flat.append(piece)
            weights.append(n)
            owner.append(i)
    if counts is not None:
        counts["windows"] = counts.get("windows", 0) + len(flat)
    vecs = st.encode(flat, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
                     show_progress_bar=False)
    out = np.zeros((len(docs), vecs.shape[1]), np.float32)
    np.add.at(out, np.asarray(owner), vecs.astype(np.float32) * np.asarray(weights, np.float32)[:, None])
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def naive_fp16_loop(st16, docs: list[str], batch: int = 4096) -> dict:
    """The plain loop the issue measured: the fp16 model, each document tokenised once and cut at
    ``max_seq_length`` (one window a document), length-sorted batches of ``batch``, mean pooling by the model's
    own modules. Timed from the raw texts, tokenising included (also reported apart)."""
    import torch
    dev = st16.device
    cuda = dev.type == "cuda"
    if cuda:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    ids = st16.tokenizer(docs, truncation=True, max_length=st16.max_seq_length, return_attention_mask=False,
                         return_token_type_ids=False)["input_ids"]
    t_tok = time.perf_counter() - t0
    order = np.argsort([-len(x) for x in ids], kind="stable")
    dim = (getattr(st16, "get_embedding_dimension", None) or st16.get_sentence_embedding_dimension)()
    out = torch.empty((len(docs), dim), device=dev)
    with torch.inference_mode():
        for s in range(0, len(ids), batch):
            pick = order[s:s + batch]
            arr = np.zeros((len(pick), len(ids[pick[0]])), np.int64)
            for r, j in enumerate(pick):
                arr[r, :len(ids[j])] = ids[j]
            t = torch.from_numpy(arr).to(dev)
            mask = (t != 0).long()
            feats = {"input_ids": t, "attention_mask": mask, "token_type_ids": torch.zeros_like(t)}
            out[torch.from_numpy(pick).to(dev)] = st16.forward(feats)["sentence_embedding"].float()
    if cuda:
        torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    return {"docs": len(docs), "seconds": seconds, "docs_per_s": len(docs) / seconds, "tokenise_s": t_tok,
            "windows_per_doc": 1.0, "tokens_per_doc": float(np.mean([len(x) for x in ids]))}


def _timed(fn, n_docs: int, cuda: bool = False) -> dict:
    import torch
    if cuda:
        torch.cuda.synchronize()
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    if cuda:
        torch.cuda.synchronize()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"docs": n_docs, "seconds": seconds, "docs_per_s": n_docs / seconds, "cpu_seconds": cpu,
            "cpu_ms_per_doc": cpu / n_docs * 1e3, "loadavg": os.getloadavg()[0]}


def _cosines(a: np.ndarray, b: np.ndarray, ids: list[str]) -> dict:
    cos = np.sum(a * b, axis=1)
    worst = np.argsort(cos)[:5]
    return {"items": len(cos), "min": float(cos.min()), "median": float(np.median(cos)), "mean": float(cos.mean()),
            "below_0.99": int((cos < 0.99).sum()), "worst": [(ids[i], float(cos[i])) for i in worst]}


def cosine_items(data: Path, limit: int) -> tuple[list[str], list[str]]:
    """The benchmark items the cosine is taken over: KernelBench v0.1 code and TritonBench-G ``output``."""
    items = (load_benchmark("kernelbench", data / "kernelbench" / "kernelbench_v0.1.jsonl", version="v0.1")
             + load_benchmark("tritonbench-g", data / "tritonbench" / "TritonBench_G_v1.json"))
    if limit:
        items = items[::max(1, len(items) // limit)][:limit]
    return [it.id for it in items], [it.code for it in items]


# ---------------------------------------------------------------- embedding: the sections
def embed_gpu_section(args) -> dict:
    """kvdata's GPU path next to the naive fp16 loop and the old fp32 path, on one set of documents."""
    import torch
    from kvdata.audit.embedding_backends import load_encoder
    from kvdata.audit.semantic import Embedder, model_identity, resolve_model, synthetic_code_docs

    location = resolve_model(args.model)
    identity = model_identity(location)
    dev = args.gpu_device
    cuda = dev.startswith("cuda")
    docs = synthetic_code_docs(args.gpu_docs, args.doc_chars, seed=2)
    warm = synthetic_code_docs(min(1024, args.gpu_docs), args.doc_chars, seed=1)
    new = {p: Embedder(model=args.model, device=dev, backend="torch", precision=p, progress=False)
           for p in ("fp16", "bf16")}
    st16 = load_encoder(location, identity, dev, "torch", "fp16").st
    st32 = load_encoder(location, identity, dev, "torch", "fp32").st
    for emb in new.values():
        emb._embed_uncached(warm)
    naive_fp16_loop(st16, warm)
    old_path_vectors(st32, warm[:256], 256)
    old_docs = docs[:args.gpu_old_docs]
    rounds: dict[str, list[dict]] = {"kvdata_fp16": [], "kvdata_bf16": [], "naive_fp16": [], "old_fp32": []}
    for _ in range(args.rounds):
        for p, emb in new.items():
            w0, t0 = emb.n_windows, emb.n_tokens
            r = _timed(lambda: emb._embed_uncached(docs), len(docs), cuda=cuda)
            r.update(windows_per_doc=(emb.n_windows - w0) / len(docs), tokens_per_doc=(emb.n_tokens - t0) / len(docs))
            rounds[f"kvdata_{p}"].append(r)
        rounds["naive_fp16"].append(naive_fp16_loop(st16, docs))
        counts: dict = {}
        r = _timed(lambda: old_path_vectors(st32, old_docs, 256, counts=counts), len(old_docs), cuda=cuda)
        rounds["old_fp32"].append(dict(r, windows_per_doc=counts["windows"] / len(old_docs)))
    res = {name: dict(max(rs, key=lambda r: r["docs_per_s"]), rounds=rs) for name, rs in rounds.items()}
    res["device_name"] = torch.cuda.get_device_name(0) if cuda else dev
    res["doc_chars"] = args.doc_chars
    res["speedup_vs_naive_fp16"] = res["kvdata_fp16"]["docs_per_s"] / res["naive_fp16"]["docs_per_s"]
    res["speedup_vs_old"] = res["kvdata_fp16"]["docs_per_s"] / res["old_fp32"]["docs_per_s"]
    ids, texts = cosine_items(args.data, args.cosine_items) if args.data.is_dir() else ([], [])
    if not texts:
        ids, texts = [f"synthetic/{i}" for i in range(1024)], docs[:1024]
    old = old_path_vectors(st32, texts, 256)
    fp32 = Embedder(model=args.model, device=dev, backend="torch", precision="fp32", progress=False)
    ref = fp32._embed_uncached(texts)
    res["cosine"] = {
        "fp16_vs_old_fp32": _cosines(new["fp16"]._embed_uncached(texts), old, ids),
        "bf16_vs_old_fp32": _cosines(new["bf16"]._embed_uncached(texts), old, ids),
        "fp16_vs_fp32_same_windows": _cosines(new["fp16"]._embed_uncached(texts), ref, ids),
        "fp32_vs_old_fp32 (windows only)": _cosines(ref, old, ids)}

    print(f"\n== embedding on {res['device_name']}: {len(docs)} synthetic docs of {args.doc_chars} chars, "
          f"best of {args.rounds} rounds")
    print(f"{'path':72s} {'docs':>6s} {'seconds':>8s} {'docs/s':>8s} {'win/doc':>7s}")
    labels = {"kvdata_fp16": "kvdata: tokenised once, token windows, fp16, overlapped (whole document)",
              "kvdata_bf16": "kvdata, bf16",
              "naive_fp16": "naive fp16 loop, batches of 4,096 (first 256 tokens only)",
              "old_fp32": "old kvdata path: text windows re-tokenised, fp32, batch 256"}
    for name, label in labels.items():
        r = res[name]
        print(f"{label:72s} {r['docs']:6d} {r['seconds']:8.2f} {r['docs_per_s']:8.0f} {r['windows_per_doc']:7.2f}"
              + (f"   (tokenising {r['tokenise_s']:.2f} s)" if "tokenise_s" in r else ""))
    print(f"kvdata fp16: {res['speedup_vs_naive_fp16']:.2f}x the naive fp16 loop, {res['speedup_vs_old']:.1f}x the "
          f"old path")
    for name, c in res["cosine"].items():
        print(f"cosine {name:34s} over {c['items']} items: min {c['min']:.4f}  median {c['median']:.4f}")
    return res


def embed_cpu_section(args) -> dict:
    """ONNX Runtime int8 next to torch fp32 (same windows) and the old fp32 path, rounds interleaved."""
    from kvdata.audit.embedding_backends import load_encoder
    from kvdata.audit.semantic import Embedder, model_identity, resolve_model, synthetic_code_docs

    location = resolve_model(args.model)
    st32 = load_encoder(location, model_identity(location), "cpu", "torch", "fp32").st
    int8 = Embedder(model=args.model, device="cpu", backend="onnx", progress=False)
    fp32 = Embedder(model=args.model, device="cpu", backend="torch", precision="fp32", progress=False)
    docs = synthetic_code_docs(args.cpu_docs, args.doc_chars, seed=2)
    warm = synthetic_code_docs(2, args.doc_chars, seed=1)
    int8._embed_uncached(warm)
    fp32._embed_uncached(warm)
    old_path_vectors(st32, warm, 32)
    runs = {"onnx_int8": lambda: int8._embed_uncached(docs), "torch_fp32": lambda: fp32._embed_uncached(docs),
            "old_fp32": lambda: old_path_vectors(st32, docs, 32)}
    rounds: dict[str, list[dict]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            rounds[name].append(_timed(run, len(docs)))
    res = {name: dict(max(rs, key=lambda r: r["docs_per_s"]), rounds=rs) for name, rs in rounds.items()}
    res.update(backend=int8.encoder_key, note=int8.note, cpus=os.cpu_count(), doc_chars=args.doc_chars)
    res["speedup_vs_old"] = res["onnx_int8"]["docs_per_s"] / res["old_fp32"]["docs_per_s"]
    res["speedup_vs_torch_fp32"] = res["onnx_int8"]["docs_per_s"] / res["torch_fp32"]["docs_per_s"]
    res["cpu_time_speedup_vs_old"] = res["old_fp32"]["cpu_ms_per_doc"] / res["onnx_int8"]["cpu_ms_per_doc"]
    print(f"\n== embedding on this CPU ({os.cpu_count()} CPUs): {len(docs)} synthetic docs of {args.doc_chars} chars, "
          f"best of {args.rounds} interleaved rounds; int8 backend {int8.encoder_key}"
          + (f" (NOTE: {int8.note})" if int8.note else ""))
    print(f"{'path':58s} {'docs':>5s} {'seconds':>8s} {'docs/s':>7s} {'CPU ms/doc':>10s} {'load':>5s}")
    labels = {"onnx_int8": "kvdata: ONNX Runtime int8 (CPU default)", "torch_fp32": "kvdata: torch fp32, same windows",
              "old_fp32": "old kvdata path: text windows, fp32, batch 32"}
    for name, label in labels.items():
        r = res[name]
        print(f"{label:58s} {r['docs']:5d} {r['seconds']:8.2f} {r['docs_per_s']:7.2f} {r['cpu_ms_per_doc']:10.0f} "
              f"{r['loadavg']:5.2f}")
    print(f"int8: {res['speedup_vs_old']:.2f}x the old path ({res['cpu_time_speedup_vs_old']:.2f}x in CPU time), "
          f"{res['speedup_vs_torch_fp32']:.2f}x torch fp32 with the same windows")
    if args.data.is_dir() and args.cosine_items >= 0:
        ids, texts = cosine_items(args.data, args.cosine_items)
        t0 = time.perf_counter()
        a = int8._embed_uncached(texts)
        t_int8 = time.perf_counter() - t0
        t0 = time.perf_counter()
        ref = fp32._embed_uncached(texts)
        t_fp32 = time.perf_counter() - t0
        res["cosine"] = {"int8_vs_fp32_same_windows": _cosines(a, ref, ids)}
        if args.cosine_old:
            res["cosine"]["int8_vs_old_fp32"] = _cosines(a, old_path_vectors(st32, texts, 32), ids)
        res["cosine_items_seconds"] = {"onnx_int8": t_int8, "torch_fp32": t_fp32}
        for name, c in res["cosine"].items():
            print(f"cosine {name:26s} over {c['items']} benchmark items: min {c['min']:.4f}  median {c['median']:.4f}"
                  f"  below 0.99: {c['below_0.99']}")
        print(f"the {len(texts)} benchmark items took {t_int8:.0f} s in int8, {t_fp32:.0f} s in fp32")
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sections", default=None,
                    help="comma-separated: lexical, embed-gpu, embed-cpu (default: lexical,embed-cpu, and embed-gpu "
                         "when CUDA is seen)")
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds; each row reports its fastest")
    ap.add_argument("--json", type=Path, default=Path("bench_audit.json"))
    lex = ap.add_argument_group("lexical")
    lex.add_argument("--docs", type=int, default=100_000)
    lex.add_argument("--chars", type=int, default=2000)
    lex.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    lex.add_argument("--baseline-docs", type=int, default=2000)
    emb = ap.add_argument_group("embedding")
    emb.add_argument("--model", default=None, help="sentence-transformers directory (default: the bundled MiniLM)")
    emb.add_argument("--doc-chars", type=int, default=2000)
    emb.add_argument("--gpu-docs", type=int, default=8192)
    emb.add_argument("--gpu-device", default="cuda", help=argparse.SUPPRESS)  # "cpu" smoke-tests the section
    emb.add_argument("--gpu-old-docs", type=int, default=2048, help="documents for the (slow) old GPU path")
    emb.add_argument("--cpu-docs", type=int, default=32)
    emb.add_argument("--cosine-items", type=int, default=0,
                     help="benchmark items for the cosine check (0: all 454; -1: skip on the CPU)")
    emb.add_argument("--cosine-old", action="store_true", help="CPU: also the cosine of int8 against the old path")
    emb.add_argument("--embed-docs", type=int, default=None, help=argparse.SUPPRESS)  # old spelling of --cpu-docs
    args = ap.parse_args()
    if args.embed_docs is not None:
        args.cpu_docs = args.embed_docs
    if args.sections is None:
        import torch
        sections = ["lexical", "embed-cpu"] + (["embed-gpu"] if torch.cuda.is_available() else [])
    else:
        sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = set(sections) - {"lexical", "embed-gpu", "embed-cpu"}
    if unknown:
        ap.error(f"unknown sections: {sorted(unknown)}")

    results = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "platform": platform.platform(),
                           "loadavg_before": os.getloadavg()}, "argv": sys.argv[1:]}
    for name, run in (("lexical", lexical_section), ("embed-gpu", embed_gpu_section),
                      ("embed-cpu", embed_cpu_section)):
        if name not in sections:
            continue
        try:
            results[name] = run(args)
        except Exception as exc:  # report, do not lose the other sections' numbers
            import traceback
            traceback.print_exc()
            results[name] = {"error": f"{type(exc).__name__}: {exc}"}
            print(f"\n== {name}: FAILED: {type(exc).__name__}: {exc}")
    results["machine"]["loadavg_after"] = os.getloadavg()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2, default=str))
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
