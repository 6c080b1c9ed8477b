#!/usr/bin/env python3
"""The Triton kernel rule on real code: TritonBench-G against the GitHub repositories its items came from.

The development set (``audit/devsets/tritonbench_g_real.json``, made by ``scripts/triton_devset.py``) names, per
repository, a commit and its Triton files, and labels every TritonBench-G item *by provenance*: ``present`` when
its repository holds a file of its name or a kernel of its kernels' names (``verbatim``, ``edited`` or
``rewritten`` by how much of the kernel text is still the same, a plain ``difflib`` ratio, not any audit
measure), ``absent`` when its repository is not in the
set, ``unlocated``/``unknown`` otherwise (not scored). Repositories, and so items, are split into ``tune`` and
``heldout``.

The script matches every benchmark kernel against every training kernel once, then scores rules: the plain rule
(``KernelFlagRule()``) and IDF-weighted ones over a grid, choosing the weighted rule on the ``tune`` split alone
and reporting it on both. An item is *found* when one of its kernels flags against one of its true files, and
*flagged* when one flags anywhere.

    python scripts/triton_devset.py materialise --manifest audit/devsets/tritonbench_g_real.json --out /tmp/devset
    python scripts/eval_triton_devset.py --files /tmp/devset/train --json out/eval_triton_devset.json
    python scripts/eval_triton_devset.py --files /tmp/devset/train --full-audit   # what kvdata audit-overlap says

``--full-audit`` scores what a user gets instead: ``run_audit`` with every measure (lexical, semantic, kernel,
and the rest, which find no torch reference in these files), an item found when any measure flags it against a
true file.
"""
from __future__ import annotations

import argparse
import collections
import itertools
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
MANIFEST = REPO / "audit" / "devsets" / "tritonbench_g_real.json"

@dataclass
class Score:
    split: str
    found_close: int          # verbatim + edited items found against a true file
    close: int
    found_all: int            # every present item found against a true file
    present: int
    flagged_absent: int
    absent: int

    @property
    def recall_close(self) -> float:
        return self.found_close / self.close if self.close else float("nan")

    @property
    def recall_all(self) -> float:
        return self.found_all / self.present if self.present else float("nan")

    @property
    def false_rate(self) -> float:
        return self.flagged_absent / self.absent if self.absent else float("nan")


def load(manifest: Path, files: Path):
    m = json.loads(manifest.read_text())
    bench_all = json.loads((DATA / m["benchmark"]["path"]).read_text())
    train = []
    for r in m["repos"]:
        folder = files / r["repo"].replace("/", "__")
        for path in r["files"]:
            f = folder / path
            if f.is_file():
                train.append((f"{r['repo']}/{path}", f.read_text(encoding="utf-8", errors="replace")))
    texts = dict(train)
    items = []
    for it in m["items"]:
        if it["label"] not in ("present", "copied", "absent"):
            continue
        bench = bench_all[it["index"]]
        true = [f"{p['repo']}/{p['path']}" for p in it.get("train_paths", [])]
        true = [t for t in true if t in texts]
        if it["label"] != "absent" and not true:
            continue
        label = "absent" if it["label"] == "absent" else it["sub_label"]
        items.append({"id": f"{it['index']}:{it['file']}", "code": bench["output"], "label": label,
                      "split": it["split"], "true": set(true)})
    return items, train


def score(items, flags_by_item, split: str) -> Score:
    sel = [it for it in items if it["split"] == split]
    close = [it for it in sel if it["label"] in ("verbatim", "edited")]
    present = [it for it in sel if it["label"] != "absent"]
    absent = [it for it in sel if it["label"] == "absent"]

    def found(it):
        return bool(flags_by_item.get(it["id"], set()) & it["true"])
    return Score(split, sum(map(found, close)), len(close), sum(map(found, present)), len(present),
                 sum(1 for it in absent if flags_by_item.get(it["id"])), len(absent))


def flags(matches, rule) -> dict[str, set]:
    out = collections.defaultdict(set)
    for m in matches:
        if rule.flags(m):
            out[m.bench_id].add(m.train_id)
    return out


