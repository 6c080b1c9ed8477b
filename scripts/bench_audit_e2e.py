"""End-to-end time of ``kvdata audit-overlap`` (all measures) on a corpus shaped like the real mined Triton one.

    python scripts/bench_audit_e2e.py                 # 1,500 files against TritonBench-G; prints, writes JSON
    python scripts/bench_audit_e2e.py --files 300 --out e2e.json
    python scripts/bench_audit_e2e.py --real /tmp/devset/train   # real code: the materialised Triton dev set

The training side is :func:`synthetic_triton_corpus.triton_corpus` (median ~4,700 characters, ~10% over 20,000,
a few over 100,000); the benchmark side TritonBench-G from the shared data folder. Every measure runs, each
measure's wall time comes from the audit's own record (``AuditResult.seconds``), with a cold cache (a
fresh temporary cache folder) and then warm (the same folder again), as a re-audit would be. Peak RSS of this
process and its children is recorded too.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_triton_corpus import triton_corpus  # noqa: E402

from kvdata.audit.benchmarks import load_benchmark  # noqa: E402
from kvdata.audit.pipeline import run_audit  # noqa: E402
from kvdata.audit.training import TrainingRows  # noqa: E402

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def real_corpus(folder: Path) -> tuple[list[str], list[str]]:
    """Every ``.py`` file under ``folder`` (``scripts/triton_devset.py materialise``'s ``train/``), as (ids, codes)."""
    files = sorted(p for p in folder.rglob("*.py") if p.is_file())
    return [str(p.relative_to(folder)) for p in files], [p.read_text(encoding="utf-8", errors="replace") for p in files]


def e2e(n_files: int, data: Path, device: str | None, workers: int | None, measures=None,
        real: Path | None = None) -> dict:
    if real is not None:
        ids, codes = real_corpus(real)
        n_files = len(ids)
        source = f"real Triton files ({n_files}, {real})"
    else:
        ids, codes = triton_corpus(n_files, data / "tritonbench" / "TritonBench_G_v1.json", seed=0)
        source = f"synthetic triton corpus ({n_files} files)"
    train = TrainingRows(ids, codes, [None] * len(ids), source)
    bench = load_benchmark("tritonbench-g", data / "tritonbench" / "TritonBench_G_v1.json")
    out = {"files": n_files, "source": source, "chars": sum(map(len, codes)), "bench_items": len(bench), "runs": []}
    with tempfile.TemporaryDirectory(prefix="kv-e2e-cache-") as cache:
        for label in ("cold", "warm"):
            t0 = time.perf_counter()
            res = run_audit(bench, train, cache_dir=cache, device=device, workers=workers, progress=True,
                            **({"measures": measures} if measures else {}))
            wall = time.perf_counter() - t0
            out["runs"].append({"cache": label, "seconds": wall, "steps": dict(res.seconds),
                                "flagged_pairs": len(res.flagged), "flagged_bench": len({p.bench_id for p in res.flagged}),
                                "measures_run": res.measures_run, "notes": res.notes})
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    out.update(peak_rss_mb=own, peak_child_rss_mb=kids, cpus=os.cpu_count(), machine=platform.node(),
               python=platform.python_version())
    return out


def print_table(result: dict) -> None:
    print(f"\nend to end: {result['files']} files ({result['chars'] / 1e6:.1f} M chars) x "
          f"{result['bench_items']} TritonBench-G items, {result['cpus']} CPUs")
    names = sorted({k for r in result["runs"] for k in r["steps"]})
    print(f"{'cache':6} {'total s':>8} " + " ".join(f"{n:>12}" for n in names) + "  flagged items")
    for r in result["runs"]:
        print(f"{r['cache']:6} {r['seconds']:8.1f} " + " ".join(f"{r['steps'].get(n, 0):12.1f}" for n in names)
              + f"  {r['flagged_bench']}")
    print(f"peak RSS {result['peak_rss_mb']:.0f} MB (largest child {result['peak_child_rss_mb']:.0f} MB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=1500)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--device", default=None)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--measures", default=None, help="comma-separated subset (default: all)")
    ap.add_argument("--real", type=Path, default=None,
                    help="audit the real files under this folder instead of the synthetic corpus")
    ap.add_argument("--out", type=Path, default=Path("bench_audit_e2e.json"))
    args = ap.parse_args()
    result = e2e(args.files, args.data, args.device, args.workers,
                 args.measures.split(",") if args.measures else None, real=args.real)
    print_table(result)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
