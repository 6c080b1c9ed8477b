#!/usr/bin/env python3
"""Black-box runner for the `kvdata build` red-team cases (tests/build_redteam/cases/*/case.json).

For each case: copy the case folder to a scratch directory (links kept as links), apply its `setup` steps
(pad a placeholder into a huge line, expand a template into many lines, mkdir, chmod, substitute the
scratch path, copy a file of the bundled sample), write a YAML build file
with absolute source paths, run

    kvdata build --out OUT --quiet --workers W --config build.yaml

and compare OUT/accounting.json, OUT/rejects.parquet and OUT/data/**/*.parquet with the case's `expected`.
Uses only the CLI, json and pyarrow (never imports kvdata).

    python tests/build_redteam/run_cases.py [--workers 0] [--case ID ...] [--also-workers 2] [--keep DIR] [-v]

`--also-workers N` runs every case a second time with N workers and also reports any difference between
the two builds (accounting, rejects, row ids and licenses), whatever the expectations say.

Expected format (per source name; the name is the kind unless the source has a `name` option):
    {"input": 4, "kept": 3, "rejected": {"bad_json": 1, "a|b": 2}, "duplicates": 0 | {"duplicate_exact": 1},
     "rows": [{"match": {"task_name": "x"}, "license": "MIT", "license_source": "declared",
               "license_relied_on": "MIT", "contains": {"kernel_code": "text"}}],
     "rejects": [{"reason": "bad_json", "ref_endswith": "t.jsonl:2"}]}
A `rejected` key "a|b" accepts any of those reasons (their counts are summed); reasons not named must be 0.
A case with "root_can_read": true uses "expected_if_readable" when its chmod-000 file can still be read
(running as root). A case with "expected_cli_error": {"exit": 2, "stderr_contains": "..."} expects the CLI to
refuse the build before reading anything.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
SAMPLE = HERE.parent.parent / "builders" / "sample"


# ----------------------------------------------------------------------------------------- setup
def prepare(case_dir: Path, work: Path, spec: dict) -> tuple[Path, bool]:
    """Copy the case to work/case and apply setup; returns (root, chmod_target_readable)."""
    root = work / "case"
    shutil.copytree(case_dir, root, symlinks=True)
    readable = True
    for step in spec.get("setup", []):
        op = step["op"]
        if op == "pad":
            p = root / step["file"]
            data = p.read_bytes()
            ph = step["placeholder"].encode()
            assert ph in data, f"placeholder {ph!r} not in {p}"
            p.write_bytes(data.replace(ph, (step["char"] * step["count"]).encode()))
        elif op == "expand_lines":
            p = root / step["file"]
            data = p.read_bytes()
            ph = step["placeholder"].encode()
            assert data.count(ph) == 1, f"placeholder {ph!r} not once in {p}"
            block = step["nl"].join(step["template"].replace("@@I@@", str(i))
                                    for i in range(step["start"], step["start"] + step["count"]))
            p.write_bytes(data.replace(ph, block.encode("utf-8")))
        elif op == "mkdir":
            (root / step["path"]).mkdir(parents=True, exist_ok=True)
        elif op == "chmod":
            p = root / step["path"]
            os.chmod(p, int(step["mode"], 8))
            try:
                with open(p, "rb") as fh:
                    fh.read(1)
                readable = True
            except OSError:
                readable = False
        elif op == "copy_sample":      # a file of the bundled sample, copied in unchanged (not stored twice)
            p = root / step["to"]
            p.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(SAMPLE / step["from"], p)
        elif op == "substitute":
            p = root / step["file"]
            p.write_bytes(p.read_bytes().replace(step["placeholder"].encode(), str(root).encode()))
        else:
            raise ValueError(f"unknown setup op {op!r}")
    return root, readable


def write_config(spec: dict, root: Path, path: Path) -> None:
    sources = []
    for s in spec["sources"]:
        sources.append({"kind": s["kind"], "path": str(root / s["path"]), "options": s.get("options") or {}})
    cfg = {"sources": sources}
    if spec.get("allow_license") is not None:
        cfg["allow_license"] = spec["allow_license"]
    # JSON is YAML; ensure_ascii keeps the file plain ASCII.
    path.write_text(json.dumps(cfg, indent=1, ensure_ascii=True) + "\n")


def source_names(spec: dict) -> list[str]:
    return [(s.get("options") or {}).get("name", s["kind"]) for s in spec["sources"]]


# ----------------------------------------------------------------------------------------- build
#: run the CLI in this process (click's test runner) instead of a subprocess: the same command, without a
#: Python start-up per build (the test suite's way; set by --in-process)
IN_PROCESS = False


def run_cli(args: list[str]) -> tuple[object, str, str]:
    """(exit code, stdout, stderr) of ``kvdata ARGS``."""
    if IN_PROCESS:
        from click.testing import CliRunner

        from kvdata.cli import main as kvdata_main

        r = CliRunner().invoke(kvdata_main, args, catch_exceptions=True)
        stderr = r.stderr if r.stderr_bytes is not None else ""
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            stderr += f"{type(r.exception).__name__}: {r.exception}"
        return r.exit_code, r.stdout, stderr
    try:
        p = subprocess.run(["kvdata", *args], capture_output=True, text=True, errors="replace", timeout=900)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return "timeout", str(e.stdout or ""), str(e.stderr or "")


def build(spec: dict, root: Path, work: Path, workers: int, tag: str) -> dict:
    cfg = work / f"build_{tag}.yaml"
    write_config(spec, root, cfg)
    out = work / f"out_{tag}"
    # --allow-empty: the cases judge what a build records (rejects, accounting), also of builds that keep no row,
    # which are an error by default since issue 23
    rc, stdout, stderr = run_cli(["build", "--out", str(out), "--quiet", "--workers", str(workers), "--allow-empty",
                                  "--config", str(cfg)])
    res = {"rc": rc, "stdout": stdout, "stderr": stderr, "out": out, "accounting": None, "rejects": [], "rows": []}
    if rc != 0:
        return res
    acc = out / "accounting.json"
    if acc.exists():
        res["accounting"] = json.loads(acc.read_text())
    rj = out / "rejects.parquet"
    if rj.exists():
        res["rejects"] = pq.read_table(rj).to_pylist()
    for f in sorted((out / "data").rglob("*.parquet")) if (out / "data").exists() else []:
        res["rows"].extend(pq.read_table(f).to_pylist())
    return res


# ------------------------------------------------------------------------------------- comparing
def short(v, n=160):
    s = repr(v)
    return s if len(s) <= n else s[:n] + "..."


def check_source(name: str, exp: dict, res: dict) -> list[str]:
    diffs = []
    acc = (res["accounting"] or {}).get("sources", {}).get(name)
    if acc is None:
        return [f"{name}: no entry in accounting.json (sources: {sorted((res['accounting'] or {}).get('sources', {}))})"]
    for k in ("input", "kept"):
        if acc.get(k) != exp[k]:
            diffs.append(f"{name}.{k}: expected {exp[k]}, got {acc.get(k)}")
    got_rej = dict(acc.get("rejected") or {})
    remaining = dict(got_rej)
    for key, n in exp.get("rejected", {}).items():
        alts = key.split("|")
        got_n = sum(remaining.pop(a, 0) for a in alts)
        if got_n != n:
            diffs.append(f"{name}.rejected[{key}]: expected {n}, got {got_n}")
    extra = {k: v for k, v in remaining.items() if v}
    if extra:
        diffs.append(f"{name}.rejected: unexpected {extra}")
    d_exp = exp.get("duplicates", 0)
    if isinstance(d_exp, int):
        if acc.get("duplicates_total", 0) != d_exp:
            diffs.append(f"{name}.duplicates_total: expected {d_exp}, got {acc.get('duplicates_total')} "
                         f"{acc.get('duplicates') or {}}")
    else:
        got_d = {k: v for k, v in (acc.get("duplicates") or {}).items() if v}
        if got_d != d_exp:
            diffs.append(f"{name}.duplicates: expected {d_exp}, got {got_d}")
    # internal consistency: the ledger reconciles and rejects.parquet agrees with it
    tot = acc.get("kept", 0) + acc.get("rejected_total", 0) + acc.get("duplicates_total", 0)
    if tot != acc.get("input") or acc.get("reconciles") is False:
        diffs.append(f"{name}: does not reconcile (input {acc.get('input')} vs kept+rejected+dups {tot}, "
                     f"reconciles={acc.get('reconciles')})")
    my_rej = [r for r in res["rejects"] if r.get("source") == name]
    by_reason: dict[str, int] = {}
    for r in my_rej:
        by_reason[r["reason"]] = by_reason.get(r["reason"], 0) + 1
    want = {k: v for k, v in got_rej.items() if v}
    want.update({k: v for k, v in (acc.get("duplicates") or {}).items() if v})
    if by_reason != want:
        diffs.append(f"{name}: rejects.parquet reasons {by_reason} != accounting {want}")
    for rx in exp.get("rejects", []):
        hits = [r for r in my_rej if r["reason"] == rx["reason"]
                and str(r.get("ref", "")).endswith(rx.get("ref_endswith", ""))
                and rx.get("message_contains", "") in str(r.get("message", ""))]
        if not hits:
            diffs.append(f"{name}: no reject {rx}; got {[(r['reason'], r['ref']) for r in my_rej]}")
    # rows
    my_rows = [r for r in res["rows"] if r.get("source") == name]
    if len(my_rows) != acc.get("kept"):
        diffs.append(f"{name}: {len(my_rows)} rows in data/ but accounting says kept {acc.get('kept')}")
    for rx in exp.get("rows", []):
        hits = [r for r in my_rows if all(r.get(k) == v for k, v in rx["match"].items())]
        if len(hits) != 1:
            diffs.append(f"{name}: row {rx['match']}: expected 1 kept row, found {len(hits)}")
            continue
        r = hits[0]
        for k in ("license", "license_source", "license_relied_on"):
            if k in rx and r.get(k) != rx[k]:
                diffs.append(f"{name}: row {rx['match']}: {k} expected {rx[k]!r}, got {r.get(k)!r}")
        for col, sub in (rx.get("contains") or {}).items():
            if sub not in (r.get(col) or ""):
                diffs.append(f"{name}: row {rx['match']}: {col} does not contain {short(sub, 60)}")
    return diffs


def fingerprint(res: dict) -> dict:
    """What must not depend on the worker count."""
    acc = res["accounting"] or {}
    src = {n: {k: v for k, v in s.items() if k in ("input", "kept", "rejected", "duplicates", "reconciles")}
           for n, s in acc.get("sources", {}).items()}
    rej = sorted((r["source"], r["ref"], r["reason"], r.get("id") or "") for r in res["rejects"])
    rows = sorted((r["source"], r["id"], r.get("license"), r.get("license_source"), r.get("license_relied_on"))
                  for r in res["rows"])
    return {"accounting": src, "rejects": rej, "rows": rows}


def run_case(case_dir: Path, workers: int, also: int | None, keep: Path | None, verbose: bool):
    spec = json.loads((case_dir / "case.json").read_text())
    work = Path(tempfile.mkdtemp(prefix=f"kvrt_{case_dir.name}_", dir=keep))
    try:
        root, readable = prepare(case_dir, work, spec)
        expected = spec["expected"]
        mode = ""
        if spec.get("root_can_read") and readable:
            expected = spec["expected_if_readable"]
            mode = " [root_can_read]"
        res = build(spec, root, work, workers, f"w{workers}")
        cli_error = spec.get("expected_cli_error")
        if cli_error is not None:      # a configuration mistake the CLI refuses before reading anything
            ok = res["rc"] == cli_error["exit"] and cli_error["stderr_contains"] in (res["stderr"] or "")
            return ok, [] if ok else [f"expected exit {cli_error['exit']} with {cli_error['stderr_contains']!r}, "
                                      f"got {res['rc']}: {(res['stderr'] or '')[-300:]}"], " [cli error]"
        if res["rc"] != 0:
            tail = (res["stderr"] or res["stdout"]).strip().splitlines()[-6:]
            return False, [f"kvdata build exited {res['rc']}: " + " | ".join(tail)], mode
        diffs = []
        names = source_names(spec)
        for name in names:
            if name not in expected:
                diffs.append(f"case.json has no expectation for source {name}")
                continue
            diffs += check_source(name, expected[name], res)
        if also is not None:
            res2 = build(spec, root, work, also, f"w{also}")
            if res2["rc"] != 0:
                diffs.append(f"--workers {also}: kvdata build exited {res2['rc']}")
            else:
                f1, f2 = fingerprint(res), fingerprint(res2)
                for k in f1:
                    if f1[k] != f2[k]:
                        diffs.append(f"workers {workers} vs {also} differ in {k}: {short(f1[k], 300)} vs {short(f2[k], 300)}")
        if verbose:
            for name in names:
                acc = (res["accounting"] or {}).get("sources", {}).get(name)
                print(f"    {name}: {json.dumps({k: acc.get(k) for k in ('input', 'kept', 'rejected', 'duplicates')}) if acc else None}")
                for r in res["rejects"]:
                    if r["source"] == name:
                        print(f"      reject {r['reason']:<20} {r['ref']}  {short(r.get('message'), 140)}")
                for r in res["rows"]:
                    if r["source"] == name:
                        print(f"      row    {r['task_name']:<20} {r.get('license')!s:<32} {r.get('license_source')} "
                              f"relied={r.get('license_relied_on')}")
        return not diffs, diffs, mode
    finally:
        for p in work.rglob("*"):  # undo chmod 000 so the scratch copy can be removed
            try:
                if not p.is_symlink():
                    os.chmod(p, 0o755 if p.is_dir() else 0o644)
            except OSError:
                pass
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--also-workers", type=int, default=None,
                    help="also build with this many workers and report differences between the two builds")
    ap.add_argument("--case", action="append", help="run only these case ids (repeatable)")
    ap.add_argument("--keep", type=Path, default=None, help="keep scratch folders under this directory")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each case's accounting, rejects and rows")
    ap.add_argument("--in-process", action="store_true",
                    help="run the CLI in this process (click's runner) instead of a subprocess per build")
    a = ap.parse_args(argv)
    global IN_PROCESS
    IN_PROCESS = a.in_process
    if not IN_PROCESS and shutil.which("kvdata") is None:
        print("kvdata is not on PATH", file=sys.stderr)
        return 2
    if a.keep:
        a.keep.mkdir(parents=True, exist_ok=True)
    dirs = sorted(d for d in CASES.iterdir() if (d / "case.json").exists())
    if a.case:
        dirs = [d for d in dirs if d.name in set(a.case)]
    passed = failed = 0
    for d in dirs:
        spec = json.loads((d / "case.json").read_text())
        ok, diffs, mode = run_case(d, a.workers, a.also_workers, a.keep, a.verbose)
        tag = f"({spec.get('certainty', '?')}){mode}"
        if ok:
            passed += 1
            print(f"PASS {d.name} {tag}")
        else:
            failed += 1
            print(f"FAIL {d.name} {tag}: " + "; ".join(diffs))
        sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
