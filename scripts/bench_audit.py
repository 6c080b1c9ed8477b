"""Throughput of the lexical overlap audit vs a plain datasketch loop (and rensa), measured side by side in one run.

    python scripts/bench_audit.py            # 100,000 docs; prints a table, writes bench_audit.json

Benchmark side: every benchmark in the shared data folder (KernelBench v0 + v0.1, TritonBench-G, TritonBench-T,
ROCmBench; ~920 items). Training side: synthetic ~2,000-character code documents generated from benchmark-like
templates (PyTorch modules, Triton and HIP kernels) with random identifiers, sizes and op choices (seeded).

kvdata is measured end to end through ``kvdata.audit.pipeline.lexical_pairs``, as ``run_audit`` calls it: benchmark
index built, comments stripped, identifiers renamed (default) at the token level, tokens hashed, 5-gram MinHash +
LSH candidates + exact Jaccard of the candidates, 13-gram containment, pairs collected by id, over ``--workers``
forked processes. The datasketch baselines (normalise without renaming, MinHash over shingle strings with one
``update`` per shingle or one ``update_batch``, MinHashLSH query, exact Jaccard of candidates; no containment, so
they do less work) and rensa run in one process on ``--baseline-docs`` documents. The machine may be shared: the
JSON records ``os.getloadavg()`` before and after, and the rows are interleaved so that load hits them alike.
Embedding throughput comes from ``kvdata.audit.semantic.embedding_throughput`` when available.
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

from kvdata.audit.benchmarks import load_benchmark
from kvdata.audit.lexical import LexicalScanner, MinHasher, estimate_jaccard, jaccard
from kvdata.audit.normalize import normalize_code, strip_comments, tokens
from kvdata.audit.pipeline import lexical_pairs

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--chars", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--baseline-docs", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds; each row reports its fastest")
    ap.add_argument("--embed-docs", type=int, default=256, help="0 skips the embedding measurement")
    ap.add_argument("--device", default=None)
    ap.add_argument("--json", type=Path, default=Path("bench_audit.json"))
    args = ap.parse_args()

    bench_code = load_all_benchmarks(args.data)
    bench_norm = [normalize_code(c) for c in bench_code]
    docs = synthetic_docs(args.docs, args.chars, seed=0)
    sub = docs[:args.baseline_docs]
    results = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "platform": platform.platform(),
                           "loadavg_before": os.getloadavg()},
               "bench_items": len(bench_code), "doc_chars": args.chars}
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
    results["machine"]["loadavg_after"] = os.getloadavg()
    results["stage_us_per_doc"] = stage_costs(bench_code, docs[:20_000])
    results["estimate_error"] = estimate_error(bench_norm)
    if args.embed_docs:
        try:
            from kvdata.audit.semantic import embedding_throughput

            results["embedding"] = embedding_throughput(args.embed_docs, args.device)
        except Exception as exc:  # report, do not fail the lexical numbers
            results["embedding"] = {"error": f"{type(exc).__name__}: {exc}"}
    kv, ds = results["kvdata"], results["datasketch"]
    results["speedup_vs_datasketch"] = kv["docs_per_s"] / ds["docs_per_s"]
    results["speedup_vs_datasketch_per_process"] = results["kvdata_1proc"]["docs_per_s"] / ds["docs_per_s"]
    results["speedup_vs_datasketch_update_batch"] = kv["docs_per_s"] / results["datasketch_update_batch"]["docs_per_s"]
    results["speedup_vs_datasketch_cpu"] = ds["cpu_us_per_doc"] / kv["cpu_us_per_doc"]

    print(f"{len(bench_code)} benchmark items, {kv['docs']} synthetic docs of ~{args.chars} chars; load average "
          f"{results['machine']['loadavg_before'][0]:.2f} before, {results['machine']['loadavg_after'][0]:.2f} after "
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
    emb = results.get("embedding")
    if emb:
        print("embedding:", emb.get("error") or f"{emb['docs_per_s']:.1f} docs/s on {emb['device_name']}")
    args.json.write_text(json.dumps(results, indent=2))
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