def full_audit(items, train, json_out: Path | None, cache_dir: Path | None) -> int:
    """Run the audit with every measure and score its flags per split; print which measures fired."""
    from kvdata.audit.benchmarks import load_benchmark
    from kvdata.audit.pipeline import run_audit
    from kvdata.audit.training import TrainingRows

    bench = load_benchmark("tritonbench-g", DATA / "tritonbench" / "TritonBench_G_v1.json")
    rows = TrainingRows([t for t, _ in train], [c for _, c in train], [None] * len(train), "tritonbench_g_real")
    t0 = time.perf_counter()
    res = run_audit(bench, rows, cache_dir=cache_dir, progress=True)
    wall = time.perf_counter() - t0
    by_file = collections.defaultdict(set)
    reasons = collections.defaultdict(list)
    for p in res.flagged:
        by_file[p.bench_id].add(p.train_id)
        reasons[p.bench_id].append(p.reason)
    flags_by_item = {it["id"]: by_file.get(it["id"].split(":", 1)[1], set()) for it in items}
    print(f"audit: {wall:.1f} s, {len(res.flagged)} pairs flagged; seconds by step {dict(res.seconds)}")
    print(f"\n{'split':8} {'verbatim/edited':>16} {'all present':>13} {'absent flagged':>15}")
    results = []
    for split in ("tune", "heldout"):
        s = score(items, flags_by_item, split)
        results.append({**asdict(s), "recall_close": s.recall_close, "recall_all": s.recall_all,
                        "false_rate": s.false_rate})
        print(f"{split:8} {s.found_close:>4}/{s.close:<4} {s.recall_close:5.2f}  {s.found_all:>4}/{s.present:<4} "
              f"{s.recall_all:4.2f}  {s.flagged_absent:>4}/{s.absent:<4} {s.false_rate:5.2f}")
    for it in items:
        if it["label"] == "absent" and flags_by_item[it["id"]]:
            print(f"absent but flagged: {it['id']} ({it['split']}): {sorted(set(reasons[it['id'].split(':', 1)[1]]))}")
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps({"mode": "full-audit", "train_files": len(train), "seconds": wall,
                                        "steps": dict(res.seconds), "results": results}, indent=2))
    return 0


def main(argv=None) -> int:
    from kvdata.audit.triton_kernels import KernelFlagRule, match_kernels

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    ap.add_argument("--files", type=Path, required=True, help="the materialised training files (…/train)")
    ap.add_argument("--max-false", type=float, default=0.05, help="tuning: the most absent items flagged (tune split)")
    ap.add_argument("--op-conflicts", type=lambda t: [None if x == "none" else int(x) for x in t.split(",")],
                    default=[0], help="op-veto settings to try (default 0: the planted look-alikes need the veto; "
                                      "'0,2,none' shows what relaxing it costs)")
    ap.add_argument("--full-audit", action="store_true",
                    help="score the whole audit's flags (every measure), not the kernel rule's alone")
    ap.add_argument("--cache-dir", type=Path, default=None, help="with --full-audit: the audit's cache")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if not args.files.is_dir():
        sys.exit(f"{args.files} is not a folder; run scripts/triton_devset.py materialise first")
    items, train = load(args.manifest, args.files)
    t0 = time.perf_counter()
    matching = match_kernels([(it["id"], it["code"]) for it in items], train, floor=0.5, progress=False)
    match_s = time.perf_counter() - t0
    labels = collections.Counter((it["split"], it["label"]) for it in items)
    print(f"{len(train)} training files, {len(items)} scored items {dict(sorted(labels.items()))}; "
          f"matching {match_s:.1f} s, {len(matching.matches)} kernel matches")

    if args.full_audit:
        return full_audit(items, train, args.json, args.cache_dir)
    rules = {"default (IDF-weighted)": KernelFlagRule()}
    grid = itertools.product((0.5, 0.6, 0.7, 0.8), (0.6, 0.7, 0.8, 0.9), (0.7, 0.8, 0.9), (0.0, 80.0, 120.0, 160.0, 200.0),
                             args.op_conflicts)
    candidates = {f"weighted j{j:g} c{c:g} a{a:g} info{i:g} ops{o}": KernelFlagRule(
        jaccard=j, containment=c, ast_similarity=a, weighted=True, min_information=i, max_op_conflicts=o)
        for j, c, a, i, o in grid}
    tuned = {name: score(items, flags(matching.matches, rule), "tune") for name, rule in candidates.items()}
    ok = {n: s for n, s in tuned.items() if s.false_rate <= args.max_false}
    pool = ok or tuned

    def preference(name):
        """Best recall on the tune split, then fewest false flags; among rules that tie there, the most
        conservative: the highest information floor and thresholds, the fewest op conflicts allowed."""
        s, r = pool[name], candidates[name]
        return (s.recall_all, s.recall_close, -s.false_rate, r.min_information,
                r.jaccard + r.containment + r.ast_similarity,
                -(99 if r.max_op_conflicts is None else r.max_op_conflicts))
    best = max(pool, key=preference)
    rules[best] = candidates[best]
    results = []
    print(f"\n{'rule':44} {'split':8} {'verbatim/edited':>16} {'all present':>13} {'absent flagged':>15}")
    for name, rule in rules.items():
        f = flags(matching.matches, rule)
        for split in ("tune", "heldout"):
            s = score(items, f, split)
            results.append({"rule": name, **asdict(s), "recall_close": s.recall_close, "recall_all": s.recall_all,
                            "false_rate": s.false_rate})
            print(f"{name:44} {split:8} {s.found_close:>4}/{s.close:<4} {s.recall_close:5.2f}  "
                  f"{s.found_all:>4}/{s.present:<4} {s.recall_all:4.2f}  {s.flagged_absent:>4}/{s.absent:<4} "
                  f"{s.false_rate:5.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"manifest": str(args.manifest), "train_files": len(train),
                                         "match_seconds": match_s, "chosen": best, "results": results,
                                         "labels": {f"{k[0]}/{k[1]}": v for k, v in labels.items()}}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
