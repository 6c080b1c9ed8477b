#!/usr/bin/env python
"""hip-compile: the committed path and the working tree's side by side on the bundled hip2hip samples.

"old" is ``kvdata/reverify/backends/hip_compile.py`` as committed at ``--old-rev`` (default e6a769d,
the last commit before issue 9 changed it), loaded from git together with that commit's ``toolchain.py``: hipcc (clang-15) for the host pass and
the gfx90a/gfx940 device passes, ``-std=c++17``, torch/extension.h parsed by every pass. "new" is the
working tree's: clang-19 for every pass, torch's own C++ standard, a host syntax pass, and one
precompiled torch/extension.h per pass that ``prepare`` builds first, as the parent of a
``kvdata reverify`` run would. Both start from empty caches ("cold"; new's time includes building
its headers); "new rerun" compiles the same samples again from the warm caches (every pass must be a
hit). Samples are the bundle's hip2hip rows (``scripts/sample_rows.py --group hip2hip``, what
``kvdata reverify --subset hip2hip`` reads from the sample build), compiled one after another with
``backend.build`` in this process (no sandbox), each pass using the default ``jobs`` (all cores).
Besides wall time it reports the compilers' CPU seconds: other load on a shared box stretches wall
time, and stretches the two paths unequally when it comes and goes between them.

    nice python scripts/bench_hip_compile.py --samples 12 --out out/bench_hip_compile.json
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
import types
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OLD_REV = "e6a769d"       # the hipcc path, before issue 9


def module_from_git(rev: str, path: str, name: str, replace: tuple = ()) -> types.ModuleType:
    """Import ``path`` as committed at ``rev`` under the module name ``name`` (``replace``: (old, new) text edits first)."""
    text = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=REPO, check=True, capture_output=True,
                          text=True).stdout
    for before, after in replace:
        text = text.replace(before, after)
    module = types.ModuleType(name)
    module.__file__ = f"{rev}:{path}"
    sys.modules[name] = module
    exec(compile(text, module.__file__, "exec"), module.__dict__)
    return module


def old_backend_class(rev: str) -> type:
    """HipCompileBackend as committed at ``rev``, importing that commit's toolchain and backend-base modules."""
    module_from_git(rev, "kvdata/reverify/toolchain.py", "kvdata_old_toolchain")
    module_from_git(rev, "kvdata/reverify/backends/base.py", "kvdata_old_backend_base")
    old = module_from_git(rev, "kvdata/reverify/backends/hip_compile.py", "kvdata_old_hip_compile",
                          (("from kvdata.reverify.toolchain import", "from kvdata_old_toolchain import"),
                           ("from kvdata.reverify.backends.base import", "from kvdata_old_backend_base import")))
    return old.HipCompileBackend


def hip2hip_rows(group: str) -> list[dict]:
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as tmp:
        subprocess.run([sys.executable, str(REPO / "scripts" / "sample_rows.py"), "--group", group,
                        "--out", tmp.name], check=True, capture_output=True)
        return [json.loads(line) for line in Path(tmp.name).read_text().splitlines()]


