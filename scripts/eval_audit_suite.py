"""Recall and false flags of ``kvdata audit-overlap`` on the labelled paraphrase suite, with an ablation.

    python scripts/eval_audit_suite.py                      # held-out split, every measure, plus ablation
    python scripts/eval_audit_suite.py --split dev          # the development split (thresholds are tuned here)
    python scripts/eval_audit_suite.py --no-ablation --measures lexical,structural

The suite (``tests/audit_suite``) was written by a red team that had not seen the audit's code: paraphrases of
KernelBench v0.1 problems (composites spelled out, algebraic rewrites, functional code with raw Parameters,
Triton rows with a torch helper, models buried in utility files, reordered init args, other sizes) and
look-alikes on the same skeletons that compute something else; ``tests/audit_suite/verify.py`` proves each label
by running both sides. Prints a table and writes JSON (``--out``).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from kvdata.audit.benchmarks import load_benchmark
from kvdata.audit.evaluation import ablation, load_suite, score_suite
from kvdata.audit.steps import MEASURES

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "tests" / "audit_suite"
DATA = REPO.parent / "shared" / "data"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="heldout", choices=["heldout", "dev"])
    ap.add_argument("--measures", default=",".join(MEASURES))
    ap.add_argument("--no-ablation", action="store_true")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--cache-dir", type=Path, default=None, help="traces/probes/embeddings cache (default: a temp dir)")
    ap.add_argument("--out", type=Path, default=Path("eval_audit_suite.json"))
    args = ap.parse_args(argv)
    measures = [m for m in args.measures.split(",") if m]
    cases = load_suite(SUITE, split=args.split)
    kb = load_benchmark("kernelbench", args.data / "kernelbench" / "kernelbench_v0.1.jsonl", version="v0.1")
    with tempfile.TemporaryDirectory() as tmp:
        cache = str(args.cache_dir or tmp)
        t0 = time.perf_counter()
        full, result = score_suite(cases, kb, measures=measures, cache_dir=cache, progress=False)
        seconds = time.perf_counter() - t0
        scores = {"all": full}
        if not args.no_ablation:
            scores.update({k: v for k, v in ablation(cases, kb, measures, cache_dir=cache, progress=False).items()
                           if k != "all"})
    print(f"split {args.split}: {full.n_paraphrases} paraphrases, {full.n_lookalikes} look-alikes; "
          f"full audit {seconds:.1f} s")
    print(f"{'run':18} {'found':>9} {'recall':>7} {'false flags':>12} {'rate':>6}")
    for label, s in scores.items():
        print(f"{label:18} {s.n_found:>4}/{s.n_paraphrases:<4} {s.recall:7.2f} {s.n_false_flags:>6}/{s.n_lookalikes:<5} "
              f"{s.false_flag_rate:6.2f}")
    print("by category (all measures):", ", ".join(f"{k} {f}/{n}" for k, (f, n) in full.by_category.items()))
    if full.missed:
        print("missed:", ", ".join(full.missed))
    if full.false_flags:
        print("false flags:", ", ".join(full.false_flags))
    print("coverage:", json.dumps(result.coverage.summary()["train"]))
    args.out.write_text(json.dumps({"split": args.split, "measures": measures, "seconds": seconds,
                                    "runs": {k: v.to_json() for k, v in scores.items()},
                                    "notes": result.notes}, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
