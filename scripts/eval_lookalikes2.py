#!/usr/bin/env python3
"""The audit on the second look-alike set (``tests/audit_suite/lookalikes2``): small benchmark computations (norms,
losses, softmax, activations, reductions) inside bigger training models that compute something else, and controls
that do compute the benchmark problem. Written by a red team that never saw the audit's code; ``verify.py`` there
proves every label by running both sides.

The training side is every case file; the benchmark is KernelBench v0.1 (the levels the cases target). A
look-alike flagged against the problem it targets is a false flag; a control flagged against its problem is found.

    python scripts/eval_lookalikes2.py [--measures lexical,semantic,structural,behavioural] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "tests" / "audit_suite" / "lookalikes2"
DATA = REPO.parent / "shared" / "data"


def evaluate(measures, cache_dir=None, progress: bool = False) -> dict:
    from kvdata.audit.benchmarks import load_benchmark
    from kvdata.audit.pipeline import run_audit
    from kvdata.audit.training import TrainingRows

    cases = json.loads((SUITE / "manifest.json").read_text())
    levels = sorted({c["level"] for c in cases})
    bench = load_benchmark("kernelbench", DATA / "kernelbench" / "kernelbench_v0.1.jsonl", version="v0.1",
                           levels=levels)
    ids = [c["file"] for c in cases]
    train = TrainingRows(ids, [(SUITE / f).read_text() for f in ids], [None] * len(ids), "lookalikes2")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        result = run_audit(bench, train, measures=measures, cache_dir=str(cache_dir or tmp), progress=progress)
        seconds = time.perf_counter() - t0
    name_of = {it.id: it.name for it in bench}
    flagged = {}
    for p in result.flagged:
        flagged.setdefault(p.train_id, {})[name_of.get(p.bench_id, p.bench_id)] = p.reason
    out = {"seconds": seconds, "measures": list(result.measures_run), "lookalikes": [], "controls": []}
    for c in cases:
        hit = flagged.get(c["file"], {}).get(c["reference"])
        (out["lookalikes"] if c["kind"] == "lookalike" else out["controls"]).append(
            {"file": c["file"], "reference": c["reference"], "flagged": hit is not None, "reason": hit or ""})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--measures", default="lexical,semantic,structural,behavioural")
    ap.add_argument("--cache-dir", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    res = evaluate([m for m in args.measures.split(",") if m], args.cache_dir)
    false = [c for c in res["lookalikes"] if c["flagged"]]
    found = [c for c in res["controls"] if c["flagged"]]
    print(f"look-alikes flagged against their target: {len(false)}/{len(res['lookalikes'])}; controls found: "
          f"{len(found)}/{len(res['controls'])}; audit {res['seconds']:.1f} s ({', '.join(res['measures'])})")
    for c in false:
        print(f"  false flag  {c['file']:40} ~ {c['reference']:35} {c['reason']}")
    for c in res["controls"]:
        if not c["flagged"]:
            print(f"  missed      {c['file']:40} ~ {c['reference']}")
    if args.json:
        args.json.write_text(json.dumps(res, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
