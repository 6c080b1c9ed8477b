"""Throughput of the lexical overlap audit vs a plain datasketch loop (and rensa), measured in one run.

    python scripts/bench_audit.py --data ../shared/data --docs 100000 --json bench_audit.json

Benchmark side: every benchmark in the shared data folder (KernelBench v0 + v0.1, TritonBench-G, TritonBench-T,
ROCmBench; ~920 items). Training side: synthetic ~2,000-character code documents generated from benchmark-like
templates (PyTorch modules, Triton and HIP kernels) with random identifiers, sizes and op choices (seeded).

Measured end to end per document: normalise + tokenise/hash + MinHash + LSH candidates + exact Jaccard of the
candidates + 13-gram containment, over ``--workers`` processes. The datasketch baseline (normalise, MinHash with
one ``update`` per shingle, MinHashLSH query, exact Jaccard of candidates) and rensa (RMinHash.update with the
shingle strings) run on a subset (``--baseline-docs``) and are reported per document, extrapolated: said in the
table. Embedding throughput comes from ``kvdata.audit.semantic.embedding_throughput`` when available.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import random
import sys
import time
from pathlib import Path

from kvdata.audit.benchmarks import load_benchmark
from kvdata.audit.lexical import LexicalScanner, jaccard
from kvdata.audit.normalize import normalize_code, tokens

OPS = ["torch.relu(x)", "torch.sigmoid(x)", "torch.tanh(x)", "F.gelu(x)", "torch.softmax(x, dim=1)",
       "x * {a}", "x + self.bias", "torch.clamp(x, min={a}, max={b})", "F.layer_norm(x, x.shape[1:])",
       "torch.matmul(x, x.transpose(-1, -2))", "x.mean(dim=1, keepdim=True)", "torch.logsumexp(x, dim=1)"]
LAYERS = ["nn.Linear({a}, {b})", "nn.Conv2d({a}, {b}, kernel_size=3)", "nn.BatchNorm2d({b})",
          "nn.Conv3d({a}, {b}, 3, stride=2)", "nn.GroupNorm({a}, {b})", "nn.Dropout(p=0.{a})"]


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


# ---------------------------------------------------------------- kvdata lexical audit (multi-process)
_SCANNER: LexicalScanner | None = None


def _init_worker(bench_norm: list[str]) -> None:
    global _SCANNER
    _SCANNER = LexicalScanner(bench_norm)


def _audit_chunk(docs: list[str]) -> int:
    hits = _SCANNER.scan([normalize_code(d) for d in docs])
    return len(hits.train_index)


def run_kvdata(bench_norm, docs, workers: int, chunk: int = 5000) -> dict:
    chunks = [docs[i:i + chunk] for i in range(0, len(docs), chunk)]
    ctx = mp.get_context("fork")
    with ctx.Pool(workers, initializer=_init_worker, initargs=(bench_norm,)) as pool:
        pool.map(_audit_chunk, [docs[:50]] * workers)           # warm-up: scanner built, pow tables cached
        t0 = time.perf_counter()
        n_pairs = sum(pool.map(_audit_chunk, chunks, chunksize=1))
        seconds = time.perf_counter() - t0
    return {"docs": len(docs), "seconds": seconds, "docs_per_s": len(docs) / seconds, "pairs": n_pairs}


def run_kvdata_single(bench_norm, docs) -> dict:
    scanner = LexicalScanner(bench_norm)
    scanner.scan([normalize_code(d) for d in docs[:50]])
    t0 = time.perf_counter()
    norm = [normalize_code(d) for d in docs]
    t1 = time.perf_counter()
    scanner.scan(norm)
    t2 = time.perf_counter()
    renamed = [normalize_code(d, rename_identifiers=True) for d in docs[:2000]]
    t3 = time.perf_counter()
    return {"docs": len(docs), "seconds": t2 - t0, "docs_per_s": len(docs) / (t2 - t0),
            "normalise_us_per_doc": (t1 - t0) / len(docs) * 1e6, "scan_us_per_doc": (t2 - t1) / len(docs) * 1e6,
            "rename_identifiers_us_per_doc": (t3 - t2) / len(renamed) * 1e6}


def _shingle_strings(text: str, n: int = 5) -> list[str]:
    toks = tokens(text)
    return [" ".join(toks[i:i + n]) for i in range(max(len(toks) - n + 1, 1))]


def run_datasketch(bench_norm, docs, threshold: float = 0.5) -> dict:
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    for i, text in enumerate(bench_norm):
        m = MinHash(num_perm=128)
        for s in _shingle_strings(text):
            m.update(s.encode())
        lsh.insert(str(i), m)
    t0 = time.perf_counter()
    n_pairs = 0
    for d in docs:
        text = normalize_code(d)
        m = MinHash(num_perm=128)
        for s in _shingle_strings(text):
            m.update(s.encode())
        for key in lsh.query(m):
            n_pairs += jaccard(bench_norm[int(key)], text) >= threshold
    seconds = time.perf_counter() - t0
    return {"docs": len(docs), "seconds": seconds, "docs_per_s": len(docs) / seconds, "pairs": n_pairs}


def run_rensa(docs) -> dict:
    from rensa import RMinHash

    t0 = time.perf_counter()
    for d in docs:
        m = RMinHash(num_perm=128, seed=1)
        m.update(_shingle_strings(normalize_code(d)))
        m.digest()
    seconds = time.perf_counter() - t0
    return {"docs": len(docs), "seconds": seconds, "docs_per_s": len(docs) / seconds,
            "note": "normalise + shingle strings + RMinHash only (no LSH, no Jaccard, no containment)"}


def load_all_benchmarks(data: Path) -> list[str]:
    items = (load_benchmark("kernelbench", data / "kernelbench" / "kernelbench_v0.jsonl", version="v0")
             + load_benchmark("kernelbench", data / "kernelbench" / "kernelbench_v0.1.jsonl", version="v0.1")
             + load_benchmark("tritonbench-g", data / "tritonbench" / "TritonBench_G_v1.json")
             + load_benchmark("tritonbench-t", data / "tritonbench" / "TritonBench_T_v1.jsonl")
             + load_benchmark("rocmbench", data / "geak_eval" / "ROCm_eval_complex_instruct_v1.json"))
    return [normalize_code(it.code) for it in items]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--chars", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--baseline-docs", type=int, default=2000)
    ap.add_argument("--embed-docs", type=int, default=256, help="0 skips the embedding measurement")
    ap.add_argument("--device", default=None)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    bench = load_all_benchmarks(args.data)
    docs = synthetic_docs(args.docs, args.chars, seed=0)
    results = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "platform": platform.platform()},
               "bench_items": len(bench), "doc_chars": args.chars}
    results["kvdata_lexical"] = run_kvdata(bench, docs, args.workers)
    results["kvdata_lexical"]["workers"] = args.workers
    results["kvdata_lexical_1proc_subset"] = run_kvdata_single(bench, docs[:20_000])
    sub = docs[:args.baseline_docs]
    results["datasketch"] = run_datasketch(bench, sub)
    results["rensa"] = run_rensa(sub)
    if args.embed_docs:
        try:
            from kvdata.audit.semantic import embedding_throughput

            results["embedding"] = embedding_throughput(args.embed_docs, args.device)
        except Exception as exc:  # report, do not fail the lexical numbers
            results["embedding"] = {"error": f"{type(exc).__name__}: {exc}"}
    kv, ds = results["kvdata_lexical"], results["datasketch"]
    results["speedup_vs_datasketch_per_process"] = (
        results["kvdata_lexical_1proc_subset"]["docs_per_s"] / ds["docs_per_s"])
    results["speedup_vs_datasketch_wall"] = kv["docs_per_s"] / ds["docs_per_s"]

    print(f"{len(bench)} benchmark items, {kv['docs']} synthetic docs of ~{args.chars} chars")
    print(f"{'implementation':52s} {'docs':>8s} {'seconds':>8s} {'docs/s':>10s}")
    rows = [(f"kvdata lexical audit ({args.workers} processes, end to end)", kv),
            ("kvdata lexical audit (1 process, 20k-doc subset)", results["kvdata_lexical_1proc_subset"]),
            ("datasketch loop (1 process, subset, per-doc rate)", ds),
            ("rensa RMinHash only (1 process, subset)", results["rensa"])]
    for name, r in rows:
        print(f"{name:52s} {r['docs']:8d} {r['seconds']:8.2f} {r['docs_per_s']:10.0f}")
    print(f"speed-up vs datasketch: {results['speedup_vs_datasketch_wall']:.1f}x wall "
          f"({results['speedup_vs_datasketch_per_process']:.1f}x per process)")
    single = results["kvdata_lexical_1proc_subset"]
    print(f"per doc (1 process): normalise {single['normalise_us_per_doc']:.0f} us, scan {single['scan_us_per_doc']:.0f} us; "
          f"identifier renaming would add {single['rename_identifiers_us_per_doc']:.0f} us")
    emb = results.get("embedding")
    if emb:
        print("embedding:", emb.get("error") or f"{emb['docs_per_s']:.1f} docs/s on {emb['device_name']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
