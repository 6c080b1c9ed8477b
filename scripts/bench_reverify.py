#!/usr/bin/env python
"""Harness overhead of `kvdata reverify` per sample, next to the bare kernel run, and samples/minute.

For each sample: `bare` runs reference and candidate once in this process with no
sandbox and no checks (the least any verifier must do); `harness` is the full warm-worker
verification (fork from the zygote, reference, A/B rounds on every seed, bait, checks,
result row). The cold start (sandbox + zygote import of torch/Triton) is reported once.
A second pass over the same samples shows compile-cache hits on a rerun (GPU).

    python scripts/bench_reverify.py --device cpu  [--input rows.jsonl] [--json out.json]
    python scripts/bench_reverify.py --device cuda --seeds 3
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REF = '''
import torch
import torch.nn as nn
class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))
    def forward(self, x):
        return torch.relu(x) * self.w + 1.0
def get_inputs():
    return [torch.randn(ROWS, COLS)]
def get_init_inputs():
    return [COLS]
'''
KERNEL = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl
@triton.jit
def relu_scale_add_VARIANT(x_ptr, w_ptr, o_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    w = tl.load(w_ptr + offs % cols, mask=m)
    tl.store(o_ptr + offs, tl.maximum(x, 0.0) * w + 1.0, mask=m)
class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        relu_scale_add_VARIANT[(triton.cdiv(x.numel(), 1024),)](x, self.w, out, x.numel(), x.shape[-1], BLOCK=1024)
        return out
'''


def builtin_samples(n: int, device: str):
    from kvdata.reverify.samples import Sample

    rows, cols = (4096, 4096) if device == "cuda" else (16, 256)
    ref = REF.replace("ROWS", str(rows)).replace("COLS", str(cols))
    return [Sample(id=f"bench-{i}", language="triton", pytorch_code=ref,
                   kernel_code=KERNEL.replace("VARIANT", str(i))) for i in range(n)]


def bare_seconds(sample, device: str, workdir: Path) -> float:
    """Reference + candidate once each, in-process, unconfined: the floor any verifier pays."""
    import importlib.util

    import torch

    if device == "cpu":
        import os
        os.environ["TRITON_INTERPRET"] = "1"

    def load(code, name):
        p = workdir / f"{name}.py"
        p.write_text(code)
        spec = importlib.util.spec_from_file_location(name, p)
        m = importlib.util.module_from_spec(spec)
        sys.modules[name] = m
        spec.loader.exec_module(m)
        return m

    t0 = time.perf_counter()
    ref = load(sample.pytorch_code, f"bref_{sample.id.replace('-', '_')}")
    cand = load(sample.kernel_code, f"bcand_{sample.id.replace('-', '_')}")
    model = ref.Model(*ref.get_init_inputs()).to(device)
    new = cand.ModelNew(*ref.get_init_inputs()).to(device)
    new.load_state_dict(model.state_dict())
    x = [t.to(device) for t in ref.get_inputs()]
    with torch.no_grad():
        model(*x)
        new(*x)
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--input", help="rows (.jsonl/.parquet) instead of the built-in samples")
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--json", default="bench_reverify.json")
    args = ap.parse_args()

    from kvdata.reverify.config import ReverifyConfig
    from kvdata.reverify.runner import Verifier
    from kvdata.reverify.samples import read_samples
    from kvdata.sandbox import isolation_level

    samples = read_samples(args.input)[: args.samples] if args.input else builtin_samples(args.samples, args.device)
    backend = "triton-gpu" if args.device == "cuda" else "triton-interpreter"
    tmp = Path(tempfile.mkdtemp(prefix="kvbench-"))
    config = ReverifyConfig(backend=backend, seeds=args.seeds, timeout_s=600)
    verifier = Verifier(config, cache_root=tmp / "cache")

    t0 = time.perf_counter()
    first = verifier.verify(samples[0])                     # includes the cold start
    cold_s = time.perf_counter() - t0
    worker = verifier.workers.get(backend)
    import_s = worker.import_s if worker else None

    passes = []
    for n_pass in range(2):                                 # pass 2: rerun, compile cache warm
        rows, t_pass = [], time.perf_counter()
        for s in samples:
            rows.append(verifier.verify(s))
        passes.append((rows, time.perf_counter() - t_pass))
    verifier.close()

    bare = [bare_seconds(s, args.device, tmp) for s in samples]
    rows, wall = passes[0]
    harness = [r["wall_s"] for r in rows]
    per = []
    for s, r, b in zip(samples, rows, bare):
        per.append({"id": s.id, "status": r["status"], "harness_s": r["wall_s"], "bare_s": b,
                    "overhead_s": r["wall_s"] - b, "parent_side_s": r.get("overhead_s"),
                    "ref_ms": r.get("ref_ms"), "kernel_ms": r.get("kernel_ms"), "speedup": r.get("speedup")})
    rerun_hits = [r.get("cache_hit") for r in passes[1][0]]
    result = {
        "device": args.device, "backend": backend, "isolation": isolation_level(), "seeds": args.seeds,
        "samples": len(samples), "hardware": first.get("hardware"), "torch": first.get("torch_version"),
        "triton": first.get("triton_version"),
        "cold_start_s": cold_s, "zygote_import_s": import_s,
        "median_harness_s": statistics.median(harness), "median_bare_s": statistics.median(bare),
        "median_overhead_s": statistics.median(p["overhead_s"] for p in per),
        "samples_per_minute_warm": 60 * len(samples) / wall,
        "samples_per_minute_rerun": 60 * len(samples) / passes[1][1],
        "rerun_cache_hits": rerun_hits, "statuses": sorted({r["status"] for r in rows}), "per_sample": per,
    }
    print(f"{'sample':12s} {'status':10s} {'bare s':>8s} {'harness s':>10s} {'overhead s':>11s} {'speedup':>8s}")
    for p in per:
        sp = f"{p['speedup']:.2f}" if p["speedup"] else "-"
        print(f"{p['id']:12s} {p['status']:10s} {p['bare_s']:8.3f} {p['harness_s']:10.3f} {p['overhead_s']:11.3f} {sp:>8s}")
    print(f"\n{backend} on {result['hardware']} ({result['isolation']}), {args.seeds} seeds")
    print(f"cold start (sandbox + zygote import): {cold_s:.2f} s (import {import_s or 0:.2f} s)")
    print(f"median per sample: bare {result['median_bare_s']:.3f} s | harness {result['median_harness_s']:.3f} s | "
          f"overhead {result['median_overhead_s']:.3f} s")
    print(f"samples/minute warm: {result['samples_per_minute_warm']:.1f} | rerun: {result['samples_per_minute_rerun']:.1f}"
          f" | rerun compile-cache hits: {rerun_hits}")
    Path(args.json).write_text(json.dumps(result, indent=1))
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
