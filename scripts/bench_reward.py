#!/usr/bin/env python
"""Rewards per minute: `kvdata.reward` on warm workers, side by side with `kvdata reverify` on the same completions,
in one run.

The completions are the bundled sample's Triton tasks (`kvdata build --sample`, `kvdata export --task torch2triton
--format rl`), each answered by the sample's own kernel in a fenced block; every measured batch gets a fresh comment
in every kernel, so each completion is new code (no verdict cache hit, a new compile cache on a GPU), as a policy's
are. Both sides use the same verifier settings (`ServeConfig.reverify_config()`: every check on) and the same slots.

- `reverify`: `kvdata.reverify.reverify()` on the batch, what `kvdata reverify --input ...` runs: it starts its
  workers (sandbox, zygote importing torch and Triton), verifies, and ends them.
- `reward warm, batch`: one `RewardService.score()` call per batch (TRL's form), after a warm-up batch that is not
  counted: the workers are already up.
- `reward warm, per response`: the batch as one call per completion from as many threads (veRL's reward loop).
- `reward cached`: the first warm batch again: every verdict from the cache.

Rates are completions per minute, and per device (per GPU with --device cuda; per CPU worker slot on the CPU).

    python scripts/bench_reward.py --device cpu --workers 2             # the 2-core CI box
    python scripts/bench_reward.py --device cuda --gpus 1 --tasks 31    # an H200 (triton-gpu, timed)
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path


def completions(rows: list[dict], tag: str) -> list[tuple[dict, str]]:
    """(row, completion) for each task: its own kernel, fenced, with a comment that makes it new code."""
    return [(r, f"Here is the kernel.\n\n```python\n{r['extra_info']['reference_kernel']}\n# {tag}\n```\n")
            for r in rows]


def rl_rows(data: str | None, tmp: Path, tasks: int) -> list[dict]:
    import pyarrow.parquet as pq
    from click.testing import CliRunner

    from kvdata.cli import main

    if data is None:
        for args in (["build", "--sample", "--out", str(tmp / "built"), "--quiet", "--workers", "0"],
                     ["export", "--data", str(tmp / "built"), "--task", "torch2triton", "--format", "rl", "--out",
                      str(tmp / "rl")]):
            res = CliRunner().invoke(main, args)
            if res.exit_code:
                sys.exit(f"{' '.join(args[:2])} failed: {res.output[-500:]}")
        data = str(tmp / "rl")
    rows = [r for f in sorted((Path(data) / "data").glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
    rows = [r for r in rows if r["data_source"] == "amdkernelvault/torch2triton"]
    expected = Path(__file__).resolve().parent.parent / "builders" / "sample" / "triton" / "expected.json"
    if expected.exists():            # the sample's deliberately wrong kernels are left out: they run shorter
        labels = json.loads(expected.read_text())
        rows = [r for r in rows if labels.get(r["extra_info"]["task_name"], "correct") == "correct"]
    return rows[:tasks]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--workers", type=int, default=2, help="CPU worker slots (--device cpu)")
    ap.add_argument("--gpus", type=int, default=1, help="GPUs, one slot each (--device cuda)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--tasks", type=int, default=31, help="completions per batch (at most the sample's tasks)")
    ap.add_argument("--rounds", type=int, default=2, help="measured batches per warm mode")
    ap.add_argument("--data", help="a `kvdata export --format rl` folder (default: the bundled sample's)")
    ap.add_argument("--json", default="out/bench_reward.json")
    args = ap.parse_args()

    from kvdata.reverify import reverify
    from kvdata.reward import RewardConfig, ServeConfig, make_item
    from kvdata.reward.service import RewardService

    tmp = Path(tempfile.mkdtemp(prefix="bench-reward-"))
    rows = rl_rows(args.data, tmp, args.tasks)
    gpu = args.device == "cuda"
    serve = ServeConfig(backend="triton-gpu" if gpu else "triton-interpreter", workers=args.workers,
                        gpus=args.gpus if gpu else None, seeds=args.seeds, timeout_s=300,
                        verifier_cache_root=str(tmp / "vcache"))
    devices = args.gpus if gpu else args.workers
    results: list[dict] = []

    def record(mode: str, n: int, wall: float, scores: list[float], note: str = "") -> None:
        per_min = 60.0 * n / wall if wall > 0 else float("inf")
        results.append({"mode": mode, "completions": n, "wall_s": round(wall, 3), "per_min": round(per_min, 1),
                        "per_min_per_device": round(per_min / devices, 1),
                        "mean_reward": round(sum(scores) / max(1, len(scores)), 4), "note": note})

    def items(tag: str):
        return [make_item(c, r["data_source"], r["reward_model"], r["extra_info"]) for r, c in completions(rows, tag)]

    # 1. kvdata reverify on the same code (its samples: what the reward's parser extracts)
    from kvdata.reverify.samples import Sample
    from kvdata.reward.parse import parse_completion

    samples = []
    for n, (r, c) in enumerate(completions(rows, "reverify")):
        samples.append(Sample(id=f"{n}-{r['extra_info']['id']}", language="triton",
                              pytorch_code=r["reward_model"]["ground_truth"],
                              kernel_code=parse_completion(c, "triton").code))
    t0 = time.monotonic()
    summary = reverify(samples, tmp / "reverify.jsonl", serve.reverify_config(), workers=args.workers,
                       gpus=args.gpus if gpu else None, cache_root=tmp / "vcache", progress=False)
    wall = time.monotonic() - t0
    correct = summary.counts.get("correct", 0)
    record("kvdata reverify (cold start, batch)", len(samples), wall,
           [1.4] * correct + [0.0] * (len(samples) - correct), f"{correct}/{len(samples)} correct")

    # 2-4. the reward service: warm-up, warm batches, warm per-response calls, cached
    service = RewardService(RewardConfig(), serve)
    try:
        t0 = time.monotonic()
        warm = service.score(items("warm-up"))
        record("reward warm-up (starts the workers)", len(warm), time.monotonic() - t0, [v.score for v in warm],
               "not a steady rate")
        first = None
        for k in range(args.rounds):
            batch = items(f"batch {k}")
            t0 = time.monotonic()
            got = service.score(batch)
            record("reward warm, one call per batch (TRL)", len(got), time.monotonic() - t0, [v.score for v in got],
                   f"round {k + 1}")
            first = first or batch
        for k in range(args.rounds):
            batch = items(f"single {k}")
            scores: list = [None] * len(batch)

            def one(i: int) -> None:
                scores[i] = service.score([batch[i]])[0].score

            threads = [threading.Thread(target=one, args=(i,)) for i in range(len(batch))]
            t0 = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            record("reward warm, one call per response (veRL)", len(batch), time.monotonic() - t0, scores,
                   f"round {k + 1}")
        runs_before = service.stats()["runs"]
        t0 = time.monotonic()
        got = service.score(first)
        record("reward cached (same completions again)", len(got), time.monotonic() - t0, [v.score for v in got],
               f"{service.stats()['runs'] - runs_before} harness runs")
    finally:
        service.close()

    import torch
    import triton

    env = {"device": args.device, "devices": devices, "seeds": args.seeds, "backend": serve.backend,
           "tasks": len(rows), "python": platform.python_version(), "torch": torch.__version__,
           "triton": triton.__version__, "machine": platform.machine(), "cpus": __import__("os").cpu_count(),
           "gpu": torch.cuda.get_device_name(0) if gpu and torch.cuda.is_available() else None}
    print(f"kvdata.reward vs kvdata reverify: {len(rows)} completions a batch, {args.seeds} seeds, "
          f"{serve.backend}, {devices} {'GPU(s)' if gpu else 'CPU worker slot(s)'}")
    head = f"{'mode':44s} {'n':>4s} {'wall s':>8s} {'per min':>9s} {'per min/dev':>11s} {'reward':>7s}  note"
    print(head)
    print("-" * len(head))
    for r in results:
        print(f"{r['mode']:44s} {r['completions']:4d} {r['wall_s']:8.2f} {r['per_min']:9.1f} "
              f"{r['per_min_per_device']:11.1f} {r['mean_reward']:7.3f}  {r['note']}")
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"env": env, "results": results}, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
