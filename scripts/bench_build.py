#!/usr/bin/env python
"""Benchmark `kvdata build` end to end on a synthetic corpus derived from the bundled sample.

The corpus: ``--rows`` input records split between a ``triton_table`` JSONL (Triton kernels with
their PyTorch references) and a ``hip_cudaagent`` JSONL (HIP extensions), made from the sample's
kernels by renaming their identifiers per row (so rows are distinct, Jaccard well below the
near-dup threshold) and appending a small generated helper. ``--header-share`` of the kernels
(default 0.3) start with a license header, as mined files do: MIT, BSD-2/3, Apache-2.0 notices,
GPL-2.0-or-later, SPDX lines (``MIT OR Apache-2.0`` among them), each with its own years and
copyright holder, so ScanCode (``kvdata.licenses``) has work to do. ~1% of the records are corrupted
(truncated JSON, empty code, unknown or malformed license expressions, references without
``class Model``), ~2% are exact copies (comments/blank lines changed) and ~2% near copies (one
small edit) of earlier rows, so every step of the pipeline does work.

ScanCode's detections are cached in ``$KVDATA_CACHE/licenses``; every build here gets an empty
cache folder (``--license-cache cold``, the default: the index is loaded, every header detected)
or one the first build filled (``warm``: a rebuild of the same corpus).

Each configuration in ``--workers`` is built in a fresh child process (so its peak RSS is its
own): read -> ledger -> checks -> licenses -> spill + fingerprints -> priority dedup -> parquet ->
card. ``--repeat`` builds each configuration several times, interleaved (0, 2, 0, 2, ...), so that
the variants see the same machine load; the table shows every run and the JSON keeps them all,
with the 1-minute load average before and after each run. Columns: rows, seconds, rows/s, CPU
seconds (build process + workers), peak RSS of the build process and of its largest child process (a
worker, or with ``--workers`` the license service once it holds ScanCode's index, ~1.4 GB).

    python scripts/bench_build.py --rows 100000 --workers 0,2 --repeat 2 --json out/bench_build.json
    python scripts/bench_build.py --rows 100000 --workers 2 --license-cache cold,warm   # ScanCode's cost
    python scripts/bench_build.py --rows 100000 --workers 2 --header-share 0            # no headers at all
    python scripts/bench_build.py --rows 100000 --workers 2 --large-share 0.02          # 2% of kernels 20-100 kB
    python scripts/bench_build.py --rows 100000 --workers 0,2 --license-cache cold,warm --repeat 2 --against 1aa2589

``--layouts sample,v01,v01-tar`` builds the same ``--variants`` HIP-GPUMode variants (4 per task) laid out three
ways instead, side by side: kvdata's sample naming (``pytorch_code_module/<task>.py``, ``hip_code/<task>_<n>.hip``),
AMD's v0.1 tree (``py_<id>.py``, ``py_<id>_func.py``, ``hip_opt/<id>/*.hip`` + ``info.json``; written by
scripts/release_fixtures.py), and the same tree with ``hip_opt`` packed as ``hip_opt.tar.gz``:

    python scripts/bench_build.py --layouts sample,v01,v01-tar --variants 20000 --workers 0 --repeat 2
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KEEP = {
    # python
    "def", "class", "return", "import", "from", "as", "for", "in", "range", "if", "else", "elif", "and", "or",
    "not", "is", "None", "True", "False", "self", "super", "with", "while", "lambda", "pass", "assert", "yield",
    "int", "float", "len", "min", "max", "abs", "print", "tuple", "list", "dict",
    "triton", "tl", "torch", "nn", "F", "math", "forward", "get_inputs", "get_init_inputs", "jit", "constexpr",
    "cdiv", "program_id", "arange", "load", "store", "where", "sum", "exp", "log", "sqrt", "maximum", "minimum",
    "numel", "empty_like", "empty", "zeros", "contiguous", "shape", "device", "dtype", "float32", "functional",
    # c++ / hip
    "include", "extension", "torch", "void", "const", "auto", "static", "inline", "template", "typename",
    "__global__", "__device__", "__forceinline__", "__restrict__", "float", "double", "int64_t", "int32_t",
    "size_t", "unsigned", "bool", "struct", "namespace", "PYBIND11_MODULE", "TORCH_EXTENSION_NAME", "m", "def",
    "hip", "hipLaunchKernelGGL", "dim3", "blockIdx", "blockDim", "threadIdx", "gridDim", "x", "y", "z",
    "Tensor", "TORCH_CHECK", "at", "kFloat", "std", "fmaxf", "fminf", "expf", "logf", "sqrtf", "tanhf",
    "hip_runtime", "runtime", "h", "hipStream_t", "getCurrentHIPStream", "cuda", "hipGetLastError",
}
_IDENT = re.compile(r"(?<![.:>\w])([a-z_][a-z0-9_]*)\b(?!::)")


def vary(code: str, rng: random.Random, tag: int) -> str:
    """Rename the code's own lowercase identifiers with a per-row suffix and append a small helper."""
    suffix = f"_{tag:x}"
    code = _IDENT.sub(lambda m: m.group(1) if m.group(1) in KEEP or m.group(1).startswith("__") else
                      m.group(1) + suffix, code)
    a, b, c = (rng.randrange(2, 997) for _ in range(3))
    helper_py = f"\n\ndef helper{suffix}(v{suffix}):\n    return v{suffix} * {a} + {b} - {c} // {a}\n"
    helper_c = f"\n\nstatic inline int helper{suffix}(int v{suffix}) {{ return v{suffix} * {a} + {b} - {c} / {a}; }}\n"
    return code + (helper_c if "PYBIND11_MODULE" in code else helper_py)


