#!/usr/bin/env python
"""Harness overhead of `kvdata reverify` per sample, next to the bare kernel run, and samples/minute.

For each sample: `bare` runs reference and candidate once in this process with no
sandbox and no checks (the least any verifier must do); `harness` is the full warm-worker
verification (fork from the zygote, reference, A/B rounds on every seed, bait, checks,
result row). The cold start (sandbox + zygote import of torch/Triton) is reported once.
A second pass over the same samples shows compile-cache hits on a rerun (GPU).

    python scripts/bench_reverify.py --device cpu  [--input rows.jsonl] [--json out.json]
    python scripts/bench_reverify.py --device cuda --seeds 3
    python scripts/bench_reverify.py --device cpu --rows 4096 --cols 4096 --candidate marker   # GPU-sized data
    python scripts/bench_reverify.py --device cpu --recorder       # cost of the aten-op recorder per call
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
        relu_scale_add_VARIANT[(triton.cdiv(x.numel(), BLOCKSIZE),)](x, self.w, out, x.numel(), x.shape[-1], BLOCK=BLOCKSIZE)
        return out
'''

# For large shapes under the CPU interpreter: the arithmetic in torch, plus one tiny Triton
# launch (the launch check must see a kernel). It stands in for a GPU, where the kernel
# costs microseconds and what is left is the harness: data movement, checks, processes.
KERNEL_MARKER = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl
@triton.jit
def marker_VARIANT(o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, offs.to(tl.float32))
class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))
    def forward(self, x):
        scratch = torch.empty(16, device=x.device)
        marker_VARIANT[(1,)](scratch, BLOCK=16)
        return torch.relu(x) * self.w + 1.0
'''

DEFAULT_SHAPES = {"cuda": (4096, 4096), "cpu": (16, 256)}


def builtin_samples(n: int, rows: int, cols: int, block: int, candidate: str = "triton"):
    from kvdata.reverify.samples import Sample

    ref = REF.replace("ROWS", str(rows)).replace("COLS", str(cols))
    kernel = KERNEL.replace("BLOCKSIZE", str(block)) if candidate == "triton" else KERNEL_MARKER
    return [Sample(id=f"bench-{i}", language="triton", pytorch_code=ref,
                   kernel_code=kernel.replace("VARIANT", str(i))) for i in range(n)]


def _load(code: str, name: str, workdir: Path):
    """Import ``code`` as module ``name`` from a file (Triton's JIT needs the source on disk)."""
    import importlib.util

    p = workdir / f"{name}.py"
    p.write_text(code)
    spec = importlib.util.spec_from_file_location(name, p)
    m = importlib.util.module_from_spec(spec)
    sys.modules[name] = m
    spec.loader.exec_module(m)
    return m


def bare_seconds(sample, device: str, workdir: Path, tag: str = "") -> float:
    """Reference + candidate once each, in-process, unconfined: the floor any verifier pays."""
    import torch

    if device == "cpu":
        import os
        os.environ["TRITON_INTERPRET"] = "1"

    t0 = time.perf_counter()
    name = sample.id.replace("-", "_") + tag
    ref = _load(sample.pytorch_code, f"bref_{name}", workdir)
    cand = _load(sample.kernel_code, f"bcand_{name}", workdir)
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


# ----------------------------------------------------------------------------- op recorder cost
def recorder_bench(device: str, rows: int, cols: int, children: int = 5) -> dict:
    """What recording the aten ops of a candidate call costs in a process forked from a warm
    parent, as a sample's process is forked from the zygote: each child times one plain and
    one recorded call of the built-in kernel (after a first, untimed call). Run twice: from a
    parent that never used the recorder (each child then imports ``torch._dynamo`` itself),
    and from one that entered it once, as the zygote does."""
    import os

    import torch

    from kvdata.reverify.defences import torch_op_recorder

    if device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    workdir = Path(tempfile.mkdtemp(prefix="kvbench-rec-"))
    sample = builtin_samples(1, rows, cols, 1024)[0]
    ref = _load(sample.pytorch_code, "rec_ref", workdir)
    cand = _load(sample.kernel_code, "rec_cand", workdir)

    def one_child() -> dict:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            model = cand.ModelNew(*ref.get_init_inputs()).to(device)
            x = [t.to(device) for t in ref.get_inputs()]

            def call():
                with torch.no_grad():
                    model(*x)
                if device == "cuda":
                    torch.cuda.synchronize()

            call()
            t0 = time.perf_counter()
            call()
            t1 = time.perf_counter()
            with torch_op_recorder():
                call()
            t2 = time.perf_counter()
            os.write(w, json.dumps({"plain_ms": 1e3 * (t1 - t0), "recorded_ms": 1e3 * (t2 - t1)}).encode())
            os._exit(0)
        os.close(w)
        data = b""
        while chunk := os.read(r, 4096):
            data += chunk
        os.close(r)
        os.waitpid(pid, 0)
        return json.loads(data)

    out = {"device": device, "shape": [rows, cols], "children": children}
    for setting in ("parent_not_warmed", "parent_warmed"):
        if setting == "parent_warmed":
            with torch_op_recorder():               # what worker._preload does
                torch.empty(1)
        runs = [one_child() for _ in range(children)]
        out[setting] = {k: statistics.median(r[k] for r in runs) for k in ("plain_ms", "recorded_ms")}
    return out


def print_recorder(r: dict) -> None:
    print(f"aten-op recorder, one call of the built-in kernel in a forked child ({r['device']}, "
          f"{r['shape'][0]}x{r['shape'][1]}, median of {r['children']} children):")
    print(f"{'parent':20s} {'plain ms':>10s} {'recorded ms':>12s} {'extra ms':>10s}")
    for setting in ("parent_not_warmed", "parent_warmed"):
        m = r[setting]
        print(f"{setting:20s} {m['plain_ms']:10.2f} {m['recorded_ms']:12.2f} {m['recorded_ms'] - m['plain_ms']:10.2f}")


# ----------------------------------------------------------------------------- transport micro-benchmark
def _pipe_hop(write_all) -> list:
    """Run ``write_all(fd)`` against a pipe drained by a thread, as the zygote drains the child."""
    import os
    import threading

    r, w = os.pipe()
    chunks: list = []

    def drain():
        while True:
            b = os.read(r, 1 << 20)
            if not b:
                return
            chunks.append(b)

    th = threading.Thread(target=drain)
    th.start()
    try:
        write_all(w)
    finally:
        os.close(w)
    th.join()
    os.close(r)
    return chunks


def _legacy_compare(candidate, reference, atol, rtol):
    """The comparison before this change: whole tensors in float64, masked max, ``allclose``."""
    import math

    import torch

    worst = 0.0
    for c, r in zip(candidate, reference):
        cd, rd = c.double(), r.double()
        err = (cd - rd).abs()
        finite = torch.isfinite(err)
        max_err = float(err[finite].max()) if bool(finite.any()) else math.inf
        if not bool(finite.all()):
            max_err = math.inf
        worst = max(worst, max_err)
        if not torch.allclose(cd, rd, atol=atol, rtol=rtol, equal_nan=False):
            return False
    return True


def legacy_transport(outs, ins, cand_a, cand_b, after, workdir: Path, atol, rtol) -> dict:
    """The path before this change: torch.save pickles out, torch.load(weights_only) in, float64 checks."""
    import io
    import os

    import torch

    t = {}
    t0 = time.perf_counter()
    to_cpu = lambda ts: [x.detach().to("cpu").clone() for x in ts]  # noqa: E731

    def send(fd):
        buf = io.BytesIO()
        torch.save({"outputs": [to_cpu(o) for o in outs], "inputs": [to_cpu(i) for i in ins]}, buf)
        view = memoryview(buf.getvalue())
        while view:
            view = view[os.write(fd, view):]

    payload = b"".join(_pipe_hop(send))                             # zygote joins, forwards
    payload = bytearray(payload)                                    # the parent reads the frame
    t["child_reference_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    torch.save({"A": [to_cpu(x) for x in cand_a], "B": [to_cpu(x) for x in cand_b],
                "inputs_after": [to_cpu(x) for x in after]}, workdir / "cand_out.pt")
    t["child_candidate_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = torch.load(io.BytesIO(payload), weights_only=True, map_location="cpu")
    cand = torch.load(workdir / "cand_out.pt", weights_only=True, map_location="cpu")
    ok = all(_legacy_compare(a, r, atol, rtol) for a, r in zip(cand["A"], ref["outputs"]))
    ok &= all(_legacy_compare(b, r, atol, rtol) for b, r in zip(cand["B"], ref["outputs"]))
    same = all(torch.equal(torch.nan_to_num(a), torch.nan_to_num(b))
               for sa, sb in zip(ref["inputs"], cand["inputs_after"]) for a, b in zip(sa, sb))
    finite = all(bool(torch.isfinite(r).all()) for seed in ref["outputs"] for r in seed)
    degenerate = all(bool(torch.allclose(torch.zeros_like(r.double()), r.double(), atol=atol, rtol=rtol))
                     for seed in ref["outputs"] for r in seed)
    t["parent_s"] = time.perf_counter() - t0
    t["verdict"] = [ok, same, finite, degenerate]
    return t


def blob_transport(outs, ins, cand_a, cand_b, after, workdir: Path, atol, rtol) -> dict:
    """The path now: raw tensor blobs, input fingerprints, chunked checks (the runner's own functions)."""
    import os

    from kvdata.reverify import checks, tensor_blob
    from kvdata.reverify.runner import _compare_rounds, _read_candidate, _read_reference
    from kvdata.reverify.worker import _read_exactly

    t = {}
    t0 = time.perf_counter()
    chunks = _pipe_hop(lambda fd: tensor_blob.dump(
        {"outputs": outs, "inputs": [tensor_blob.fingerprint(i) for i in ins], "seeds": list(range(len(outs)))},
        tensor_blob.fd_sink(fd)))
    payload = _read_exactly(_Chunks(chunks), sum(map(len, chunks)))           # the parent reads the frame
    t["child_reference_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    fd = os.open(workdir / "cand_out.blob", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    writer = tensor_blob.BlobWriter(tensor_blob.fd_sink(fd))
    tree = {"A": [[writer.add(x) for x in seed] for seed in cand_a],
            "inputs_after": [writer.encode(list(seed)) for seed in after],
            "B": [[writer.add(x) for x in seed] for seed in cand_b]}
    writer.finish(tree)
    os.close(fd)
    t["child_candidate_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = _read_reference(payload)
    rounds_a, rounds_b, inputs_after = _read_candidate(workdir / "cand_out.blob", ref["inputs"])
    first = _compare_rounds(rounds_a, ref["outputs"], atol, rtol)
    second = _compare_rounds(rounds_b, ref["outputs"], atol, rtol)
    ok = checks.check_every_seed(first + second).ok
    same = not checks.check_input_fingerprints(ref["inputs"], inputs_after)
    flat = [r for seed in ref["outputs"] for r in seed]
    finite = not checks.check_reference_finite(flat)
    degenerate = all(checks.check_degenerate_reference(seed, atol, rtol) for seed in ref["outputs"])
    t["parent_s"] = time.perf_counter() - t0
    t["verdict"] = [ok, same, finite, degenerate]
    return t


class _Chunks:
    """The zygote's chunks as the parent's protocol stream (``readinto``), for ``_read_exactly``."""

    def __init__(self, chunks):
        self.chunks, self.pos = list(chunks), 0

    def readinto(self, view) -> int:
        if not self.chunks:
            return 0
        head = self.chunks[0]
        n = min(len(view), len(head) - self.pos)
        view[:n] = head[self.pos:self.pos + n]
        self.pos += n
        if self.pos == len(head):
            self.chunks.pop(0)
            self.pos = 0
        return n


def transport_bench(rows: int, cols: int, seeds: int, repeats: int = 5) -> dict:
    """Both paths on the same tensors (one output, one input per seed), alternating; median of repeats."""
    import torch

    torch.manual_seed(0)
    outs = [[torch.randn(rows, cols)] for _ in range(seeds)]
    ins = [[torch.randn(rows, cols)] for _ in range(seeds)]
    cand_a = [[o[0] + 1e-6] for o in outs]
    cand_b = [[o[0].clone()] for o in outs]
    after = [[i[0].clone()] for i in ins]
    workdir = Path(tempfile.mkdtemp(prefix="kvbench-transport-"))
    runs: dict[str, list] = {"legacy": [], "blob": []}
    for _ in range(repeats):
        runs["legacy"].append(legacy_transport(outs, ins, cand_a, cand_b, after, workdir, 1e-3, 1e-4))
        runs["blob"].append(blob_transport(outs, ins, cand_a, cand_b, after, workdir, 1e-3, 1e-4))
    out = {"shape": [rows, cols], "seeds": seeds, "repeats": repeats}
    for name, rs in runs.items():
        out[name] = {k: statistics.median(r[k] for r in rs) for k in ("child_reference_s", "child_candidate_s", "parent_s")}
        out[name]["total_s"] = sum(out[name].values())
        out[name]["verdict"] = rs[0]["verdict"]
    out["speedup"] = {k: out["legacy"][k] / max(out["blob"][k], 1e-9) for k in out["blob"] if k != "verdict"}
    return out


def print_transport(t: dict) -> None:
    print(f"transport + checks, {t['seeds']} seeds of {t['shape'][0]}x{t['shape'][1]} float32 "
          f"(median of {t['repeats']}):")
    print(f"{'step':22s} {'before s':>9s} {'after s':>9s} {'ratio':>7s}")
    for k in ("child_reference_s", "child_candidate_s", "parent_s", "total_s"):
        print(f"{k[:-2]:22s} {t['legacy'][k]:9.3f} {t['blob'][k]:9.3f} {t['speedup'][k]:6.1f}x")
    print(f"verdicts agree: {t['legacy']['verdict'] == t['blob']['verdict']} ({t['blob']['verdict']})")


def stage_medians(rows: list[dict]) -> dict:
    """Median seconds per worker stage (reference, compile, run, time) and on the parent's side."""
    keys = sorted({k for r in rows for k in (r.get("stage_s") or {})})
    out = {k: statistics.median((r.get("stage_s") or {}).get(k, 0.0) for r in rows) for k in keys}
    out["parent_side"] = statistics.median(r.get("overhead_s") or 0.0 for r in rows)
    out["parent_judge"] = statistics.median(r.get("judge_s") or 0.0 for r in rows)
    for part in ("context", "rehearsal"):                  # the spare's warm-up, before its job
        spent = [(r.get("spare_warmup_s") or {}).get(part) for r in rows]
        if any(s is not None for s in spent):
            out[f"spare_{part}"] = statistics.median(s or 0.0 for s in spent)
    return out


def _write_json(path: str, payload: dict) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(payload, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--input", help="rows (.jsonl/.parquet) instead of the built-in samples")
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--rows", type=int, help="built-in sample's input rows (default: 4096 on cuda, 16 on cpu)")
    ap.add_argument("--cols", type=int, help="built-in sample's input cols (default: 4096 on cuda, 256 on cpu)")
    ap.add_argument("--block", type=int, default=1024,
                    help="Triton BLOCK of the built-in kernel; a large one keeps big shapes fast under the interpreter")
    ap.add_argument("--candidate", choices=["triton", "marker"], default="triton",
                    help="built-in candidate: a Triton elementwise kernel, or torch arithmetic plus one tiny "
                         "Triton launch (large shapes on the CPU interpreter, where the kernel would dominate)")
    ap.add_argument("--transport", action="store_true",
                    help="only the tensor transport + checks micro-benchmark, before (torch.save pickles, "
                         "float64 checks) and after (raw blobs, chunked checks), on --rows x --cols float32")
    ap.add_argument("--no-knockout", action="store_true",
                    help="leave out the knockout rounds (run once with and once without: the knockout's cost)")
    ap.add_argument("--visible-only", action="store_true",
                    help="leave out the other sizes and value ranges (run once with and once without: their cost)")
    ap.add_argument("--recorder", action="store_true",
                    help="only the cost of recording a candidate call's aten ops (torch_compute), in forked "
                         "children of a parent that did or did not enter the recorder once")
    ap.add_argument("--spares-ahead", type=int, help="processes forked ahead per worker (default: the verifier's)")
    ap.add_argument("--no-rehearsal", action="store_true", help="spares create their GPU context only")
    ap.add_argument("--json", default="out/bench_reverify.json")
    args = ap.parse_args()
    if args.recorder:
        rows_n, cols_n = DEFAULT_SHAPES[args.device]
        r = recorder_bench(args.device, args.rows or rows_n, args.cols or cols_n)
        print_recorder(r)
        _write_json(args.json, r)
        print(f"wrote {args.json}")
        return
    if args.transport:
        t = transport_bench(args.rows or 4096, args.cols or 4096, args.seeds)
        print_transport(t)
        _write_json(args.json, t)
        print(f"wrote {args.json}")
        return

    from kvdata.reverify.config import ReverifyConfig
    from kvdata.reverify.runner import Verifier
    from kvdata.reverify.samples import read_samples
    from kvdata.sandbox import isolation_level

    rows_n, cols_n = DEFAULT_SHAPES[args.device]
    rows_n, cols_n = args.rows or rows_n, args.cols or cols_n
    if args.input:
        samples = read_samples(args.input)[: args.samples]
    else:
        samples = builtin_samples(args.samples, rows_n, cols_n, args.block, args.candidate)
    backend = "triton-gpu" if args.device == "cuda" else "triton-interpreter"
    tmp = Path(tempfile.mkdtemp(prefix="kvbench-"))
    config = ReverifyConfig(backend=backend, seeds=args.seeds, timeout_s=600, spares_ahead=args.spares_ahead,
                            rehearse=not args.no_rehearsal, knockout=not args.no_knockout,
                            other_configs=not args.visible_only)
    verifier = Verifier(config, cache_root=tmp / "cache")

    t0 = time.perf_counter()
    first = verifier.verify(samples[0]).to_dict()           # includes the cold start
    cold_s = time.perf_counter() - t0
    worker = verifier.workers.get(backend)
    import_s = worker.import_s if worker else None

    passes = []
    for n_pass in range(2):                                 # pass 2: rerun, compile cache warm
        rows, t_pass = [], time.perf_counter()
        for s in samples:
            rows.append(verifier.verify(s).to_dict())
        passes.append((rows, time.perf_counter() - t_pass))
    verifier.close()

    # bare, twice per sample: the first compiles (like pass 1), the second hits Triton's cache (like pass 2)
    bare_cold, bare_warm = [], []
    for s in samples:
        bare_cold.append(bare_seconds(s, args.device, tmp, "c"))
        bare_warm.append(bare_seconds(s, args.device, tmp, "w"))
    rows, wall = passes[0]
    rerun_rows, rerun_wall = passes[1]
    per = []
    for s, r, r2, b, b2 in zip(samples, rows, rerun_rows, bare_cold, bare_warm):
        per.append({"id": s.id, "status": r["status"], "harness_s": r["wall_s"], "bare_s": b,
                    "overhead_s": r["wall_s"] - b, "parent_side_s": r.get("overhead_s"),
                    "rerun_harness_s": r2["wall_s"], "rerun_bare_s": b2, "rerun_overhead_s": r2["wall_s"] - b2,
                    "rerun_parent_side_s": r2.get("overhead_s"), "stage_s": r2.get("stage_s"),
                    "ref_ms": r.get("ref_ms"), "kernel_ms": r.get("kernel_ms"), "speedup": r.get("speedup")})
    rerun_hits = [r.get("cache_hit") for r in rerun_rows]
    result = {
        "device": args.device, "backend": backend, "isolation": isolation_level(), "seeds": args.seeds,
        "samples": len(samples), "shape": None if args.input else [rows_n, cols_n],
        "spares_ahead": args.spares_ahead, "rehearsal": not args.no_rehearsal,
        "block": None if args.input else args.block, "candidate": None if args.input else args.candidate,
        "hardware": first.get("hardware"), "torch": first.get("torch_version"),
        "triton": first.get("triton_version"),
        "cold_start_s": cold_s, "zygote_import_s": import_s,
        "median_harness_s": statistics.median(r["wall_s"] for r in rows),
        "median_bare_s": statistics.median(bare_cold),
        "knockout": not args.no_knockout,
        "other_configs": not args.visible_only,
        "median_overhead_s": statistics.median(p["overhead_s"] for p in per),
        "median_rerun_harness_s": statistics.median(r["wall_s"] for r in rerun_rows),
        "median_rerun_bare_s": statistics.median(bare_warm),
        "median_rerun_overhead_s": statistics.median(p["rerun_overhead_s"] for p in per),
        "median_stage_s_rerun": stage_medians(rerun_rows),
        "samples_per_minute_warm": 60 * len(samples) / wall,
        "samples_per_minute_rerun": 60 * len(samples) / rerun_wall,
        "rerun_cache_hits": rerun_hits, "statuses": sorted({r["status"] for r in rows}), "per_sample": per,
    }
    print(f"{'sample':12s} {'status':10s} {'bare s':>8s} {'harness s':>10s} {'overhead s':>11s} "
          f"{'rerun ovh s':>12s} {'parent s':>9s} {'speedup':>8s}")
    for p in per:
        sp = f"{p['speedup']:.2f}" if p["speedup"] else "-"
        print(f"{p['id']:12s} {p['status']:10s} {p['bare_s']:8.3f} {p['harness_s']:10.3f} {p['overhead_s']:11.3f} "
              f"{p['rerun_overhead_s']:12.3f} {p['rerun_parent_side_s'] or 0:9.3f} {sp:>8s}")
    shape = f", inputs {rows_n}x{cols_n}" if not args.input else ""
    ahead = "default" if args.spares_ahead is None else args.spares_ahead
    print(f"\n{backend} on {result['hardware']} ({result['isolation']}), {args.seeds} seeds{shape}, "
          f"spares ahead: {ahead}, rehearsal: {'off' if args.no_rehearsal else 'on'}")
    print(f"cold start (sandbox + zygote import): {cold_s:.2f} s (import {import_s or 0:.2f} s)")
    print(f"median per sample, pass 1 (new kernels compile): bare {result['median_bare_s']:.3f} s | "
          f"harness {result['median_harness_s']:.3f} s | overhead {result['median_overhead_s']:.3f} s")
    print(f"median per sample, rerun (compile cache warm): bare {result['median_rerun_bare_s']:.3f} s | "
          f"harness {result['median_rerun_harness_s']:.3f} s | overhead {result['median_rerun_overhead_s']:.3f} s")
    print("rerun stages (median s): " + ", ".join(f"{k} {v:.3f}" for k, v in result["median_stage_s_rerun"].items()))
    print(f"samples/minute warm: {result['samples_per_minute_warm']:.1f} | rerun: {result['samples_per_minute_rerun']:.1f}"
          f" | rerun compile-cache hits: {rerun_hits}")
    _write_json(args.json, result)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
