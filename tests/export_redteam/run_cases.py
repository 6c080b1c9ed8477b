#!/usr/bin/env python3
"""Run every case of manifest.json with the installed `kvdata export` CLI and evaluate its checks.

usage: python run_cases.py [--cases DIR] [--runs DIR] [--only NAME ...] [--json RESULTS.json]

Copies the cases tree to RUNS (default ./runs), runs `kvdata export ARGS` in each case's copy, then
evaluates the checks (see CHECKS.md).  Does not import kvdata: it reads outputs with pyarrow/json/datasets.
"""
import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import traceback

import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))


# ----------------------------------------------------------------------------- reading outputs

def corpus_rows(corpus_dir):
    rows = {}
    for f in sorted(glob.glob(os.path.join(corpus_dir, "data", "*", "*.parquet"))):
        for r in pq.read_table(f).to_pylist():
            rows.setdefault(r["id"], r)
    return rows


class Out:
    def __init__(self, out_dir):
        self.dir = out_dir
        self.files = sorted(glob.glob(os.path.join(out_dir, "data", "*.parquet")))
        self.splits = {}
        for f in self.files:
            split = os.path.basename(f).split("-")[0]
            self.splits.setdefault(split, []).extend(pq.read_table(f).to_pylist())
        p = os.path.join(out_dir, "accounting.json")
        self.acc = json.load(open(p)) if os.path.exists(p) else None
        self.fmt = None
        for rs in self.splits.values():
            if rs:
                k = rs[0].keys()
                self.fmt = ("rl" if "data_source" in k else "dpo" if "chosen" in k else
                            "alpaca" if "instruction" in k else "sharegpt" if "conversations" in k else "messages")
                break

    def rows(self):
        for s, rs in self.splits.items():
            for r in rs:
                yield s, r

    @staticmethod
    def row_ids(r):
        """Corpus ids an output row stands for."""
        if "extra_info" in r and isinstance(r.get("extra_info"), dict):
            return [r["extra_info"].get("id")]
        if "chosen_id" in r:
            return [r.get("chosen_id"), r.get("rejected_id")]
        return [r.get("id")]

    def id_split(self):
        m = {}
        for s, r in self.rows():
            for i in self.row_ids(r):
                if i is not None:
                    m.setdefault(i, set()).add(s)
        return m

    def n(self):
        return sum(len(v) for v in self.splits.values())


def strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from strings(v)


def side_text(x):
    """A DPO side's text: a string (standard form) or the contents of its message list (conversational)."""
    return "\n".join(m["content"] for m in x) if isinstance(x, list) else x


def answer_text(r):
    if "messages" in r:
        return "\n".join(m["content"] for m in r["messages"] if m["role"] == "assistant")
    if "conversations" in r:
        return "\n".join(m["value"] for m in r["conversations"] if m["from"] == "gpt")
    if "output" in r:
        return r["output"]
    if "chosen" in r:
        return side_text(r["chosen"])
    return json.dumps(r.get("extra_info"))


def prompt_text(r):
    if "messages" in r:
        return "\n".join(m["content"] for m in r["messages"] if m["role"] != "assistant")
    if "conversations" in r:
        return "\n".join(m["value"] for m in r["conversations"] if m["from"] != "gpt")
    if "instruction" in r:
        return (r.get("instruction") or "") + "\n" + (r.get("input") or "")
    if "prompt" in r and isinstance(r["prompt"], str):
        return r["prompt"]
    return "\n".join(strings(r.get("prompt")))


def load_results(path):
    if path.endswith(".jsonl"):
        return [json.loads(l) for l in open(path) if l.strip()]
    return pq.read_table(path).to_pylist()


# ----------------------------------------------------------------------------- checks

