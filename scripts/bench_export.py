"""Benchmark `kvdata export` on the synthetic corpus of `scripts/bench_build.py`.

The corpus (``--rows`` input records, Triton and HIP kernels with their references) is built once
(2 workers), then each format in ``--formats`` exports the ``torch2triton`` task with a
validation and a test split, each in a fresh child process so that its peak RSS is its own.
Prints a table (rows in, examples out, seconds, rows/s, peak RSS) and writes JSON. A format named
twice runs twice (``--formats messages,rl,messages,rl``): this box's speed moves by tens of percent
within minutes, so every run is kept, with the time of ``sum(range(1000))`` measured just before it
(``box_us``) to say how fast the machine was at that moment.

    python scripts/bench_export.py --rows 100000 --formats messages,rl --json out/bench/bench_export.json
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def child(args) -> None:
    from kvdata.export.pipeline import ExportOptions, export

    t0 = time.perf_counter()
    r = export(args.data, args.out, ExportOptions("torch2triton", args.child, 0.1, 0.1), progress=False)
    seconds = time.perf_counter() - t0
    print(json.dumps({"format": args.child, "seconds": seconds, "input": r.input_rows, "examples": r.examples,
                      "exported": r.exported, "groups": r.groups, "reconciles": r.reconciles, "crossings": r.crossings,
                      "peak_rss_mb": _peak_rss_mb()}))


def _peak_rss_mb() -> float:
    """This process's own peak RSS (VmHWM). Not ru_maxrss: Linux carries that across fork and exec, so a child
    started by the build's parent would report the parent's peak."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--formats", default="messages,rl")
    ap.add_argument("--json", dest="json_path")
    ap.add_argument("--dir")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    import bench_build

    from kvdata.pipeline import build

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        tmp = Path(tmp)
        corpus = bench_build.write_corpus(tmp / "raw", args.rows)
        os.environ.setdefault("KVDATA_CACHE", str(tmp / "cache"))
        cfg = bench_build.build_config(corpus, 2)
        t0 = time.perf_counter()
        build(cfg, tmp / "built", progress=False)
        build_s = time.perf_counter() - t0
        results = []
        for fmt in args.formats.split(","):
            box_us = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
            p = subprocess.run([sys.executable, __file__, "--child", fmt, "--data", str(tmp / "built"),
                                "--out", str(tmp / f"export-{fmt}")], capture_output=True, text=True,
                               env=dict(os.environ, TQDM_DISABLE="1"))
            if p.returncode:
                sys.exit(f"export {fmt} failed:\n{p.stderr[-3000:]}")
            r = json.loads(p.stdout.strip().splitlines()[-1])
            r["rows_per_s"] = r["input"] / r["seconds"]
            r["box_us"] = box_us
            results.append(r)
    print(f"synthetic corpus: {args.rows} records, built in {build_s:.1f}s; {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}\n")
    print(f"{'format':>9} {'rows in':>8} {'examples':>9} {'seconds':>8} {'rows/s':>8} {'RSS MB':>7} {'box us':>7}  splits")
    for r in results:
        print(f"{r['format']:>9} {r['input']:>8} {r['examples']:>9} {r['seconds']:>8.2f} {r['rows_per_s']:>8.0f} "
              f"{r['peak_rss_mb']:>7.0f} {r['box_us']:>7.1f}  {r['exported']} groups={r['groups']} "
              f"reconciles={r['reconciles']} crossings={r['crossings']}")
    if args.json_path:
        Path(args.json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json_path).write_text(json.dumps({"rows": args.rows, "build_seconds": build_s,
                                                    "results": results}, indent=1))


if __name__ == "__main__":
    main()
