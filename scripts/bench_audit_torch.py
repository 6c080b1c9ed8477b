"""What an audit of a large PyTorch-reference corpus against KernelBench costs, and where the time goes.

The training side is PyTorch references shaped like a mined corpus: KernelBench v0's problems (read from the
shared data folder by path, never stored), each row a variant with its own size constants, its own comments and
its local names renamed, so no two rows share a content hash and every cache starts cold. The benchmark side is
KernelBench v0.1 (all levels). Every measure runs.

Each size runs in its own fresh cache, side by side in one run. The per-step times of two sizes give each step's
cost per training row and its fixed cost (a straight line through the two points), and from those the time at
``--project`` rows (100,000 by default) is projected. The steps that do not grow with the corpus say so: the
behavioural step probes a bounded number of candidate pairs per benchmark item.

    python scripts/bench_audit_torch.py --rows 300,1200 --json out/bench/bench_audit_torch.json
    python scripts/bench_audit_torch.py --rows 2000,8000 --workers 14 --device cuda     # a bigger machine
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

from kvdata.audit.benchmarks import load_benchmark
from kvdata.audit.candidates import RANKED_FIELDS
from kvdata.audit.pipeline import run_audit
from kvdata.audit.steps import AuditOptions
from kvdata.audit.training import TrainingRows

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
_SIZE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\d+)\s*$", re.M)
_LOCAL = re.compile(r"\b(x|out|y|h|result|tmp)\b")
_WORDS = ("fused", "blocked", "tiled", "reference", "baseline", "naive", "simple", "custom", "layer", "op")


def variant(code: str, rng: random.Random, k: int) -> str:
    """One training row from a KernelBench problem: sizes scaled, local names renamed, a comment of its own."""
    def size(m: re.Match) -> str:
        value = int(m.group(2))
        if value <= 1:
            return m.group(0)
        return f"{m.group(1)} = {max(1, int(value * rng.choice((0.5, 1, 1, 2))))}"
    code = _SIZE.sub(size, code)
    suffix = rng.choice(("v", "t", "z", "a")) + str(k % 97)
    code = _LOCAL.sub(lambda m: f"{m.group(1)}_{suffix}", code)
    note = " ".join(rng.sample(_WORDS, 3))
    return f"# {note} ({k})\n{code}"


def torch_corpus(n: int, source: Path, seed: int = 0) -> tuple[list[str], list[str]]:
    problems = [it.code for it in load_benchmark("kernelbench", source) if it.code]
    rng = random.Random(seed)
    # problems drawn at random (KernelBench lists them by level: the first rows would all be level 1)
    codes = [variant(rng.choice(problems), rng, i) for i in range(n)]
    return [f"row{i:06d}" for i in range(n)], codes


def one_size(n: int, data: Path, device: str | None, workers: int | None, measures) -> dict:
    ids, codes = torch_corpus(n, data / "kernelbench" / "kernelbench_v0.jsonl")
    train = TrainingRows(ids, codes, [None] * n, f"KernelBench v0 variants ({n})")
    bench = load_benchmark("kernelbench", data / "kernelbench" / "kernelbench_v0.1.jsonl")
    with tempfile.TemporaryDirectory(prefix="kv-torch-cache-") as cache:
        t0 = time.perf_counter()
        res = run_audit(bench, train, cache_dir=cache, device=device, workers=workers, progress=True,
                        **({"measures": measures} if measures else {}))
        wall = time.perf_counter() - t0
    return {"rows": n, "bench_items": len(bench), "chars": sum(map(len, codes)), "seconds": wall,
            "steps": dict(res.seconds), "candidate_pairs": sum(1 for p in res.pairs if p.probe),
            "flagged_pairs": len(res.flagged),
            "flagged_bench": len({p.bench_id for p in res.flagged}), "notes": res.notes}


def probe_bound(items: int, rows: int) -> int:
    """The most candidate pairs the behavioural step can probe: per benchmark item, its top-k rows by each ranked
    score plus its top rows by op overlap (:mod:`kvdata.audit.candidates`), and never more than there are rows."""
    o = AuditOptions()
    return items * min(rows, len(RANKED_FIELDS) * o.probe_top_k + o.probe_top_ops)


def project(runs: list[dict], target: int) -> dict:
    """Per step: cost per row and fixed cost through the two smallest sizes, and the time at ``target`` rows.

    The behavioural step does not grow with the rows but with its candidate pairs, which are bounded per
    benchmark item: it is projected as its measured cost per candidate pair (at the larger size) times that
    bound at ``target`` rows, an upper estimate.
    """
    a, b = sorted(runs, key=lambda r: r["rows"])[:2]
    out = {}
    for step in sorted(set(a["steps"]) | set(b["steps"])):
        ta, tb = a["steps"].get(step, 0.0), b["steps"].get(step, 0.0)
        if step == "behavioural" and b.get("candidate_pairs"):
            per_pair = tb / b["candidate_pairs"]
            bound = probe_bound(b["bench_items"], target)
            out[step] = {"per_row_ms": 0.0, "fixed_s": 0.0, "per_pair_s": per_pair, "pairs_at_most": bound,
                         "projected_s": per_pair * bound}
            continue
        per_row = max(0.0, (tb - ta) / (b["rows"] - a["rows"]))
        fixed = max(0.0, ta - per_row * a["rows"])
        out[step] = {"per_row_ms": per_row * 1e3, "fixed_s": fixed, "projected_s": fixed + per_row * target}
    out["total"] = {"projected_s": sum(v["projected_s"] for v in out.values())}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="300,1200", help="two or more corpus sizes, comma-separated")
    ap.add_argument("--project", type=int, default=100_000, help="the corpus size to project to")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--device", default=None)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--measures", default=None, help="comma-separated subset (default: all)")
    ap.add_argument("--json", type=Path, default=Path("bench_audit_torch.json"))
    args = ap.parse_args()
    sizes = [int(x) for x in args.rows.split(",")]
    if len(sizes) < 2 or len(set(sizes)) < 2:
        sys.exit("--rows needs two different sizes, e.g. 300,1200")
    measures = args.measures.split(",") if args.measures else None
    runs = []
    for n in sizes:                     # each size is written as it finishes: a stopped run keeps what it measured
        runs.append(one_size(n, args.data, args.device, args.workers, measures))
        r = runs[-1]
        print(f"{n} rows: {r['seconds']:.1f} s " + str({k: round(v, 1) for k, v in r["steps"].items()})
              + f", {r['candidate_pairs']} candidate pairs", flush=True)
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"runs": runs, "partial": True}, indent=2) + "\n")
    proj = project(runs, args.project)
    steps = sorted({k for r in runs for k in r["steps"]})
    print(f"\nPyTorch-reference corpus x KernelBench v0.1 ({runs[0]['bench_items']} items), {os.cpu_count()} CPUs, "
          f"workers {args.workers or 'default'}, device {args.device or 'auto'}")
    print(f"{'rows':>8} {'total s':>9} " + " ".join(f"{s:>12}" for s in steps) + "  flagged items")
    for r in runs:
        print(f"{r['rows']:>8} {r['seconds']:9.1f} " + " ".join(f"{r['steps'].get(s, 0):12.1f}" for s in steps)
              + f"  {r['flagged_bench']}")
    print(f"{'ms/row':>8} {'':9} " + " ".join(f"{proj[s]['per_row_ms']:12.1f}" for s in steps))
    if "per_pair_s" in proj.get("behavioural", {}):
        beh = proj["behavioural"]
        print(f"behavioural: {beh['per_pair_s']:.2f} s a candidate pair; at most {beh['pairs_at_most']} pairs "
              f"at {args.project} rows")
    print(f"{args.project:>8} {proj['total']['projected_s']:9.0f} "
          + " ".join(f"{proj[s]['projected_s']:12.0f}" for s in steps) + "  (projected)")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"runs": runs, "projection": {"rows": args.project, **proj},
                                     "cpus": os.cpu_count(), "workers": args.workers, "device": args.device,
                                     "machine": platform.node(), "peak_rss_mb": own, "peak_child_rss_mb": kids},
                                    indent=2) + "\n")
    print(f"peak RSS {own:.0f} MB (largest child {kids:.0f} MB); wrote {args.json}")


if __name__ == "__main__":
    main()