BAD_LICENSES = ("Some-Custom-License", "MIT AND", "(MIT OR Apache-2.0", "MIT OR OR BSD-3-Clause",
                "LicenseRef-scancode-unknown", "GPL-3.0-only AND MIT")

_MIT = """Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in
all copies or substantial portions of the Software."""
_BSD2 = """Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this
   list of conditions and the following disclaimer.
2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution."""
_BSD3 = _BSD2 + """
3. Neither the name of the copyright holder nor the names of its
   contributors may be used to endorse or promote products derived from
   this software without specific prior written permission."""
# the sample's own Apache-2.0 notice, without its copyright line
_APACHE = (Path(__file__).resolve().parents[1] / "builders" / "sample" / "hip_cudaagent" / "LICENSE").read_text() \
    .split("\n", 2)[2].strip()
_GPL2 = """This program is free software; you can redistribute it and/or modify
it under the terms of the GNU General Public License as published by
the Free Software Foundation; either version 2 of the License, or
(at your option) any later version."""
HEADER_TEXTS = (_MIT, _BSD2, _BSD3, _APACHE, _GPL2, "SPDX-License-Identifier: MIT",
                "SPDX-License-Identifier: Apache-2.0", "SPDX-License-Identifier: MIT OR Apache-2.0")
HOLDERS = ("Advanced Micro Devices, Inc.", "The Triton Authors", "Meta Platforms, Inc.", "a contributor",
           "NVIDIA CORPORATION", "Tri Dao", "OpenAI")


def grow(code: str, rng: random.Random, size: int, tag: int) -> str:
    """``code`` grown past ``size`` characters with renamed copies of itself (each copy's own identifiers get
    their own suffix, so the file stays valid code, as a real file holding many kernels does): the real corpus
    has files up to ~100 kB, a few percent of them over 20 kB."""
    parts, total, k = [code], len(code), 0
    while total < size:
        k += 1
        part = "\n\n" + vary(code, rng, tag * 1000 + k)
        parts.append(part)
        total += len(part)
    return "".join(parts)


def license_header(rng: random.Random, c_style: bool) -> str:
    """A license header for a kernel file: one of HEADER_TEXTS, a copyright line with its own years."""
    body = rng.choice(HEADER_TEXTS)
    first = rng.randrange(2015, 2025)
    lines = [f"Copyright (c) {first}-{first + rng.randrange(0, 3)} {rng.choice(HOLDERS)}", ""] + body.split("\n")
    if c_style:
        return "/*\n" + "\n".join(f" * {l}".rstrip() for l in lines) + "\n */\n"
    return "\n".join(f"# {l}".rstrip() for l in lines) + "\n"