def compiler_cpu_s() -> float:
    """CPU seconds (user + system) of every finished child process so far: the compilers' work, which other
    load on a shared box stretches far less than it stretches wall time."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def compile_all(backend, samples: list[dict], cache_dir: Path, work: Path) -> dict:
    """Compile every sample in turn: wall time, compiler CPU time, per-sample seconds, outcomes, cache hits."""
    per_sample, outcomes, hits = [], [], []
    t0, cpu0 = time.perf_counter(), compiler_cpu_s()
    for i, sample in enumerate(samples):
        t = time.perf_counter()
        try:
            candidate = backend.build(sample, work / f"s{i}", cache_dir)
            outcomes.append("compiled")
            hits.append(bool(candidate.cache_hit))
        except Exception as e:  # noqa: BLE001 - the bench reports how each sample fared
            outcomes.append(f"{type(e).__name__}: {str(e).splitlines()[0][:200]}")
            hits.append(False)
        per_sample.append(round(time.perf_counter() - t, 2))
        print(f"  {sample.get('task_name', i)}: {per_sample[-1]} s, {outcomes[-1][:80]}", file=sys.stderr, flush=True)
    return {"wall_s": round(time.perf_counter() - t0, 2), "cpu_s": round(compiler_cpu_s() - cpu0, 1),
            "per_sample_s": per_sample, "outcomes": outcomes, "cache_hits": hits, "loadavg_after": os.getloadavg()}


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else round((xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2, 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--group", default="hip2hip", help="bundled sample folder")
    ap.add_argument("--samples", type=int, default=12, help="the first N rows (the bundle has 12)")
    ap.add_argument("--archs", default="gfx90a,gfx940", help="the hip-compile default")
    ap.add_argument("--old-rev", default=OLD_REV, help="git revision of the old path")
    ap.add_argument("--skip-old", action="store_true", help="only the working tree's path")
    ap.add_argument("--out", default="out/bench_hip_compile.json")
    args = ap.parse_args()
    import torch

    from kvdata.reverify.backends.hip_compile import HipCompileBackend

    archs = tuple(args.archs.split(","))
    samples = hip2hip_rows(args.group)[:args.samples]
    old_rev = subprocess.run(["git", "rev-parse", "--short", args.old_rev], cwd=REPO, check=True,
                             capture_output=True, text=True).stdout.strip()
    report = {"torch": torch.__version__, "group": args.group, "samples": len(samples), "archs": archs,
              "cpus": os.cpu_count(), "loadavg_start": os.getloadavg(), "old_rev": old_rev}
    with tempfile.TemporaryDirectory(prefix="bench-hip-") as tmp:
        tmp = Path(tmp)
        if not args.skip_old:
            print(f"old ({old_rev})", file=sys.stderr)
            report["old"] = compile_all(old_backend_class(args.old_rev)(archs=archs), samples, tmp / "old-cache",
                                        tmp / "old")
        print("new", file=sys.stderr)
        new = HipCompileBackend(archs=archs)
        t, cpu = time.perf_counter(), compiler_cpu_s()
        new.prepare(tmp / "new-shared")                 # the parent's once-per-toolchain headers
        report["new_headers_s"] = round(time.perf_counter() - t, 2)
        report["new_headers_cpu_s"] = round(compiler_cpu_s() - cpu, 1)
        report["new"] = compile_all(new, samples, tmp / "new-cache", tmp / "new")
        report["new"]["wall_s"] = round(report["new"]["wall_s"] + report["new_headers_s"], 2)
        report["new"]["cpu_s"] = round(report["new"]["cpu_s"] + report["new_headers_cpu_s"], 1)
        print("new rerun", file=sys.stderr)
        report["new_rerun"] = compile_all(new, samples, tmp / "new-cache", tmp / "new2")
    report["loadavg_end"] = os.getloadavg()

    print(f"torch {report['torch']}, {len(samples)} {args.group} samples, archs {','.join(archs)}, "
          f"{report['cpus']} cpus, load {report['loadavg_start'][0]:.1f} -> {report['loadavg_end'][0]:.1f}")
    print("| path | wall s (cold) | compiler CPU s | s/sample (median) | compiled | cache hits | load after |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    labels = {"old": f"old ({old_rev})", "new": f"new (incl. {report['new_headers_s']} s of headers)",
              "new_rerun": "new rerun"}
    for name in ("old", "new", "new_rerun"):
        if name in report:
            r = report[name]
            compiled = sum(o == "compiled" for o in r["outcomes"])
            print(f"| {labels[name]} | {r['wall_s']} | {r['cpu_s']} | {median(r['per_sample_s'])} "
                  f"| {compiled}/{len(samples)} | {sum(r['cache_hits'])} | {r['loadavg_after'][0]:.1f} |")
    if "old" in report:
        report["speedup_cold"] = round(report["old"]["wall_s"] / report["new"]["wall_s"], 2)
        report["speedup_cold_cpu"] = round(report["old"]["cpu_s"] / report["new"]["cpu_s"], 2)
        report["speedup_per_sample"] = round(median(report["old"]["per_sample_s"])
                                             / median(report["new"]["per_sample_s"]), 2)
        print(f"speedup, old / new, both from empty caches, headers included: {report['speedup_cold']}x wall, "
              f"{report['speedup_cold_cpu']}x compiler CPU; per sample once the headers exist (wall medians): "
              f"{report['speedup_per_sample']}x")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
