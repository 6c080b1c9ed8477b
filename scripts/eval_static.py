"""The static pre-screen (``kvdata reverify --static``) measured: recall on every hostile suite in the tests,
false flags on their controls and on the bundled honest samples, per rule, and its speed at scale.

A sample counts as flagged when any rule hits. Hostile cases that compute a wrong answer with ordinary code
(a constant fill, an fp16 cast) have nothing for a static rule to see: the pre-screen is a filter in front of
the sandboxed run, not a verdict.

    python scripts/eval_static.py --rows 100000 --json out/bench/eval_static.json
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reverify_hostile_gpu import hostile_suite, knockout_suite, manifest_suite  # noqa: E402

from kvdata.reverify.static import RULES, screen  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def cases_of(suite: list[tuple]) -> list[tuple]:
    """``reverify_hostile_gpu``'s (id, kind, reference, kernel) as (id, hostile, kernel, reference)."""
    return [(cid, kind == "hostile", kernel, ref) for cid, kind, ref, kernel in suite]


def honest_samples() -> list[tuple]:
    root = REPO / "builders" / "sample" / "triton"
    return [(f"sample/{k.parent.relative_to(root)}", False, k.read_text(),
             (k.parent / "reference.py").read_text() if (k.parent / "reference.py").exists() else "")
            for k in sorted(root.rglob("kernel.py"))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000, help="rows for the speed measurement")
    ap.add_argument("--json", type=Path, default=Path("out/bench/eval_static.json"))
    args = ap.parse_args()
    suites = {"reverify_suite3": cases_of(manifest_suite("reverify_suite3", "suite3")),
              "reverify_redteam": cases_of(manifest_suite("reverify_redteam", "redteam")),
              "hostile": cases_of(hostile_suite()), "knockout_suite": cases_of(knockout_suite()),
              "honest samples": honest_samples()}
    table, by_rule = [], collections.Counter()
    print(f"{'suite':18} {'hostile flagged':>16} {'honest flagged':>15}")
    for name, cases in suites.items():
        hostile = [c for c in cases if c[1]]
        honest = [c for c in cases if not c[1]]
        flagged_h = [c[0] for c in hostile if screen(c[2], c[3]).flags]
        flagged_c = {c[0]: screen(c[2], c[3]).flags for c in honest}
        flagged_c = {k: v for k, v in flagged_c.items() if v}
        for c in cases:
            for rule in screen(c[2], c[3]).flags:
                by_rule[(rule, "hostile" if c[1] else "honest")] += 1
        table.append({"suite": name, "hostile": len(hostile), "hostile_flagged": len(flagged_h),
                      "honest": len(honest), "honest_flagged": len(flagged_c), "honest_flags": flagged_c})
        print(f"{name:18} {len(flagged_h):>7}/{len(hostile):<8} {len(flagged_c):>6}/{len(honest):<8}"
              + (f"  honest hits: {flagged_c}" if flagged_c else ""))
    tp = sum(t["hostile_flagged"] for t in table)
    fp = sum(t["honest_flagged"] for t in table)
    pos = sum(t["hostile"] for t in table)
    print(f"\nall suites: recall {tp}/{pos} = {tp / pos:.2f}, precision {tp}/{tp + fp} = {tp / max(1, tp + fp):.2f}")
    print("per rule (hostile / honest hits): " + ", ".join(
        f"{r} {by_rule[(r, 'hostile')]}/{by_rule[(r, 'honest')]}" for r in RULES))
    # speed: the honest samples and the suites, repeated to --rows, one process
    corpus = [c for cases in suites.values() for c in cases]
    rows = [corpus[i % len(corpus)] for i in range(args.rows)]
    chars = sum(len(r[2]) + len(r[3]) for r in rows)
    t0, c0 = time.perf_counter(), time.process_time()
    flagged = sum(1 for r in rows if screen(r[2], r[3]).flags)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"speed: {args.rows} rows ({chars / 1e6:.0f} M chars) in {wall:.1f} s, {args.rows / wall:,.0f} rows/s, "
          f"one process ({cpu:.1f} CPU s); {flagged} flagged")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"suites": table, "recall": tp / pos, "precision": tp / max(1, tp + fp),
                                     "per_rule": {f"{r}/{k}": v for (r, k), v in by_rule.items()},
                                     "speed": {"rows": args.rows, "seconds": wall, "cpu_seconds": cpu,
                                               "rows_per_s": args.rows / wall, "cpus": os.cpu_count()}},
                                    indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
