#!/usr/bin/env python3
"""Black-box runner for the AMD-release red-team cases (tests/release_redteam/cases/*/case.json).

For each case: copy the case folder to a scratch directory, then for each of its builds run

    kvdata build --out OUT --quiet --workers W --source KIND=PATH ... --option KIND.key=VALUE ...

(from an empty working directory) and compare OUT/accounting.json, OUT/rejects.parquet and
OUT/data/**/*.parquet with the build's expectations; then run `kvdata sources --inspect PATH --json` for the
case's inspect expectations. Uses only the CLI (click's runner on `kvdata.cli.main` in each worker process,
or a subprocess per command with --subprocess), json and pyarrow; never kvdata's internals.

    python tests/release_redteam/run_cases.py [--jobs 2] [--workers 0] [--case ID ...] [-v] [--keep DIR] [--subprocess]

case.json:
  builds: [{name, sources: [{kind, path}], options: {"KIND.key": value}, expected | alternatives,
            cli_error_ok: "text" (a clean refusal naming this text also passes), distinct_source_names}]
    path: relative to the case folder, or "tar://<inside>::<archive relative to the case>".
    option values: "@case/x" becomes the absolute path of x; objects and lists are passed as JSON (= YAML).
    expected: {source name | "@path:<suffix of the entry's path>" | "@release:<suffix of name or path>": {
        input, kept, rejected: {"reason" | "a|b" | "*": n}, duplicates: n | {reason: n},
        rows: [{where: {col: v, "col~": substring, "struct.field": v}, expect: {...same forms...}}],
        rejects: [{reason: "a|b" | "*", any_contains, ref_contains, message_contains}],
        no_rows_contain: {col: substring}}}
    alternatives: a list of such `expected` dicts; the build passes if one of them matches.
  agree: build names whose rows (code, pairing, verification) and totals must be identical (or a list of such
         lists: each group agrees within itself);
         agree_sources: {build: [source names]} limits what is compared for a build.
  inspect: [{path, expect: {"folder" | "f1|f2": kind}, exact}] (exact: no other folder gets a kind).
  forbidden_files: names that must not appear anywhere in the scratch area after the builds.
Every build also checks: exit 0 (unless cli_error_ok), no traceback, every source reconciles, rejects.parquet
agrees with the accounting, data/ holds exactly `kept` rows per source, row ids are unique, and no source
appears that the expectation does not name.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
MARK = re.compile(r"@(?:HIP|MOD|FUNC|TRI):[^@\s]+@")


# ----------------------------------------------------------------------------------------- helpers
def short(v, n=200):
    s = repr(v)
    return s if len(s) <= n else s[:n] + "..."


def get(rowd: dict, dotted: str):
    cur = rowd
    for part in dotted.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return cur


def same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


def holds(rowd: dict, spec: dict) -> list[str]:
    """Differences between a row and {col: value, "col~": substring}."""
    out = []
    for k, v in spec.items():
        if k.endswith("~"):
            got = get(rowd, k[:-1])
            if not isinstance(got, str) or v not in got:
                out.append(f"{k[:-1]} lacks {v!r} (has {MARK.findall(got) if isinstance(got, str) else short(got, 60)})")
        else:
            got = get(rowd, k)
            if not same(got, v):
                out.append(f"{k} = {short(got, 80)}, expected {v!r}")
    return out


def markers(r: dict) -> str:
    parts = []
    for col in ("kernel_code", "baseline_kernel_code", "pytorch_code", "pytorch_functional_code"):
        v = r.get(col)
        if isinstance(v, str):
            parts.append(f"{col.split('_')[0][:4]}={','.join(MARK.findall(v)) or '?'}")
    return " ".join(parts)


def reasons_fit(expected: dict, got: dict) -> bool:
    """Can the got {reason: n} be split over the expected {"a|b" | "*" | reason: n} exactly?"""
    keys = [(None if k == "*" else set(k.split("|")), n) for k, n in expected.items()]
    keys.sort(key=lambda kn: (kn[0] is None, len(kn[0] or ())))
    units = [r for r, n in sorted(got.items()) for _ in range(n)]
    if sum(n for _, n in keys) != len(units):
        return False
    cap = [n for _, n in keys]

    def place(i):
        if i == len(units):
            return all(c == 0 for c in cap)
        for j, (ks, _) in enumerate(keys):
            if cap[j] and (ks is None or units[i] in ks):
                cap[j] -= 1
                if place(i + 1):
                    return True
                cap[j] += 1
        return False
    return place(0)


# ----------------------------------------------------------------------------------------- running
#: run the CLI through click's test runner inside the worker process (one import per process, the same
#: command line) instead of a subprocess per command; --subprocess turns it off
IN_PROCESS = True


def _init_worker(in_process: bool) -> None:
    global IN_PROCESS
    IN_PROCESS = in_process


def run_cli(args: list[str], cwd: Path) -> tuple[object, str, str]:
    """(exit code, stdout, stderr) of `kvdata ARGS` run from the folder cwd."""
    if IN_PROCESS:
        import traceback

        from click.testing import CliRunner

        from kvdata.cli import main as kvdata_main
        old = os.getcwd()
        os.chdir(cwd)
        try:
            r = CliRunner().invoke(kvdata_main, args, catch_exceptions=True)
        finally:
            os.chdir(old)
        try:
            stderr = r.stderr
        except ValueError:
            stderr = ""
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            stderr += "".join(traceback.format_exception(*r.exc_info))
        return r.exit_code, r.stdout, stderr
    try:
        p = subprocess.run(["kvdata", *args], capture_output=True, text=True, errors="replace", timeout=600,
                           cwd=cwd)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return "timeout", str(e.stdout or ""), str(e.stderr or "")


def resolve_path(root: Path, p: str) -> str:
    if p.startswith("tar://"):
        inner, arch = p[len("tar://"):].split("::", 1)
        return f"tar://{inner}::{root / arch}"
    return str(root / p)


def option_value(root: Path, v) -> str:
    if isinstance(v, str):
        return str(root / v[len("@case/"):]) if v.startswith("@case/") else v
    return json.dumps(v)


def build(b: dict, root: Path, work: Path, workers: int) -> dict:
    out = work / f"out_{b['name']}"
    # --allow-empty: the cases judge what a build records, also of builds that keep no row (an error by default)
    args = ["build", "--out", str(out), "--quiet", "--workers", str(workers), "--allow-empty"]
    for s in b["sources"]:
        args += ["--source", f"{s['kind']}={resolve_path(root, s['path'])}"]
    for k, v in (b.get("options") or {}).items():
        args += ["--option", f"{k}={option_value(root, v)}"]
    cwd = work / "cwd"
    cwd.mkdir(exist_ok=True)
    rc, stdout, stderr = run_cli(args, cwd)
    res = {"rc": rc, "stdout": stdout, "stderr": stderr, "args": args, "accounting": None, "rejects": [], "rows": []}
    if rc != 0:
        return res
    acc = out / "accounting.json"
    if acc.exists():
        res["accounting"] = json.loads(acc.read_text())
    rj = out / "rejects.parquet"
    if rj.exists():
        res["rejects"] = pq.read_table(rj).to_pylist()
    if (out / "data").exists():
        for f in sorted((out / "data").rglob("*.parquet")):
            res["rows"].extend(pq.read_table(f).to_pylist())
    return res


def lookup(key: str, srcs: dict) -> list[str]:
    """Accounting names a key stands for: the name itself, "@path:<suffix of the entry's path>", or
    "@release:<suffix>" (a release subset whose name or path ends with the suffix)."""
    if key.startswith("@path:"):
        suffix = key[len("@path:"):].strip("/")
        return [n for n, s in srcs.items() if str(s.get("path", "")).rstrip("/").endswith(suffix)]
    if key.startswith("@release:"):
        suffix = key[len("@release:"):].strip("/")
        return [n for n, s in srcs.items() if n.startswith("release:")
                and (n.rstrip("/").endswith(suffix) or str(s.get("path", "")).rstrip("/").endswith(suffix))]
    return [key] if key in srcs else []


def resolve_names(expected: dict, res: dict) -> tuple[dict, list[str]]:
    """expected keys -> accounting source names."""
    srcs = (res["accounting"] or {}).get("sources", {})
    out, diffs = {}, []
    for key in expected:
        if not key.startswith("@"):
            out[key] = key
            continue
        hits = lookup(key, srcs)
        if len(hits) != 1:
            diffs.append(f"{key}: {len(hits)} accounting entries match "
                         f"(entries: {[(n, s.get('path')) for n, s in srcs.items()]})")
            continue
        out[key] = hits[0]
    return out, diffs


def check_source(key: str, name: str, exp: dict, res: dict) -> list[str]:
    diffs = []
    acc = (res["accounting"] or {}).get("sources", {}).get(name)
    if acc is None:
        return [f"{key}: no entry in accounting.json (sources: {sorted((res['accounting'] or {}).get('sources', {}))})"]
    for k in ("input", "kept"):
        if acc.get(k) != exp[k]:
            diffs.append(f"{key}.{k}: expected {exp[k]}, got {acc.get(k)}")
    got_rej = {k: v for k, v in (acc.get("rejected") or {}).items() if v}
    if not reasons_fit(exp.get("rejected", {}), got_rej):
        diffs.append(f"{key}.rejected: expected {exp.get('rejected', {})}, got {got_rej}")
    d_exp = exp.get("duplicates", 0)
    if isinstance(d_exp, int):
        if acc.get("duplicates_total", 0) != d_exp:
            diffs.append(f"{key}.duplicates: expected {d_exp}, got {acc.get('duplicates_total')} {acc.get('duplicates') or {}}")
    else:
        got_d = {k: v for k, v in (acc.get("duplicates") or {}).items() if v}
        if got_d != d_exp:
            diffs.append(f"{key}.duplicates: expected {d_exp}, got {got_d}")
    tot = acc.get("kept", 0) + acc.get("rejected_total", 0) + acc.get("duplicates_total", 0)
    if tot != acc.get("input") or acc.get("reconciles") is False:
        diffs.append(f"{key}: does not reconcile (input {acc.get('input')} vs {tot}, reconciles={acc.get('reconciles')})")
    my_rej = [r for r in res["rejects"] if r.get("source") == name]
    by_reason: dict[str, int] = {}
    for r in my_rej:
        by_reason[r["reason"]] = by_reason.get(r["reason"], 0) + 1
    want = dict(got_rej)
    for k, v in (acc.get("duplicates") or {}).items():
        if v:
            want[k] = want.get(k, 0) + v
    if by_reason != want:
        diffs.append(f"{key}: rejects.parquet reasons {by_reason} != accounting {want}")
    for rx in exp.get("rejects", []):
        reasons = None if rx.get("reason", "*") == "*" else set(rx["reason"].split("|"))
        hits = [r for r in my_rej
                if (reasons is None or r["reason"] in reasons)
                and rx.get("ref_contains", "") in str(r.get("ref", ""))
                and rx.get("message_contains", "") in str(r.get("message", ""))
                and rx.get("any_contains", "") in str(r.get("ref", "")) + " " + str(r.get("message", ""))]
        if not hits:
            diffs.append(f"{key}: no reject like {rx}; got {[(r['reason'], r.get('ref'), short(r.get('message'), 100)) for r in my_rej]}")
    my_rows = [r for r in res["rows"] if r.get("source") == name]
    if len(my_rows) != acc.get("kept"):
        diffs.append(f"{key}: {len(my_rows)} rows in data/ but accounting says kept {acc.get('kept')}")
    for rx in exp.get("rows", []):
        hits = [r for r in my_rows if not holds(r, rx["where"])]
        if len(hits) != 1:
            diffs.append(f"{key}: row {rx['where']}: expected 1 kept row, found {len(hits)}")
            continue
        for d in holds(hits[0], rx.get("expect", {})):
            diffs.append(f"{key}: row {rx['where']}: {d}")
    for col, sub in (exp.get("no_rows_contain") or {}).items():
        bad = [r.get("id") for r in my_rows if sub in str(r.get(col) or "")]
        if bad:
            diffs.append(f"{key}: {len(bad)} row(s) with {col} containing {sub!r}")
    return diffs


def check_expected(expected: dict, res: dict, b: dict) -> list[str]:
    names, diffs = resolve_names(expected, res)
    for key, exp in expected.items():
        if key in names:
            diffs += check_source(key, names[key], exp, res)
    srcs = (res["accounting"] or {}).get("sources", {})
    extra = [n for n, s in srcs.items() if n not in names.values() and (s.get("input") or 0) > 0]
    if extra:
        diffs.append(f"unexpected sources in accounting: {extra}")
    if b.get("distinct_source_names") and len(srcs) < len(expected):
        diffs.append(f"{len(expected)} subsets expected as separate sources, accounting has {sorted(srcs)}")
    return diffs


def generic(res: dict) -> list[str]:
    diffs = []
    if "Traceback" in (res["stderr"] or "") + (res["stdout"] or ""):
        diffs.append("traceback printed: " + " | ".join((res["stderr"] or res["stdout"]).strip().splitlines()[-3:]))
    ids = [r.get("id") for r in res["rows"]]
    if len(ids) != len(set(ids)):
        diffs.append("row ids are not unique")
    return diffs


def run_build(b: dict, root: Path, work: Path, workers: int) -> tuple[list[str], dict]:
    res = build(b, root, work, workers)
    diffs = generic(res)
    if res["rc"] != 0:
        tail = " | ".join((res["stderr"] or res["stdout"]).strip().splitlines()[-4:])
        if b.get("cli_error_ok") and b["cli_error_ok"] in (res["stderr"] or "") and not diffs:
            return [], res
        return diffs + [f"kvdata build exited {res['rc']}: {tail}"], res
    alts = b.get("alternatives") or [b["expected"]]
    best = None
    for alt in alts:
        d = check_expected(alt, res, b)
        if best is None or len(d) < len(best):
            best = d
        if not d:
            best = []
            break
    if best and len(alts) > 1:
        best = [f"(closest of {len(alts)} alternatives)"] + best
    return diffs + best, res


def projection(res: dict, sources: list[str] | None) -> dict:
    srcs = (res["accounting"] or {}).get("sources", {})
    keep = {n for k in sources for n in lookup(k, srcs)} if sources else set(srcs)
    tot = {k: sum(s.get(k, 0) or 0 for n, s in srcs.items() if n in keep) for k in ("input", "kept", "rejected_total", "duplicates_total")}
    rows = sorted(json.dumps({k: r.get(k) for k in ("task_name", "kernel_code", "baseline_kernel_code", "pytorch_code",
                                                    "pytorch_functional_code", "verification", "language")},
                             sort_keys=True, default=str)
                  for r in res["rows"] if r.get("source") in keep)
    return {"totals": tot, "rows": rows}


def inspect(spec: dict, root: Path, work: Path) -> tuple[list[str], list]:
    p = resolve_path(root, spec["path"])
    rc, stdout, stderr = run_cli(["sources", "--inspect", p, "--json"], work / "cwd")
    if rc != 0 or "Traceback" in stderr:
        return [f"inspect {spec['path']}: exit {rc}: {stderr.strip()[-300:]}"], []
    try:
        reports = json.loads(stdout)
    except json.JSONDecodeError as e:
        return [f"inspect {spec['path']}: not JSON ({e})"], []
    got = {}
    for r in reports:
        path = str(r.get("path") or ".").strip("/")
        path = "." if path in ("", ".") else (path[2:] if path.startswith("./") else path)
        got[path] = r.get("kind")
    diffs = []
    covered = set()
    for key, kind in spec["expect"].items():
        alts = key.split("|")
        covered.update(alts)
        if not any(got.get(a) == kind for a in alts):
            diffs.append(f"inspect {spec['path']}: {key} expected {kind}, got {[got.get(a) for a in alts]}")
    if spec.get("exact"):
        extra = {p: k for p, k in got.items() if k and p not in covered}
        if extra:
            diffs.append(f"inspect {spec['path']}: unexpected kinds {extra}")
    return diffs, reports


def run_case(case_dir: Path, workers: int, keep: Path | None, verbose: bool) -> tuple[bool, list[str], list[str]]:
    spec = json.loads((case_dir / "case.json").read_text())
    work = Path(tempfile.mkdtemp(prefix=f"kvrel_{case_dir.name}_", dir=keep))
    log: list[str] = []
    try:
        root = work / "case"
        shutil.copytree(case_dir, root, symlinks=True)
        (work / "cwd").mkdir()
        diffs: list[str] = []
        results = {}
        for b in spec.get("builds", []):
            d, res = run_build(b, root, work, workers)
            results[b["name"]] = res
            diffs += [f"[{b['name']}] {x}" for x in d]
            if verbose:
                log.append(f"  build {b['name']}: rc={res['rc']}  kvdata {' '.join(res['args'])}")
                for n, s in ((res["accounting"] or {}).get("sources", {})).items():
                    log.append(f"    {n} ({s.get('path')}): input {s.get('input')} kept {s.get('kept')} "
                               f"rejected {s.get('rejected')} dups {s.get('duplicates')}")
                for r in res["rejects"]:
                    log.append(f"      reject {r['reason']:<16} {r.get('ref')}  {short(r.get('message'), 160)}")
                for r in res["rows"]:
                    v = r.get("verification") or {}
                    vs = {k: v.get(k) for k in ("speedup", "baseline_ms", "kernel_ms", "ref_ms", "speedup_over", "correct", "compile_ok") if v.get(k) is not None}
                    log.append(f"      row {r.get('task_name')!s:<10} {r.get('variant')!s:<28} {markers(r)} {vs} "
                               f"pipe={get(r, 'provenance.pipeline')} up={short(get(r, 'provenance.upstream'), 80)}")
                if res["rc"] != 0:
                    log.append("    stderr: " + (res["stderr"] or "").strip()[-400:])
        groups = spec.get("agree") or []
        groups = groups if groups and isinstance(groups[0], list) else [groups]
        for names in groups:
            if len(names) < 2:
                continue
            ok_names = [n for n in names if results.get(n) and results[n]["rc"] == 0]
            projs = {n: projection(results[n], (spec.get("agree_sources") or {}).get(n)) for n in ok_names}
            if ok_names:
                ref = ok_names[0]
                for n in ok_names[1:]:
                    for k in ("totals", "rows"):
                        if projs[n][k] != projs[ref][k]:
                            diffs.append(f"builds {ref} and {n} disagree in {k}: "
                                         f"{short(projs[ref][k], 160)} vs {short(projs[n][k], 160)}")
        for ins in spec.get("inspect", []):
            d, reports = inspect(ins, root, work)
            diffs += d
            if verbose:
                log.append(f"  inspect {ins['path']}: " + "; ".join(f"{r.get('path')} -> {r.get('kind')} ({r.get('records')})"
                                                                   for r in reports))
        for name in spec.get("forbidden_files", []):
            hits = [str(p) for p in work.rglob(name) if "case" not in p.relative_to(work).parts[:1]]
            hits += [str(p) for p in (work.parent / name, Path(tempfile.gettempdir()) / name) if p.exists()]
            if hits:
                diffs.append(f"file {name} written outside the inputs: {hits}")
        return not diffs, diffs, log
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=0, help="kvdata build --workers (default 0)")
    ap.add_argument("--jobs", type=int, default=2, help="cases run at the same time (default 2)")
    ap.add_argument("--case", action="append", help="run only these case ids (repeatable)")
    ap.add_argument("--keep", type=Path, default=None, help="keep scratch folders under this directory")
    ap.add_argument("-v", "--verbose", action="store_true", help="print what the tool did for each case")
    ap.add_argument("--subprocess", action="store_true",
                    help="run `kvdata` as a subprocess per command instead of click's runner in the worker")
    a = ap.parse_args(argv)
    if shutil.which("kvdata") is None:
        print("kvdata is not on PATH", file=sys.stderr)
        return 2
    if a.keep:
        a.keep.mkdir(parents=True, exist_ok=True)
    dirs = sorted(d for d in CASES.iterdir() if (d / "case.json").exists())
    if a.case:
        unknown = set(a.case) - {d.name for d in dirs}
        if unknown:
            print(f"unknown case(s): {sorted(unknown)}", file=sys.stderr)
            return 2
        dirs = [d for d in dirs if d.name in set(a.case)]
    passed = failed = 0
    with ProcessPoolExecutor(max_workers=max(1, a.jobs), initializer=_init_worker,
                             initargs=(not a.subprocess,)) as ex:
        futs = [(d, ex.submit(run_case, d, a.workers, a.keep, a.verbose)) for d in dirs]
        for d, f in futs:
            spec = json.loads((d / "case.json").read_text())
            try:
                ok, diffs, log = f.result()
            except Exception as e:          # a runner bug must not hide the other cases
                ok, diffs, log = False, [f"runner error: {type(e).__name__}: {e}"], []
            tag = f"({spec.get('certainty', '?')})"
            if ok:
                passed += 1
                print(f"PASS {d.name} {tag}")
            else:
                failed += 1
                print(f"FAIL {d.name} {tag}: " + "; ".join(diffs))
            for line in log:
                print(line)
            sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
