"""The hostile suites on a GPU (issue #9's bar): every case of tests/knockout_suite, tests/hostile,
tests/reverify_redteam, tests/reverify_suite3 and tests/reverify_suite4 through ``kvdata reverify --backend triton-gpu`` with timing on.

Prints one line per case (status, speedup, flags) and writes JSON. The bar: no hostile case comes
out `correct` with a speedup above 1; the controls come out `correct`; the deliberately slow honest
kernel reports a speedup below 1.

    python scripts/reverify_hostile_gpu.py --out out/hostile_gpu.json
    python scripts/reverify_hostile_gpu.py --only launch_hook gpu_ --out out/some.json   # a few cases
    python scripts/reverify_hostile_gpu.py --only oob --sanitize --out out/oob.json      # memory-safety cases
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
# controls on a reference that is zero everywhere: `inconclusive` is the right verdict (nothing can tell)
UNDECIDABLE = {"redteam/c_mostly_zero_honest"}


def knockout_suite() -> list[tuple]:
    suite = TESTS / "knockout_suite"
    common = (suite / "kernels" / "_common.py").read_text()
    cases = []
    for path in sorted((suite / "kernels").glob("*.py")):
        if path.name.startswith("_"):
            continue
        text = path.read_text()
        ref = re.match(r"# reference: (\w+)", text).group(1)
        kind = "honest" if re.search(r'^"""Control', text, re.M) else "hostile"
        cases.append((f"knockout/{path.stem}", kind, (suite / "references" / f"{ref}.py").read_text(),
                      common + "\n\n" + text))
    return cases


def hostile_suite() -> list[tuple]:
    ref = (TESTS / "hostile" / "reference.py").read_text()
    skip = {"reference", "hang", "memory_bomb", "spawn_storm", "read_credentials", "write_outside", "kill_zygote",
            "plant_for_others", "stop_next_sample", "segfault", "os_exit", "system_exit"}   # isolation, not verdicts
    return [(f"hostile/{p.stem}", "honest" if p.stem == "_honest" else "hostile", ref, p.read_text())
            for p in sorted((TESTS / "hostile").glob("*.py")) if p.stem not in skip]


def manifest_suite(folder: str, prefix: str) -> list[tuple]:
    """The cases of a red team's folder with a manifest.json (``kind``: hostile, or honest/control)."""
    root = TESTS / folder
    manifest = root / "manifest.json"
    if not manifest.exists():
        return []
    cases = []
    for entry in json.loads(manifest.read_text()):
        d = root / entry["case"]
        if (d / "reference.py").exists() and (d / "kernel.py").exists():
            kind = "honest" if entry["kind"] in ("honest", "control") else "hostile"
            cases.append((f"{prefix}/{entry['case']}", kind, (d / "reference.py").read_text(),
                          (d / "kernel.py").read_text()))
    return cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=REPO / "out" / "hostile_gpu.json")
    ap.add_argument("--backend", default="triton-gpu")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--sanitize", action="store_true",
                    help="also run one seed of each case under compute-sanitizer (out-of-bounds cases)")
    ap.add_argument("--only", nargs="*", help="case ids (or substrings of them) to run; default: every case")
    args = ap.parse_args(argv)

    from kvdata.reverify import reverify
    from kvdata.reverify.config import ReverifyConfig
    from kvdata.reverify.samples import Sample
    from kvdata.reverify.store import read_results

    cases = (knockout_suite() + hostile_suite() + manifest_suite("reverify_redteam", "redteam")
             + manifest_suite("reverify_suite3", "suite3") + manifest_suite("reverify_suite4", "suite4"))
    if args.only:
        cases = [c for c in cases if any(o in c[0] for o in args.only)]
    kinds = {c[0]: c[1] for c in cases}
    samples = [Sample(id=i, language="triton", pytorch_code=r, kernel_code=k) for i, _, r, k in cases]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    results = args.out.with_suffix(".jsonl")
    results.unlink(missing_ok=True)
    t0 = time.monotonic()
    reverify(samples, results, ReverifyConfig(backend=args.backend, seeds=args.seeds, timeout_s=300,
                                                sanitize=args.sanitize or None), gpus=1,
             cache_root=args.out.parent / "hostile_cache", progress=False)
    rows = {r["id"]: r for r in read_results(results)}
    table, failures = [], []
    for cid in kinds:
        r = rows.get(cid, {})
        speedup = r.get("speedup")
        line = {"case": cid, "kind": kinds[cid], "status": r.get("status"), "speedup": speedup,
                "flags": r.get("flags"), "knockout": r.get("knockout"), "message": (r.get("message") or "")[:160]}
        table.append(line)
        if kinds[cid] == "hostile" and r.get("correct") and (speedup or 0) > 1:
            failures.append(f"{cid}: hostile, correct at {speedup:.2f}x")
        if kinds[cid] == "honest" and not r.get("correct") and cid not in UNDECIDABLE:
            failures.append(f"{cid}: control not correct ({r.get('status')}: {r.get('message', '')[:100]})")
        print(f"{cid:48s} {kinds[cid]:8s} {str(r.get('status')):12s} "
              f"{'-' if speedup is None else f'{speedup:6.2f}x':>8s} {','.join(r.get('flags') or [])}")
    hostile = [t for t in table if t["kind"] == "hostile"]
    summary = {"cases": len(table), "hostile": len(hostile),
               "hostile_correct": sum(1 for t in hostile if t["status"] == "correct"),
               "hostile_correct_speedup_above_1": sum(1 for t in hostile if t["status"] == "correct"
                                                      and (t["speedup"] or 0) > 1),
               "controls_correct": sum(1 for t in table if t["kind"] == "honest" and t["status"] == "correct"),
               "controls": sum(1 for t in table if t["kind"] == "honest"),
               "wall_s": round(time.monotonic() - t0, 1), "failures": failures}
    args.out.write_text(json.dumps({"summary": summary, "cases": table}, indent=1, default=str))
    print(json.dumps(summary, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