class CheckFail(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise CheckFail(msg() if callable(msg) else msg)


def union_groups(ids, corpus):
    """Baseline grouping every implementation must respect: identical non-empty task_name or identical reference."""
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i in ids:
        r = corpus.get(i)
        if not r:
            continue
        keys = []
        if (r.get("task_name") or "").strip():
            keys.append("t:" + r["task_name"])
        if (r.get("pytorch_code") or "").strip():
            keys.append("r:" + r["pytorch_code"])
        for k in keys:
            parent[find("i:" + i)] = find(k)
    return {i: find("i:" + i) for i in ids}


def run_check(chk, ctx):
    name, arg = (chk, None) if isinstance(chk, str) else next(iter(chk.items()))
    out, corpus, case_dir = ctx["out"], ctx["corpus"], ctx["case_dir"]

    if name == "if_ok":
        if ctx["rc"] != 0:
            raise StopIteration  # remaining checks apply only to a successful run
        return
    if name == "if_ok_then":
        if ctx["rc"] == 0:
            for c in arg:
                run_check(c, ctx)
        return
    if name == "file_absent":
        for p in arg:
            need(not os.path.exists(os.path.join(case_dir, p)), f"{p} exists: template code executed")
        return
    if name == "out_not_mixed":
        if ctx["rc"] != 0:
            # refused: the old export must be intact
            need(os.path.exists(os.path.join(case_dir, "out", "dataset_info.json")), "refused but old files removed")
            need(os.path.exists(os.path.join(case_dir, "out", "data", "validation-00000-of-00001.parquet")),
                 "refused but old files removed")
            return
        acc = out.acc or {}
        listed = set(acc.get("files", []))
        present = {os.path.relpath(f, out.dir) for f in out.files}
        need(present <= listed, lambda: f"data files not from this export: {sorted(present - listed)}")
        return

    need(out is not None, "no output folder")
    if name == "loads_with_datasets":
        import datasets
        datasets.disable_progress_bars()
        try:
            ds = datasets.load_dataset(out.dir, cache_dir=os.path.join(ctx["case_dir"], ".hf_cache"))
        except Exception as e:  # noqa
            raise CheckFail(f"load_dataset failed: {type(e).__name__}: {str(e)[:300]}")
        got = {k: len(v) for k, v in ds.items()}
        want = {k: len(v) for k, v in out.splits.items()}
        need(got == want, lambda: f"load_dataset splits {got} != files {want}")
    elif name == "accounting_reconciles":
        a = out.acc
        need(a is not None, "no accounting.json")
        need(a.get("reconciles") is True, "accounting.json says it does not reconcile")
        exported = sum(a.get("exported", {}).values())
        need(exported == out.n(), lambda: f"accounting exported {exported} != rows in files {out.n()}")
        dropped = sum(a.get("dropped", {}).values())
        if out.fmt == "dpo":
            return
        need(a["input_rows"] == exported + dropped,
             f"input {a['input_rows']} != exported {exported} + dropped {dropped} ({a.get('dropped')})")
    elif name == "card":
        p = os.path.join(out.dir, "README.md")
        need(os.path.exists(p), "no README.md card")
        card = open(p, encoding="utf-8").read()
        for f in out.files:
            need(os.path.relpath(f, out.dir) in card, lambda: f"card YAML does not name {os.path.relpath(f, out.dir)}")
        need("kvdata export" in card, "card lacks the command line")
    elif name == "card_lists_filters":
        card = open(os.path.join(out.dir, "README.md"), encoding="utf-8").read()
        sect = card.split("## Filters", 1)[-1].split("\n## ", 1)[0]
        miss = [x for x in arg if x not in sect]
        need(not miss, lambda: f"card's Filters section lacks {miss}: {sect.strip()[:200]!r}")
    elif name == "group_fractions":
        m = out.id_split()
        g = union_groups(list(m), corpus)
        side = {}
        for i, root in g.items():
            side[root] = next(iter(m[i]))
        n = len(side)
        for sp, want in arg.items():
            if sp == "tol":
                continue
            got = sum(1 for v in side.values() if v == sp) / n
            need(abs(got - want) <= arg["tol"], lambda: f"{sp}: {got:.2f} of {n} groups, wanted {want}")
    elif name == "chat_shape":
        for sp, r in out.rows():
            if "messages" in r:
                roles = [m["role"] for m in r["messages"]]
                need(roles[-1] == "assistant" and set(roles) <= {"system", "user", "assistant"} and "user" in roles,
                     lambda: f"messages roles {roles}")
                need(r["messages"][-1]["content"].strip(), lambda: f"empty assistant turn in {r.get('id')}")
    elif name == "same_schema_across_splits":
        sch = {os.path.basename(f): pq.read_schema(f).remove_metadata() for f in out.files}
        first = next(iter(sch.values()), None)
        bad = [k for k, v in sch.items() if not v.equals(first)]
        need(not bad, lambda: f"split files with different schemas: {bad}")
        nulls = [f"{k}:{fld.name}" for k, v in sch.items() for fld in v if str(fld.type) == "null"]
        need(not nulls, lambda: f"columns of Arrow type null (no type): {nulls}")
    elif name == "unique_ids":
        seen = {}
        for s, r in out.rows():
            key = r.get("id") if "id" in r else (r.get("extra_info") or {}).get("id")
            seen[key] = seen.get(key, 0) + 1
        d = [k for k, v in seen.items() if v > 1]
        need(not d, lambda: f"duplicate output ids: {d[:5]}")
    elif name == "row_count":
        need(out.n() == arg, lambda: f"row_count {out.n()} != {arg}")
    elif name == "ids_present":
        m = out.id_split()
        miss = [i for i in arg if i not in m]
        need(not miss, lambda: f"{len(miss)} ids missing, e.g. {miss[:3]}")
    elif name == "ids_absent":
        m = out.id_split()
        bad = [i for i in arg if i in m]
        need(not bad, lambda: f"{len(bad)} ids present that should be absent, e.g. {bad[:3]}")
    elif name == "dropped":
        d = (out.acc or {}).get("dropped", {})
        for sub, n in arg.items():
            got = sum(v for k, v in d.items() if sub in k)
            need(got == n, lambda: f"dropped[*{sub}*] = {got} != {n} (dropped: {d})")
    elif name == "dropped_total":
        d = (out.acc or {}).get("dropped", {})
        need(sum(d.values()) == arg, f"dropped total {sum(d.values())} != {arg} ({d})")
    elif name == "no_group_crosses_splits":
        m = out.id_split()
        g = union_groups(list(m), corpus)
        side = {}
        for i, root in g.items():
            side.setdefault(root, set()).update(m[i])
        bad = [r for r, s in side.items() if len(s) > 1]
        need(not bad, lambda: f"{len(bad)} groups (same task_name or identical reference) on several splits, e.g. {bad[0][:80]!r}")
    elif name == "same_split":
        m = out.id_split()
        for grp in arg:
            miss = [i for i in grp if i not in m]
            need(not miss, lambda: f"group member not exported: {miss[:2]}")
            sides = set().union(*(m[i] for i in grp))
            need(len(sides) == 1, lambda: f"group of {len(grp)} rows split over {sorted(sides)} "
                                  f"(task_names {sorted({repr(corpus[i]['task_name']) for i in grp})[:4]})")
    elif name == "not_all_same_split":
        m = out.id_split()
        sides = set().union(*(m.get(i, set()) for i in arg))
        need(len(sides) > 1, lambda: f"all {len(arg)} rows on {sorted(sides)}: glued into one group")
    elif name in ("split_of_ids_unchanged_vs", "split_differs_vs", "same_split_sizes_as"):
        other_case = arg["case"] if isinstance(arg, dict) else arg
        other_dir = os.path.join(ctx["run_root"], other_case, "out")
        need(os.path.isdir(other_dir), lambda: f"reference case {other_case} has no output")
        o = Out(other_dir)
        if name == "same_split_sizes_as":
            need({k: len(v) for k, v in o.splits.items()} == {k: len(v) for k, v in out.splits.items()},
                 "split sizes differ")
            return
        a, b = out.id_split(), o.id_split()
        exc = set(arg.get("except", [])) if isinstance(arg, dict) else set()
        common = [i for i in b if i in a and i not in exc]
        moved = [i for i in common if a[i] != b[i]]
        if name == "split_of_ids_unchanged_vs":
            need(len(common) > 0, "no common ids")
            need(not moved, lambda: f"{len(moved)}/{len(common)} existing rows changed split vs {other_case}, e.g. "
                            f"{[(corpus[i]['task_name'], sorted(b[i]), sorted(a[i])) for i in moved[:3]]}")
        else:
            need(len(moved) > 0, lambda: f"identical split to {other_case}")
    elif name == "text_contains":
        blob = "\n".join(s for _, r in out.rows() for s in strings(r))
        miss = [x for x in arg if x not in blob]
        need(not miss, lambda: f"missing literal text {miss}")
    elif name == "text_not_contains":
        blob = "\n".join(s for _, r in out.rows() for s in strings(r))
        bad = [x for x in arg if x in blob]
        need(not bad, lambda: f"output contains {bad}")
    elif name in ("kernel_roundtrip", "kernel_roundtrip_if_present", "reference_roundtrip",
                  "reference_roundtrip_if_present"):
        byid = {}
        for s, r in out.rows():
            for i in out.row_ids(r):
                byid[i] = r
        for i in arg:
            if i not in byid:
                need(name.endswith("_if_present"), lambda: f"{i} not exported")
                continue
            if name.startswith("kernel"):
                want, got = corpus[i]["kernel_code"], answer_text(byid[i])
            else:
                want, got = corpus[i]["pytorch_code"], prompt_text(byid[i])
            need(want in got, lambda: f"{name}: text of {i} altered (e.g. {sorted(set(want) - set(got))[:5]!r} lost)")
    elif name == "lengths_unit":
        units = {v.get("unit") for v in (out.acc or {}).get("lengths", {}).values()}
        need(units == {arg}, lambda: f"length unit {units} != {arg}")
    elif name in ("length_max_le", "length_max_ge"):
        mx = max(v.get("max", 0) for v in (out.acc or {}).get("lengths", {}).values())
        need(mx <= arg if name.endswith("le") else mx >= arg, lambda: f"max length {mx} vs {name} {arg}")
    elif name == "llamafactory_columns":
        p = os.path.join(out.dir, "dataset_info.json")
        need(os.path.exists(p), "no dataset_info.json")
        info = json.load(open(p))
        for ename, e in info.items():
            f = os.path.join(out.dir, e["file_name"])
            need(os.path.exists(f), lambda: f"{ename}: file_name {e['file_name']} missing")
            cols = set(pq.read_schema(f).names)
            for role, col in e.get("columns", {}).items():
                need(col in cols, lambda: f"{ename}: column {role}={col} not in {sorted(cols)}")
        for sp, r in out.rows():
            if "conversations" in r:
                roles = [m["from"] for m in r["conversations"]]
                need(roles and all(x == ("human" if k % 2 == 0 else "gpt") for k, x in enumerate(roles)),
                     lambda: f"sharegpt turns not human/gpt alternating: {roles}")
            if "instruction" in r:
                need(isinstance(r.get("input"), str), "alpaca input not a string")
                need(isinstance(r.get("output"), str) and r["output"].strip(), "alpaca output empty")
        names = {os.path.relpath(f, out.dir) for f in out.files}
        named = {e["file_name"] for e in info.values()}
        need(names <= named, lambda: f"splits without a dataset_info entry: {sorted(names - named)}")
    elif name == "verl_schema":
        import pyarrow as pa
        for f in out.files:
            sch = pq.read_schema(f)
            for col in ("data_source", "prompt", "ability", "reward_model", "extra_info"):
                need(col in sch.names, lambda: f"{f}: no {col}")
            need(pa.types.is_string(sch.field("data_source").type), "data_source not string")
            need(pa.types.is_list(sch.field("prompt").type), "prompt not a list")
            rm = sch.field("reward_model").type
            need(pa.types.is_struct(rm) and {rm.field(i).name for i in range(rm.num_fields)} >= {"style", "ground_truth"},
                 "reward_model lacks style/ground_truth")
            ei = sch.field("extra_info").type
            need(pa.types.is_struct(ei), "extra_info not a struct")
            need(pa.types.is_integer(ei.field("index").type), "extra_info.index not an integer")
        for s, rs in out.splits.items():
            idx = [r["extra_info"]["index"] for r in rs]
            need(len(set(idx)) == len(idx), lambda: f"extra_info.index not unique in {s}")
        for s, r in out.rows():
            need(r["reward_model"]["ground_truth"], lambda: f"empty ground_truth for {r['extra_info'].get('id')}")
            need(r["extra_info"]["split"] == s, lambda: f"extra_info.split {r['extra_info']['split']} in file {s}")
            need(all(set(m) == {"role", "content"} for m in r["prompt"]), "prompt messages not {role, content}")
    elif name == "dpo_chosen_faster":
        margin = arg
        for s, r in out.rows():
            if r.get("preference") not in (None, "faster_over_baseline"):
                continue
            c = corpus.get(r["chosen_id"])
            need(c is not None, lambda: f"chosen_id {r['chosen_id']} not a corpus id")
            v = c.get("verification") or {}
            sp = v.get("speedup")
            need(sp is not None and math.isfinite(sp) and sp >= 1 + margin - 1e-9,
                 f"pair {r['chosen_id']} chosen with corpus speedup {sp} (margin {margin})")
            need(v.get("correct") is True, lambda: f"pair {r['chosen_id']} chosen but correct={v.get('correct')}")
            need(side_text(r["rejected"]) == c.get("baseline_kernel_code"),
                 lambda: f"{r['chosen_id']}: rejected is not its baseline")
            need(side_text(r["chosen"]) == c["kernel_code"], lambda: f"{r['chosen_id']}: chosen is not its kernel")
    elif name == "dpo_chosen_ne_rejected":
        bad = [r.get("id") for _, r in out.rows() if side_text(r["chosen"]).strip() == side_text(r["rejected"]).strip()]
        need(not bad, lambda: f"pairs with chosen == rejected: {bad[:3]}")
    elif name in ("dpo_chosen_absent", "dpo_chosen_present", "dpo_rejected_present"):
        col = "rejected_id" if "rejected" in name else "chosen_id"
        have = {r.get(col) for _, r in out.rows()}
        if name.endswith("absent"):
            bad = [i for i in arg if i in have]
            need(not bad, lambda: f"{len(bad)} ids used as {col} that must not be: {bad[:3]}")
        else:
            miss = [i for i in arg if i not in have]
            need(not miss, lambda: f"{len(miss)} expected {col} missing: {miss[:3]}")
    elif name == "dpo_verified_pairs":
        verdicts = {}
        for x in load_results(os.path.join(case_dir, arg)):
            verdicts.setdefault(x["id"], set()).add(bool(x.get("correct")))
        need(out.n() > 0, "no pairs")
        for s, r in out.rows():
            ci, ri = r["chosen_id"], r["rejected_id"]
            need(verdicts.get(ci) == {True}, lambda: f"chosen {ci} verdicts {verdicts.get(ci)}")
            need(verdicts.get(ri) == {False}, lambda: f"rejected {ri} verdicts {verdicts.get(ri)}")
            need(corpus[ci]["task_name"] == corpus[ri]["task_name"], lambda: f"pair across tasks {ci} / {ri}")
    elif name == "stale_absent":
        bad = [p for p in arg if os.path.exists(os.path.join(out.dir, p))]
        need(not bad, lambda: f"stale files left in --out: {bad}")
    else:
        raise CheckFail(f"unknown check {name}")


# ----------------------------------------------------------------------------- driver

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default=os.path.join(HERE, "cases"))
    ap.add_argument("--runs", default=os.path.join(HERE, "runs"))
    ap.add_argument("--manifest", default=os.path.join(HERE, "manifest.json"))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--json")
    ap.add_argument("--kvdata", default="kvdata")
    a = ap.parse_args()
    manifest = json.load(open(a.manifest))
    if os.path.exists(a.runs):
        shutil.rmtree(a.runs)
    shutil.copytree(a.cases, a.runs, symlinks=True)
    results, fails = [], []
    for c in manifest:
        if a.only and c["name"] not in a.only:
            continue
        case_dir = os.path.join(a.runs, c["name"])
        cmd = [a.kvdata, "export"] + c["args"]
        env = dict(os.environ, TQDM_DISABLE="1", HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
        if c.get("pre_args"):  # an earlier export into the same --out (see CHECKS.md)
            subprocess.run([a.kvdata, "export"] + c["pre_args"], cwd=case_dir, capture_output=True, env=env,
                           timeout=600)
        try:
            p = subprocess.run(cmd, cwd=case_dir, capture_output=True, text=True, timeout=600,
                               env=dict(os.environ, TQDM_DISABLE="1", HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1"))
            rc, log = p.returncode, (p.stdout + p.stderr)
        except subprocess.TimeoutExpired:
            rc, log = -9, "TIMEOUT"
        exp = c["expect"]
        problems = []
        if exp["exit"] == "ok" and rc != 0:
            problems.append(f"exit {rc}, expected ok: {log.strip()[-400:]}")
        elif exp["exit"] == "error":
            if rc == 0:
                problems.append("exit 0, expected an error")
            elif "Traceback (most recent call last)" in log:
                problems.append(f"error is a raw traceback, not a clear message: {log.strip()[-300:]}")
            elif exp.get("error_contains") and exp["error_contains"].lower() not in log.lower():
                problems.append(f"error message lacks {exp['error_contains']!r}: {log.strip()[-300:]}")
        if not problems and exp["exit"] == "any" and rc != 0 and "Traceback (most recent call last)" in log:
            problems.append(f"error is a raw traceback: {log.strip()[-300:]}")
        out_dir = os.path.join(case_dir, "out")
        ctx = {"rc": rc, "case_dir": case_dir, "run_root": a.runs,
               "corpus": corpus_rows(os.path.normpath(os.path.join(case_dir, c["corpus"]))),
               "out": None}
        if not problems:
            try:
                ctx["out"] = Out(out_dir) if os.path.isdir(out_dir) and rc == 0 else None
            except Exception as e:  # noqa
                problems.append(f"output unreadable: {e}")
            for chk in exp["checks"]:
                try:
                    run_check(chk, ctx)
                except StopIteration:
                    break
                except CheckFail as e:
                    problems.append(f"{chk if isinstance(chk, str) else next(iter(chk))}: {e}")
                except Exception as e:  # noqa
                    problems.append(f"{chk if isinstance(chk, str) else next(iter(chk))}: checker error "
                                    f"{type(e).__name__}: {e}")
        ok = not problems
        print(f"{'PASS' if ok else 'FAIL'} {c['name']}" + ("" if ok else "\n    - " + "\n    - ".join(problems)),
              flush=True)
        results.append({"name": c["name"], "pass": ok, "rc": rc, "problems": problems,
                        "ambiguous": c.get("ambiguous", False)})
        if not ok:
            fails.append(c["name"])
    n = len(results)
    print(f"\nSUMMARY: {n - len(fails)}/{n} passed, {len(fails)} failed" +
          (": " + ", ".join(fails) if fails else ""))
    if a.json:
        json.dump(results, open(a.json, "w"), indent=2)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