def corrupt(line: str, rng: random.Random, kernel_key: str, ref_key: str, license_key: str) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return line[: rng.randrange(5, max(6, len(line) // 2))]
    rec = json.loads(line)
    if kind == 1:
        rec[kernel_key] = "   "
    elif kind == 2:
        rec[license_key] = rng.choice(BAD_LICENSES)
        rec[kernel_key] = re.sub(r"\A(/\*.*?\*/\n|(#[^\n]*\n)+)", "", rec[kernel_key], flags=re.S)  # no header
    else:
        rec[ref_key] = rec[ref_key].replace("class Model(", "class NotModel(")
    return json.dumps(rec)


def write_corpus(folder: Path, rows: int, seed: int = 7, header_share: float = 0.3, large_share: float = 0.0,
                 large_bytes: int = 100_000) -> dict[str, object]:
    """Write the synthetic raw inputs; returns their paths and what was planted."""
    from kvdata.buildconfig import sample_root
    from kvdata.builders.common import check_hip_extension, check_reference, check_triton_kernel
    from kvdata.licenses import DEFAULT_ALLOW, try_canonical

    def allowed(lic) -> bool:      # SPDX ids only: this process must not load ScanCode (its RSS is the builds')
        return lic in (None, "") or try_canonical(lic) in DEFAULT_ALLOW

    rng = random.Random(seed)
    sample = sample_root()
    table = [json.loads(l) for l in (sample / "triton" / "table" / "agent_outputs.jsonl").read_text().splitlines()
             if l.strip()]
    table = [r for r in table if check_reference(r.get("ref")) is None and check_triton_kernel(r.get("triton")) is None
             and allowed(r.get("lic"))]
    agent = []
    for line in (sample / "hip_cudaagent" / "cudaagent.jsonl").read_text().splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(r, dict) and check_hip_extension(r.get("hip_code")) is None \
                and check_reference(r.get("pytorch_code")) is None and allowed(r.get("license")):
            agent.append(r)
    (folder / "table").mkdir(parents=True, exist_ok=True)
    (folder / "agent").mkdir(parents=True, exist_ok=True)
    planted = {"corrupt": 0, "exact_copies": 0, "near_copies": 0, "license_headers": 0, "large_kernels": 0}
    n_agent = rows * 3 // 10
    specs = (("table", folder / "table" / "rows.jsonl", rows - n_agent, table, "triton", "ref", "lic", "name"),
             ("agent", folder / "agent" / "rows.jsonl", n_agent, agent, "hip_code", "pytorch_code", "license",
              "task_name"))
    tag = 0
    for _, path, n, bases, kkey, rkey, lkey, nkey in specs:
        recent: list[dict] = []
        with open(path, "w") as f:
            for i in range(n):
                u = rng.random()
                if u < 0.02 and recent:             # exact copy: blank lines and a comment added
                    rec = dict(rng.choice(recent))
                    rec[kkey] = ("// copy\n" if kkey == "hip_code" else "# copy\n") + rec[kkey].replace("\n", "\n\n", 3)
                    rec[nkey] = f"{rec[nkey]}_x{i}"
                    planted["exact_copies"] += 1
                elif u < 0.04 and recent:           # near copy: one constant changed
                    rec = dict(rng.choice(recent))
                    rec[kkey] = re.sub(r"\d+", lambda m: str(int(m.group()) + 1), rec[kkey], count=1)
                    rec[nkey] = f"{rec[nkey]}_n{i}"
                    planted["near_copies"] += 1
                else:
                    base = rng.choice(bases)
                    tag += 1
                    rec = dict(base)
                    rec[kkey] = vary(base[kkey], rng, tag)
                    if large_share and rng.random() < large_share:
                        rec[kkey] = grow(rec[kkey], rng, rng.randrange(large_bytes // 5, large_bytes + 1), tag)
                        planted["large_kernels"] += 1
                    if rng.random() < header_share:
                        rec[kkey] = license_header(rng, kkey == "hip_code") + rec[kkey]
                        planted["license_headers"] += 1
                    rec[nkey] = f"{base[nkey]}_{tag}"
                    rec.setdefault(lkey, "MIT")
                    if not rec.get(lkey):
                        rec[lkey] = "MIT"
                    recent.append(rec)
                    if len(recent) > 200:
                        recent.pop(0)
                line = json.dumps(rec)
                if rng.random() < 0.01:
                    line = corrupt(line, rng, kkey, rkey, lkey)
                    planted["corrupt"] += 1
                f.write(line + "\n")
    (folder / "agent" / "LICENSE").write_text((sample / "hip_cudaagent" / "LICENSE").read_text())
    return {"table": str(specs[0][1]), "agent": str(folder / "agent"), "planted": planted}


ROOT = Path(__file__).resolve().parents[1]


def export_revision(rev: str, into: Path) -> Path:
    """The kvdata sources at git revision ``rev`` of this checkout, written to ``into``."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "kvdata", "builders", "audit", "cards"],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        sys.exit(f"--against {rev}: {archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def package_farm(tree: Path, into: Path) -> Path:
    """A folder to put first on PYTHONPATH so that ``import kvdata`` is ``tree``'s code: ``kvdata/`` links to
    ``tree/kvdata``'s files, with ``builders``, ``audit`` and ``cards`` beside them (the layout pyproject's
    package-dir installs). Both sides of a comparison import through one, so they start up alike."""
    pkg = into / "kvdata"
    pkg.mkdir(parents=True)
    for entry in (tree / "kvdata").iterdir():
        (pkg / entry.name).symlink_to(entry)
    for sub in ("builders", "audit", "cards"):
        (pkg / sub).symlink_to(tree / sub)
    return into


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the fingerprint workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def write_layouts(folder: Path, variants: int, layouts: list[str]) -> dict[str, dict]:
    """The same gpumode variants in each of ``layouts`` (``sample``, ``v01``, ``v01-tar``): {layout: corpus}."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import release_fixtures as rf

    per_task = 4
    tasks = max(1, variants // per_task)
    out: dict[str, dict] = {}
    for layout in layouts:
        if layout == "sample":
            root = folder / "sample"
            (root / "pytorch_code_module").mkdir(parents=True)
            (root / "pytorch_code_functional").mkdir()
            (root / "hip_code").mkdir()
            (root / "LICENSE").write_text(rf.MIT)
            for i in range(tasks):
                task = rf.sample_id(i)
                (root / "pytorch_code_module" / f"{task}.py").write_text(rf.module_code(i))
                (root / "pytorch_code_functional" / f"{task}.py").write_text(rf.functional_code(i))
                for k in range(per_task):
                    (root / "hip_code" / f"{task}_{k}.hip").write_text(rf.hip_code(i, k))
            out[layout] = {"sources": [["hip_gpumode", str(root)]], "planted": f"{tasks} tasks x {per_task}"}
        elif layout in ("v01", "v01-tar"):
            release = folder / layout / "AIG-Datasets"
            rf.write_v01(release, tasks, per_task, pack="tar.gz" if layout == "v01-tar" else "", orphans=False)
            out[layout] = {"sources": [["hip_gpumode", str(release)]], "planted": f"{tasks} tasks x {per_task}"}
        else:
            sys.exit(f"--layouts takes sample, v01 and v01-tar, not {layout!r}")
    return out


def build_config(corpus: dict, workers: int):
    """The BuildConfig of a corpus :func:`write_corpus` made (also used by bench_export.py)."""
    from kvdata.buildconfig import BuildConfig
    from kvdata.builders.base import SourceSpec

    if "sources" in corpus:                 # a --layouts corpus
        return BuildConfig(sources=[SourceSpec(kind, path) for kind, path in corpus["sources"]],
                           workers=workers).validate()
    return BuildConfig(sources=[
        SourceSpec("triton_table", corpus["table"], (("columns", {"task_name": "name", "pytorch_code": "ref",
                                                                  "kernel_code": "triton", "license": "lic",
                                                                  "generator": "model"}),)),
        SourceSpec("hip_cudaagent", corpus["agent"]),
    ], workers=workers).validate()


def run_child(args) -> None:
    """Build in this (fresh) process and print one JSON line with the timings and peak RSS."""
    from kvdata.pipeline import build

    corpus = json.loads(args.child)
    cfg = build_config(corpus, args.workers_one)
    t0, c0 = time.perf_counter(), _cpu()
    result = build(cfg, corpus["out"], progress=False)
    seconds, cpu = time.perf_counter() - t0, _cpu() - c0
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps({
        "workers": args.workers_one, "seconds": seconds, "cpu_seconds": cpu, "input": result.accounting["totals"]["input"],
        "kept": result.accounting["totals"]["kept"], "rejected": result.accounting["totals"]["rejected"],
        "duplicates": result.accounting["totals"]["duplicates"], "reconciles": result.accounting["reconciles"],
        "peak_rss_mb": self_kb / 1024, "worker_peak_rss_mb": child_kb / 1024, "steps": result.step_seconds,
    }))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000, help="input records to synthesise (default 100000)")
    ap.add_argument("--workers", default="0,2", help="comma list of worker process counts to compare (default 0,2)")
    ap.add_argument("--repeat", type=int, default=1, help="builds per worker count, interleaved (default 1)")
    ap.add_argument("--header-share", type=float, default=0.3,
                    help="share of kernels that start with a license header (default 0.3)")
    ap.add_argument("--large-share", type=float, default=0.0,
                    help="share of kernels grown to between a fifth of --large-bytes and --large-bytes (default 0)")
    ap.add_argument("--large-bytes", type=int, default=100_000, help="largest grown kernel (default 100000)")
    ap.add_argument("--license-cache", default="cold",
                    help="comma list of cold (empty ScanCode cache per build) / warm (one filled by an unmeasured "
                         "first build); default cold")
    ap.add_argument("--against", metavar="REV",
                    help="also build every configuration with kvdata at git revision REV of this checkout, "
                         "interleaved, and print after/before ratios (the side-by-side comparison)")
    ap.add_argument("--layouts", help="instead of --rows: comma list of sample, v01, v01-tar (the same gpumode "
                                      "variants in kvdata's sample naming, AMD's v0.1 tree, and v0.1 with hip_opt as a tar)")
    ap.add_argument("--variants", type=int, default=20_000, help="gpumode variants for --layouts (default 20000)")
    ap.add_argument("--json", dest="json_path", help="write the results here")
    ap.add_argument("--dir", help="work folder (default: a temporary one)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--workers-one", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        run_child(args)
        return

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        if args.layouts:
            corpora = write_layouts(tmp / "raw", args.variants, [x.strip() for x in args.layouts.split(",")])
            corpus = {"planted": next(iter(corpora.values()))["planted"]}
        else:
            corpus = write_corpus(tmp / "raw", args.rows, header_share=args.header_share,
                                  large_share=args.large_share, large_bytes=args.large_bytes)
            corpora = {"synthetic": corpus}
        gen_s = time.perf_counter() - t0
        modes = [m.strip() for m in args.license_cache.split(",")]
        if set(modes) - {"cold", "warm"}:
            sys.exit(f"--license-cache takes cold and/or warm, not {args.license_cache!r}")
        workers = [int(x) for x in args.workers.split(",")]

        # which kvdata each build imports: this checkout, and with --against the tree of that revision
        codes = {"this": package_farm(ROOT, tmp / "pkg-this")}
        if args.against:
            codes[args.against] = package_farm(export_revision(args.against, tmp / "tree-against"), tmp / "pkg-against")

        def one_build(w: int, cache: Path, code: str, layout: str = "synthetic") -> dict:
            child = json.dumps({**corpora[layout], "out": str(tmp / f"out{w}-{layout}")})
            load_before = os.getloadavg()[0]
            proc = subprocess.run([sys.executable, __file__, "--child", child, "--workers-one", str(w)],
                                  capture_output=True, text=True,
                                  env=dict(os.environ, TQDM_DISABLE="1", KVDATA_CACHE=str(cache),
                                           PYTHONPATH=str(codes[code])))
            if proc.returncode != 0:
                sys.exit(f"build with workers={w} ({code}) failed:\n{proc.stderr[-3000:]}")
            result = json.loads(proc.stdout.strip().splitlines()[-1])
            result["load_before"], result["load_after"] = load_before, os.getloadavg()[0]
            result["code"], result["layout"] = code, layout
            return result

        if "warm" in modes:
            for code in codes:                              # fills each code's warm cache, not measured
                one_build(workers[0], tmp / f"cache-warm-{code}", code, next(iter(corpora)))
        results = []
        for run in range(args.repeat):
            for w in workers:
                for mode in modes:
                    # the codes (and layouts) take turns going first, so none always meets the box after another
                    for code in (list(codes) if run % 2 == 0 else list(codes)[::-1]):
                        for layout in (list(corpora) if run % 2 == 0 else list(corpora)[::-1]):
                            cache = tmp / (f"cache-warm-{code}" if mode == "warm"
                                           else f"cache-cold-{run}-{w}-{code}-{layout}")
                            results.append({**one_build(w, cache, code, layout), "license_cache": mode})

    steps = sorted({k for r in results for k in r["steps"]})
    what = f"{args.variants} gpumode variants in layouts {', '.join(corpora)}" if args.layouts else \
        f"synthetic corpus: {args.rows} records"
    print(f"{what} ({corpus['planted']}), generated in {gen_s:.1f}s; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    header = (f"{'layout':>9} {'code':>8} {'workers':>7} {'cache':>5} {'input':>8} {'kept':>8} {'rejected':>8} {'dups':>6} {'seconds':>8} {'rows/s':>8} "
              f"{'cpu s':>7} {'rows/cpu-s':>10} {'RSS MB':>7} {'wRSS MB':>7} {'load':>9}  ok")
    print(header)
    print("-" * len(header))
    for r in results:
        r["rows_per_s"] = r["input"] / r["seconds"]
        r["rows_per_cpu_s"] = r["input"] / r["cpu_seconds"]
        print(f"{r['layout'][:9]:>9} {r['code'][:8]:>8} {r['workers']:>7} {r['license_cache']:>5} {r['input']:>8} {r['kept']:>8} {r['rejected']:>8} {r['duplicates']:>6} "
              f"{r['seconds']:>8.1f} {r['rows_per_s']:>8.0f} {r['cpu_seconds']:>7.1f} {r['rows_per_cpu_s']:>10.0f} "
              f"{r['peak_rss_mb']:>7.0f} {r['worker_peak_rss_mb']:>7.0f} {r['load_before']:>4.1f}-{r['load_after']:<4.1f}"
              f"  {'yes' if r['reconciles'] else 'NO'}")
    print("\nper-step seconds: read = the builders (parsing, checks) in-process, or only reading raw records when the\n"
          "builders run in workers (to_records); steps run in workers add up the workers' seconds; wait = main idle")
    print(f"{'step':<18}" + "".join(f"{'w=' + str(r['workers']) + r['license_cache'][0]:>10}" for r in results))
    for s in steps:
        print(f"{s:<18}" + "".join(f"{r['steps'].get(s, 0.0):>10.2f}" for r in results))
    if args.against:
        print(f"\nafter/before: median seconds with {args.against} / median seconds with this checkout")
        for w in workers:
            for mode in modes:
                def median(code):
                    xs = sorted(r["seconds"] for r in results
                                if r["workers"] == w and r["license_cache"] == mode and r["code"] == code)
                    return xs[len(xs) // 2]
                print(f"  workers={w} {mode}: {median(args.against):.1f} s -> {median('this'):.1f} s = "
                      f"{median(args.against) / median('this'):.2f}x")
    if len(corpora) > 1:
        first = next(iter(corpora))
        for w in workers:
            def layout_median(layout):
                xs = sorted(r["seconds"] for r in results
                            if r["layout"] == layout and r["code"] == "this" and r["workers"] == w)
                return xs[len(xs) // 2]
            print(f"\nworkers={w}: median seconds per layout (ratio to {first}): " + ", ".join(
                f"{layout} {layout_median(layout):.1f} s ({layout_median(layout) / layout_median(first):.2f}x)"
                for layout in corpora))
            if "v01" in corpora and "v01-tar" in corpora:
                print(f"workers={w}: tar / folder {layout_median('v01-tar') / layout_median('v01'):.2f}x")
    best: dict[int, dict] = {}
    for r in results:
        if r["license_cache"] != modes[0] or r["code"] != "this":
            continue
        if r["workers"] not in best or r["seconds"] < best[r["workers"]]["seconds"]:
            best[r["workers"]] = r
    if len(best) > 1:
        base = best[min(best)]
        for w, r in sorted(best.items()):
            if r is not base:
                print(f"\nspeed-up workers={w} vs workers={base['workers']} (best runs): "
                      f"{base['seconds'] / r['seconds']:.2f}x")
    if args.json_path:
        Path(args.json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json_path).write_text(json.dumps({"rows": args.rows, "planted": corpus["planted"],
                                                    "layouts": list(corpora), "variants": args.variants,
                                                    "header_share": args.header_share, "against": args.against,
                                                    "large_share": args.large_share, "large_bytes": args.large_bytes,
                                                    "generate_seconds": gen_s, "cpu_count": os.cpu_count(),
                                                    "load_average": os.getloadavg()[0],
                                                    "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
