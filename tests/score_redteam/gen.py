"""Generate the red-team cases for `kvdata score` and their manifest. Expected numbers are computed here,
independently of kvdata.score (brute-force pass@k, closed-form Wilson, exact McNemar/Fisher, Newcombe, Holm).
Run: python tests/score_redteam/gen.py  (rewrites cases/ and manifest.json)."""
import itertools, json, math, os, shutil
from math import comb
from pathlib import Path

import pyarrow as pa, pyarrow.parquet as pq
from scipy.stats import fisher_exact, binom

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
Z = 1.959963984540054
R = lambda x: None if x is None else round(float(x), 4)
COMMON = ["--json", "--out", "{OUT}"]
manifest = []


def wilson(c, n):
    p = c / n; d = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / d
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return [R(max(0.0, centre - half)), R(min(1.0, centre + half))]


def wilson_raw(c, n):
    p = c / n; d = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / d
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(c1, n1, c2, n2):
    p1, p2 = c1 / n1, c2 / n2
    l1, u1 = wilson_raw(c1, n1); l2, u2 = wilson_raw(c2, n2)
    d = p1 - p2
    return [R(d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)), R(d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))]


def mcnemar_exact(b, c):
    if b + c == 0:
        return 1.0
    return min(1.0, 2 * binom.cdf(min(b, c), b + c, 0.5))


def holm(ps):
    m = len(ps); order = sorted(range(m), key=lambda i: ps[i]); adj = [0] * m; run = 0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (m - rank) * ps[i])); adj[i] = run
    return adj


def pass_at_k_brute(outcomes, k):
    """Fraction of k-subsets of this task's attempts with at least one correct (enumerated, not the formula)."""
    subs = list(itertools.combinations(outcomes, k))
    return sum(any(s) for s in subs) / len(subs)


def pass_at_k_formula(n, c, k):
    return 1.0 if n - c < k else 1 - comb(n - c, k) / comb(n, k)


def case_dir(name):
    d = CASES / name; d.mkdir(parents=True); return d


def jsonl(path, rows, raw_tail=None):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
        if raw_tail is not None:
            f.write(raw_tail)


def add(name, args, expect, error_contains=None, checks=None, note="", also_acceptable=None, error_contains_any=None):
    e = {"case": name, "args": args, "expect": expect}
    if expect == "error":
        e["error_contains"] = error_contains or []
        if error_contains_any:
            e["error_contains_any"] = error_contains_any
    if checks is not None:
        e["checks"] = checks
    if also_acceptable:
        e["also_acceptable"] = also_acceptable
    e["note"] = note
    manifest.append(e)


def chk(text, model=None, metric=None, value=None, **kw):
    d = {"text": text}
    if model is not None: d["model"] = model
    if metric is not None: d["metric"] = metric
    if value is not None: d["value"] = value
    d.update(kw)
    return d


def rows1(model, tasks, compiled, correct, speedup=None):
    out = []
    for i, t in enumerate(tasks):
        r = {"model": model, "task": t, "attempt": 0, "compiled": compiled[i], "correct": correct[i]}
        if speedup is not None and speedup[i] is not None:
            r["speedup"] = speedup[i]
        out.append(r)
    return out


if CASES.exists():
    shutil.rmtree(CASES)
CASES.mkdir()

# 1 duplicate (model, task, attempt)
d = case_dir("dup_attempt")
rows = []
for t in ["k1", "k2", "k3"]:
    for a in (0, 1):
        rows.append({"model": "m1", "task": t, "attempt": a, "compiled": True, "correct": a == 1})
rows.insert(4, {"model": "m1", "task": "k2", "attempt": 1, "compiled": True, "correct": False})  # line 5 dup of line 4
jsonl(d / "results.jsonl", rows)
add("dup_attempt", ["results.jsonl"] + COMMON, "error", ["k2"],
    note="(m1,k2,1) appears on lines 4 and 5 with different verdicts; must not keep first/last silently. "
         "Message should name k2 and attempt 1 (ideally lines 4,5) and say 1 duplicate.")

# 2 / 3 task missing for one model; intersect
A = rows1("A", ["t1", "t2", "t3", "t4", "t5"], [True] * 5, [True, True, False, True, True])
B = rows1("B", ["t1", "t2", "t3", "t4"], [True] * 4, [True, False, False, False])
for name in ("missing_task_one_model", "missing_task_intersect"):
    d = case_dir(name); jsonl(d / "a.jsonl", A); jsonl(d / "b.jsonl", B)
add("missing_task_one_model", ["a.jsonl", "b.jsonl", "--compare", "A:B"] + COMMON, "error", ["t5"],
    note="B lacks t5; default --on-missing error must fail naming t5 and model B (1 task / 1 row).")
b_, c_ = 2, 0
add("missing_task_intersect", ["a.jsonl", "b.jsonl", "--on-missing", "intersect", "--compare", "A:B"] + COMMON, "ok",
    checks=[chk("exactly 1 task (t5) is reported as dropped/excluded; the report must say so (not silent)", metric="dropped_tasks", value=1),
            chk("both models scored on the same 4 tasks", metric="n_tasks", value=4),
            chk("A correct rate = 0.75 on the intersection (NOT 0.8 = 4/5, which is A before intersecting)", "A", "correct_rate", 0.75),
            chk("A correct-rate Wilson 95% interval", "A", "correct_rate_wilson", wilson(3, 4)),
            chk("B correct rate = 0.25", "B", "correct_rate", 0.25),
            chk("B correct-rate Wilson 95% interval", "B", "correct_rate_wilson", wilson(1, 4)),
            chk("paired A:B difference in correct rate = +0.5", metric="diff_correct", value=0.5),
            chk("McNemar exact: discordant b=2 (A only: t2,t4), c=0 -> p = 0.5", metric="mcnemar_p", value=R(mcnemar_exact(b_, c_)))],
    note="Same files as missing_task_one_model with --on-missing intersect: t5 dropped and reported; intersection taken BEFORE every per-model number.")

# 4 case-differing ids
d = case_dir("task_case_differs")
jsonl(d / "a.jsonl", rows1("A", ["Task1", "t2"], [True, True], [True, False]))
jsonl(d / "b.jsonl", rows1("B", ["task1", "t2"], [True, True], [False, False]))
add("task_case_differs", ["a.jsonl", "b.jsonl", "--compare", "A:B"] + COMMON, "error", ["Task1", "task1"],
    note="Decision: task ids are compared exactly (case-sensitive; benchmarks such as TritonBench-G use file names). "
         "Task1 is missing from B and task1 from A -> join error naming both. Case-folding silently would merge distinct ids.")

# 5 trailing space
d = case_dir("task_trailing_space")
jsonl(d / "a.jsonl", rows1("A", ["task1 ", "t2"], [True, True], [True, False]))
jsonl(d / "b.jsonl", rows1("B", ["task1", "t2"], [True, True], [False, False]))
add("task_trailing_space", ["a.jsonl", "b.jsonl", "--compare", "A:B"] + COMMON, "error", ["task1"],
    note="Decision: error. 'task1 ' (trailing space) vs 'task1' is either a join failure or a malformed id; "
         "neither silent stripping nor silently scoring them as two tasks is acceptable. Message should show the id quoted/repr'd "
         "so the space is visible.")

# 6 'maybe' in CSV
d = case_dir("bool_maybe_csv")
(d / "results.csv").write_text("model,task,attempt,compiled,correct,speedup\n"
                               "A,q1,0,true,true,1.2\nA,q2,0,true,maybe,\nA,q3,0,false,false,\n", encoding="utf-8")
add("bool_maybe_csv", ["results.csv"] + COMMON, "error", ["maybe"], error_contains_any=["q2", "line 3", ":3"],
    note="correct='maybe' on CSV line 3 (task q2). Must not be read as false (bool parsing by 'v == \"true\"') nor as true (bool(str)).")

# 7 correct: 2 in JSONL
d = case_dir("bool_two_jsonl")
jsonl(d / "results.jsonl", [{"model": "A", "task": "r1", "attempt": 0, "compiled": True, "correct": True},
                            {"model": "A", "task": "r2", "attempt": 0, "compiled": True, "correct": False},
                            {"model": "A", "task": "r3", "attempt": 0, "compiled": True, "correct": 2}])
add("bool_two_jsonl", ["results.jsonl"] + COMMON, "error", [], error_contains_any=["r3", "line 3", ":3"],
    note="correct=2 (line 3, task r3): truthy int but not a boolean; must be rejected, not bool(2)=True.")

# 8 TRUE / True / yes / 0 / No variants
d = case_dir("bool_true_variants_csv")
(d / "results.csv").write_text("model,task,attempt,compiled,correct\n"
                               "A,v1,0,yes,TRUE \nA,v2,0,1,True\nA,v3,0,YES,no\nA,v4,0,false,0\n", encoding="utf-8")
add("bool_true_variants_csv", ["results.csv"] + COMMON, "ok",
    checks=[chk("compile rate = 0.75 (yes,1,YES true; false false)", "A", "compile_rate", 0.75),
            chk("correct rate = 0.5 ('TRUE ' and 'True' are true; 'no' and '0' false)", "A", "correct_rate", 0.5),
            chk("correct-rate Wilson interval", "A", "correct_rate_wilson", wilson(2, 4))],
    also_acceptable={"expect": "error", "error_contains": ["TRUE"],
                     "why": "a strict parser may reject 'TRUE ' (uppercase + trailing space) as long as it names it"},
    note="Decision: accept booleans case-insensitively with surrounding whitespace stripped. "
         "The one wrong outcome is reading 'TRUE ' as false (correct rate 0.25).")

# 9 parquet with string booleans
d = case_dir("parquet_string_bools")
pq.write_table(pa.table({"model": ["A"] * 4, "task": ["s1", "s2", "s3", "s4"], "attempt": pa.array([0] * 4, pa.int64()),
                         "compiled": ["true", "true", "false", "1"], "correct": ["true", "false", "false", "0"]}),
               d / "results.parquet")
add("parquet_string_bools", ["results.parquet"] + COMMON, "ok",
    checks=[chk("compile rate = 0.75 (NOT 1.0: pandas astype(bool) makes every non-empty string True)", "A", "compile_rate", 0.75),
            chk("correct rate = 0.25 (NOT 1.0)", "A", "correct_rate", 0.25),
            chk("compile Wilson interval", "A", "compile_rate_wilson", wilson(3, 4)),
            chk("correct Wilson interval", "A", "correct_rate_wilson", wilson(1, 4))],
    note="Parquet string columns 'true'/'false'/'0'/'1' must go through the same boolean parser as CSV.")

# 10 correct=true, compiled=false
d = case_dir("correct_not_compiled")
(d / "results.csv").write_text("model,task,attempt,compiled,correct\n"
                               "A,c1,0,false,true\nA,c2,0,true,true\nA,c3,0,true,false\nA,c4,0,false,false\n", encoding="utf-8")
add("correct_not_compiled", ["results.csv"] + COMMON, "ok",
    checks=[chk("compile rate = 0.75: c1 is correct so it compiled (NOT 0.5)", "A", "compile_rate", 0.75),
            chk("compile Wilson interval", "A", "compile_rate_wilson", wilson(3, 4)),
            chk("correct rate = 0.5", "A", "correct_rate", 0.5),
            chk("correct rate <= compile rate always", "A")],
    note="A warning about the inconsistency is welcome; dropping the row or counting it as not compiled is wrong.")

# 11 negative attempt
d = case_dir("negative_attempt")
jsonl(d / "results.jsonl", [{"model": "A", "task": "n1", "attempt": 0, "compiled": True, "correct": True},
                            {"model": "A", "task": "n2", "attempt": -1, "compiled": True, "correct": False},
                            {"model": "A", "task": "n2", "attempt": 0, "compiled": True, "correct": True}])
add("negative_attempt", ["results.jsonl"] + COMMON, "error", ["-1"], error_contains_any=["n2", "line 2", ":2"], note="attempt must be an int >= 0 (line 2).")

# 12 attempt gap
d = case_dir("attempt_gap")
jsonl(d / "results.jsonl", [{"model": "A", "task": "g1", "attempt": 0, "compiled": True, "correct": False},
                            {"model": "A", "task": "g1", "attempt": 2, "compiled": True, "correct": True},
                            {"model": "A", "task": "g2", "attempt": 0, "compiled": True, "correct": True},
                            {"model": "A", "task": "g2", "attempt": 1, "compiled": True, "correct": True},
                            {"model": "A", "task": "g2", "attempt": 2, "compiled": True, "correct": True}])
add("attempt_gap", ["results.jsonl"] + COMMON, "error", ["g1"],
    note="Decision: error. g1 has attempts 0 and 2 but no 1: an attempt was lost (likely a crash that should count as a failure). "
         "Scoring it as n=2 inflates pass@k, and Corr@2 ('first 2 attempts') is ill-defined. Message should name g1 and the missing attempt 1.")

# 13 weird speedups (CSV so NaN is representable)
d = case_dir("speedup_weird_values")
sp = [("s01", 1, 1, "nan"), ("s02", 1, 1, "-1"), ("s03", 1, 1, "0"), ("s04", 1, 1, ""), ("s05", 1, 0, "100"),
      ("s06", 1, 1, "1.0"), ("s07", 1, 1, "1.5"), ("s08", 1, 1, "2.0"), ("s09", 1, 1, "3.0"), ("s10", 1, 0, "5.0")]
(d / "results.csv").write_text("model,task,attempt,compiled,correct,speedup\n" +
                               "".join(f"A,{t},0,{c},{k},{s}\n" for t, c, k, s in sp), encoding="utf-8")
add("speedup_weird_values", ["results.csv"] + COMMON, "ok",
    checks=[chk("correct rate = 0.8", "A", "correct_rate", 0.8),
            chk("fast_1 = 0.3 (s07,s08,s09; strict '>': s06 with speedup exactly 1.0 is NOT fast; denominator = all 10 tasks)", "A", "fast_1", 0.3),
            chk("fast_1.5 = 0.2 (s08,s09; s07 = 1.5 exactly is not > 1.5)", "A", "fast_1.5", 0.2),
            chk("fast_2 = 0.1 (s09 only; s08 = 2.0 exactly is not > 2)", "A", "fast_2", 0.1),
            chk("geomean speedup over correct tasks with a valid speedup (s06..s09) = (1*1.5*2*3)^(1/4); "
                "s05 (100) and s10 (5) are incorrect and must be ignored; NaN/-1/0/missing must not produce NaN/-inf/0",
                "A", "geomean_speedup", R((1 * 1.5 * 2 * 3) ** 0.25)),
            chk("geomean must be finite"),
            chk("fast_p values with incorrect speedups wrongly included would be fast_1=0.5, fast_2=0.3 (wrong)")],
    note="If a scorer instead counts correct-without-speedup tasks as 1.0 in the geomean it gets 9^(1/8)=" + str(R(9 ** 0.125)) +
         "; that is only acceptable if the report says so. Any NaN, 0, or a value > 1.7321 is wrong.")

# 14 inf speedup
d = case_dir("speedup_inf")
(d / "results.csv").write_text("model,task,attempt,compiled,correct,speedup\n"
                               "A,f1,0,true,true,1.5\nA,f2,0,true,true,inf\nA,f3,0,true,false,\n", encoding="utf-8")
add("speedup_inf", ["results.csv"] + COMMON, "error", ["f2"],
    also_acceptable={"expect": "ok", "checks": [
        chk("inf treated as 'no speedup': fast_1 = 1/3", "A", "fast_1", R(1 / 3)),
        chk("geomean = 1.5 (f1 only), finite", "A", "geomean_speedup", 1.5)]},
    note="Decision: inf is not a measured ratio (kernel time 0) -> error naming f2. Counting it as fast or a geomean of inf is wrong.")

# 15 string speedup
d = case_dir("speedup_string")
jsonl(d / "results.jsonl", [{"model": "A", "task": "x1", "attempt": 0, "compiled": True, "correct": True, "speedup": 1.3},
                            {"model": "A", "task": "x2", "attempt": 0, "compiled": True, "correct": False},
                            {"model": "A", "task": "x3", "attempt": 0, "compiled": True, "correct": True, "speedup": "fast"}])
add("speedup_string", ["results.jsonl"] + COMMON, "error", ["x3", "fast"],
    note="speedup 'fast' (line 3) is malformed; must not be coerced to NaN and silently scored as 'no speedup'.")

# 16 empty file
d = case_dir("empty_file"); (d / "empty.jsonl").write_bytes(b"")
add("empty_file", ["A=empty.jsonl"] + COMMON, "error", ["empty.jsonl"], note="0 bytes: no rows -> error naming the file.")

# 17 header only
d = case_dir("header_only_csv"); (d / "header_only.csv").write_text("model,task,attempt,compiled,correct,speedup\n")
add("header_only_csv", ["header_only.csv"] + COMMON, "error", ["header_only.csv"], note="header, no rows -> error (not an empty report).")

# 18 BOM + CRLF
d = case_dir("csv_bom_crlf")
(d / "results.csv").write_bytes("\ufeffmodel,task,attempt,compiled,correct\r\nA,b1,0,true,true\r\nA,b2,0,true,true\r\nA,b3,0,true,false\r\n".encode("utf-8"))
add("csv_bom_crlf", ["results.csv"] + COMMON, "ok",
    checks=[chk("model column recognised despite the BOM (a naive reader sees '\\ufeffmodel' and reports a missing 'model' column)", "A"),
            chk("correct value 'false\\r' / 'true\\r' parsed despite CRLF", "A"),
            chk("compile rate = 1.0", "A", "compile_rate", 1.0),
            chk("correct rate = 2/3", "A", "correct_rate", R(2 / 3)),
            chk("correct Wilson interval", "A", "correct_rate_wilson", wilson(2, 3))],
    note="Excel-style CSV: UTF-8 BOM and CRLF line endings.")

# 19 truncated JSONL
d = case_dir("jsonl_truncated")
jsonl(d / "truncated.jsonl", rows1("A", ["tr1", "tr2", "tr3", "tr4"], [True] * 4, [True, False, True, True]),
      raw_tail='{"model": "A", "task": "tr5", "attempt": 0, "compi')
add("jsonl_truncated", ["truncated.jsonl"] + COMMON, "error", ["truncated.jsonl", "5"],
    note="last line (line 5) cut off with no newline; must error naming line 5, not drop it and score 4 tasks.")

# 20 parquet wrong types
d = case_dir("parquet_wrong_types")
pq.write_table(pa.table({"model": ["A"] * 3, "task": ["w1", "w2", "w3"], "attempt": pa.array([0, 0, 0], pa.int64()),
                         "compiled": [True, True, True], "correct": pa.array([1.0, 0.0, 0.5], pa.float64())}),
               d / "results.parquet")
add("parquet_wrong_types", ["results.parquet"] + COMMON, "error", ["correct"],
    note="'correct' is float64 with 0.5 on w3; ideally the message names w3/0.5. Must not threshold (0.5 -> true/false) or bool(0.5).")

# 21-27 counts errors
for name, spec, must, extra in [
        ("counts_over_total", "qwen=14/13", ["14/13"], None),
        ("counts_negative", "qwen=-1/31", ["-1/31"], None),
        ("counts_zero_total", "qwen=13/0", ["13/0"], None),
        ("counts_fraction", "qwen=13.5/31", ["13.5"], None),
        ("counts_name_twice", "qwen=13/31,qwen=9/31", ["qwen"], None),
        ("counts_name_comma", "gpt,4=13/31", ["gpt"], None),
        ("counts_name_equals", "m=x=13/31", ["13/31"],
         {"expect": "ok", "checks": [chk("a model literally named 'm=x' with rate 13/31 (rsplit on '=')", "m=x", "correct_rate", R(13 / 31))]})]:
    d = case_dir(name); (d / "README").write_text(f"no input file: --counts {spec!r}\n")
    add(name, ["--counts", spec] + COMMON, "error", must, also_acceptable=extra,
        note={"counts_over_total": "successes > total", "counts_negative": "negative count",
              "counts_zero_total": "total 0: no rate, Wilson divides by 0", "counts_fraction": "non-integer count",
              "counts_name_twice": "same model twice with different totals; must not keep the last",
              "counts_name_comma": "',' splits the spec into 'gpt' (no '=') and '4=13/31'; must error, not score a model named '4'",
              "counts_name_equals": "Decision: ambiguous name containing '=' -> error"}[name])

# 28 counts ok with compare (Fisher + Newcombe)
d = case_dir("counts_compare_ok"); (d / "README").write_text("no input file: --counts a=13/31,b=9/31\n")
fp = fisher_exact([[13, 18], [9, 22]], alternative="two-sided")[1]
add("counts_compare_ok", ["--counts", "a=13/31,b=9/31", "--compare", "a:b"] + COMMON, "ok",
    checks=[chk("a rate = 13/31", "a", "correct_rate", R(13 / 31)), chk("a Wilson", "a", "correct_rate_wilson", wilson(13, 31)),
            chk("b rate = 9/31", "b", "correct_rate", R(9 / 31)), chk("b Wilson", "b", "correct_rate_wilson", wilson(9, 31)),
            chk("difference a-b = 4/31", metric="diff", value=R(4 / 31)),
            chk("Newcombe (hybrid Wilson score, method 10) 95% interval for a-b", metric="newcombe", value=newcombe(13, 31, 9, 31)),
            chk("Fisher exact two-sided p on [[13,18],[9,22]]", metric="fisher_p", value=R(fp)),
            chk("the comparison is unpaired (no McNemar: counts carry no task pairing)"),
            chk("Holm-adjusted p equals the raw p (only one comparison)", metric="holm_p", value=R(fp))],
    note="One task = 3.2 points at n=31; the interval must straddle 0.")

# 29 counts extremes
d = case_dir("counts_extreme"); (d / "README").write_text("no input file: --counts a=31/31,b=0/31\n")
fp2 = fisher_exact([[31, 0], [0, 31]])[1]
add("counts_extreme", ["--counts", "a=31/31,b=0/31", "--compare", "a:b"] + COMMON, "ok",
    checks=[chk("a Wilson for 31/31: upper exactly 1, lower > 0.88; never > 1 or NaN", "a", "correct_rate_wilson", wilson(31, 31)),
            chk("b Wilson for 0/31: lower exactly 0", "b", "correct_rate_wilson", wilson(0, 31)),
            chk("Newcombe interval for a-b = 1.0, within [-1,1]", metric="newcombe", value=newcombe(31, 31, 0, 31)),
            chk("Fisher two-sided p", metric="fisher_p", value=float(f"{fp2:.4e}"), tolerance="relative 1e-3")],
    note="Boundary rates: naive Wald or unclamped formulas give NaN or >1.")

# 30-33 clean task lists
CA = rows1("A", ["t1", "t2", "t3", "t4"], [True] * 4, [True, True, False, True])
CB = rows1("B", ["t1", "t2", "t3", "t4"], [True, True, True, False], [True, False, True, False])
for name, clean in [("clean_none_match", "T1\nT3\nx9\n"), ("clean_all", "t4\nt2\nt1\nt3\n\n"),
                    ("clean_subset", "t1\nt3\n"), ("clean_unknown_id", "t1\nt3\nt99\n")]:
    d = case_dir(name); jsonl(d / "a.jsonl", CA); jsonl(d / "b.jsonl", CB); (d / "clean_tasks.txt").write_text(clean)
base = ["a.jsonl", "b.jsonl", "--compare", "A:B", "--clean-tasks", "clean_tasks.txt"] + COMMON
add("clean_none_match", base, "error", ["clean_tasks.txt"], error_contains_any=["T1", "x9", "t1"],
    note="No clean id matches any task (T1/T3 differ in case; x9 unknown). Must error, not score 0 tasks or ignore the list.")
add("clean_all", base, "ok",
    checks=[chk("all 4 tasks clean, 0 excluded", metric="excluded_tasks", value=0),
            chk("A correct rate = 0.75 (same as without --clean-tasks)", "A", "correct_rate", 0.75),
            chk("B correct rate = 0.5", "B", "correct_rate", 0.5),
            chk("B compile rate = 0.75", "B", "compile_rate", 0.75),
            chk("McNemar: b=2 (t2,t4 A only), c=1 (t3 B only) -> p = 1.0", metric="mcnemar_p", value=R(mcnemar_exact(2, 1)))],
    note="Clean list in a different order with a trailing blank line; results must equal the unfiltered ones.")
add("clean_subset", base, "ok",
    checks=[chk("2 tasks (t2, t4) excluded and reported", metric="excluded_tasks", value=2),
            chk("A correct rate on clean tasks {t1,t3} = 0.5", "A", "correct_rate", 0.5),
            chk("A Wilson on 1/2", "A", "correct_rate_wilson", wilson(1, 2)),
            chk("B correct rate on clean tasks = 1.0", "B", "correct_rate", 1.0),
            chk("B Wilson on 2/2", "B", "correct_rate_wilson", wilson(2, 2)),
            chk("McNemar on clean tasks: b=0, c=1 -> p = 1.0", metric="mcnemar_p", value=1.0),
            chk("if the report also shows full-set numbers, they are A 0.75 / B 0.5, clearly labelled")],
    note="Re-scoring on clean tasks recomputes everything on the subset.")
add("clean_unknown_id", base, "error", ["t99"],
    note="Decision: a clean id absent from the results (t99) means the results don't cover the audited benchmark -> error naming t99.")

# 34 pass@k with unequal attempts (parquet, rows shuffled)
d = case_dir("passk_unequal_attempts")
seqs = {"p1": [0, 1, 0, 1, 0], "p2": [0, 0, 0, 0, 0], "p3": [0, 0, 1], "p4": [1, 1, 1], "p5": [1, 1, 1, 1, 1]}
comp = {t: ([0] * len(s) if t == "p2" else [1] * len(s)) for t, s in seqs.items()}
recs = [(t, a, bool(comp[t][a]), bool(s[a])) for t, s in seqs.items() for a in range(len(s))]
import random; random.Random(7).shuffle(recs)
pq.write_table(pa.table({"model": ["A"] * len(recs), "task": [r[0] for r in recs], "attempt": pa.array([r[1] for r in recs], pa.int64()),
                         "compiled": [r[2] for r in recs], "correct": [r[3] for r in recs]}), d / "results.parquet")
pk = {}
for k in (1, 2, 3):
    vals = [pass_at_k_brute(s, k) for s in seqs.values()]
    assert all(abs(v - pass_at_k_formula(len(s), sum(s), k)) < 1e-12 for v, s in zip(vals, seqs.values()))
    pk[k] = sum(vals) / len(vals)
corr = {k: sum(any(s[:k]) for s in seqs.values()) / 5 for k in (1, 2, 3)}
compk = {k: sum(any(comp[t][:k]) for t in seqs) / 5 for k in (1, 2, 3)}
wrong4 = sum(pass_at_k_formula(len(s), sum(s), 4) if len(s) >= 4 else 1.0 * (sum(s) > 0) for s in seqs.values()) / 5
add("passk_unequal_attempts", ["results.parquet"] + COMMON, "ok",
    checks=[chk("pass@1 = mean over tasks of c/n = (0.4+0+1/3+1+1)/5", "A", "pass@1", R(pk[1])),
            chk("pass@2 (brute-force over 2-subsets, per task, then mean)", "A", "pass@2", R(pk[2])),
            chk("pass@3", "A", "pass@3", R(pk[3])),
            chk("pass@4 and pass@5 are NOT reported over all 5 tasks (p3,p4 have only 3 attempts); k is capped at min n = 3, "
                "or k>3 is reported only over tasks with n>=k and labelled as such", "A"),
            chk("Corr@1 = 0.4 (p4,p5), using attempt index not file order (rows are shuffled)", "A", "corr@1", R(corr[1])),
            chk("Corr@2 = 0.6 (p1,p4,p5)", "A", "corr@2", R(corr[2])),
            chk("Corr@3 = 0.8 (p1,p3,p4,p5)", "A", "corr@3", R(corr[3])),
            chk("Comp@1 = Comp@3 = 0.8 (p2 never compiles)", "A", "comp@1", R(compk[1])),
            chk("attempt-pooled correct rate would be 11/21 = 0.5238, per-task mean 0.5467: if 'correct rate' is pooled over attempts "
                "the report must say so; pass@1 must be 0.5467", "A", "correct_rate_pooled_alt", R(11 / 21))],
    note=f"Unequal n per task (5,5,3,3,5). pass@1..3 = {R(pk[1])},{R(pk[2])},{R(pk[3])}.")

# 35 single task
d = case_dir("single_task")
jsonl(d / "results.jsonl", [{"model": "A", "task": "only", "attempt": 0, "compiled": True, "correct": False}])
add("single_task", ["results.jsonl"] + COMMON, "ok",
    checks=[chk("correct rate 0, Wilson [0, 0.7935]", "A", "correct_rate_wilson", wilson(0, 1)),
            chk("compile rate 1, Wilson [0.2065, 1]", "A", "compile_rate_wilson", wilson(1, 1)),
            chk("bootstrap intervals (if any) are degenerate or null with a note; no crash, no NaN in JSON (NaN is not valid JSON)"),
            chk("geomean speedup is null/absent (no correct task), not NaN or 1.0")],
    note="n=1: BCa acceleration is 0/0; jackknife impossible.")

# 36 all correct, no discordant pairs
d = case_dir("all_correct_no_discordant")
tasks = [f"a{i}" for i in range(1, 6)]
jsonl(d / "a.jsonl", rows1("A", tasks, [True] * 5, [True] * 5, [1.2] * 5))
jsonl(d / "b.jsonl", rows1("B", tasks, [True] * 5, [True] * 5, [1.2] * 5))
add("all_correct_no_discordant", ["a.jsonl", "b.jsonl", "--compare", "A:B"] + COMMON, "ok",
    checks=[chk("both correct rate 1.0, Wilson", "A", "correct_rate_wilson", wilson(5, 5)),
            chk("McNemar exact p = 1.0 with b=c=0 (not NaN, not an exception)", metric="mcnemar_p", value=1.0),
            chk("paired difference = 0, bootstrap interval [0, 0] (degenerate, not NaN)", metric="diff_correct", value=0.0),
            chk("geomean speedup 1.2 for both", "A", "geomean_speedup", 1.2),
            chk("fast_1 = 1.0 for both (1.2 > 1), fast_1.5 = 0", "A", "fast_1", 1.0),
            chk("JSON output parses with a strict parser (no NaN/Infinity tokens)")],
    note="Zero-variance paired data: BCa with constant statistic divides by zero.")

# 37 Holm across three models
d = case_dir("holm_three_models")
Acor = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]; Bcor = [0, 0, 0, 0, 0, 0, 1, 1, 0, 0]; Ccor = [0, 0, 0, 1, 1, 1, 1, 1, 1, 0]
lines = ["model,task,attempt,compiled,correct"]
for m, cor in (("A", Acor), ("B", Bcor), ("C", Ccor)):
    lines += [f"{m},h{i:02d},0,1,{c}" for i, c in enumerate(cor)]
(d / "results.csv").write_text("\n".join(lines) + "\n")
pab = mcnemar_exact(6, 0); pac = mcnemar_exact(3, 1); hab, hac = holm([pab, pac])
add("holm_three_models", ["results.csv", "--compare", "A:B", "--compare", "A:C"] + COMMON, "ok",
    checks=[chk("A 0.8, B 0.2, C 0.6", "A", "correct_rate", 0.8),
            chk("B correct rate", "B", "correct_rate", 0.2), chk("C correct rate", "C", "correct_rate", 0.6),
            chk("A:B McNemar exact b=6,c=0 -> p = 2*0.5^6", metric="mcnemar_p", value=R(pab), comparison="A:B"),
            chk("A:C McNemar exact b=3,c=1 -> p = 0.625", metric="mcnemar_p", value=R(pac), comparison="A:C"),
            chk("Holm-adjusted A:B = 0.0625", metric="holm_p", value=R(hab), comparison="A:B"),
            chk("Holm-adjusted A:C = 0.625 (max(0.0625, 1*0.625))", metric="holm_p", value=R(hac), comparison="A:C"),
            chk("Holm is across the comparisons asked for (2), not across metrics x comparisons unless stated")],
    note="If --compare is single-valued in the CLI, 'A:B,A:C' is the equivalent spelling.")

# 38 path with '='
d = case_dir("path_with_equals"); (d / "runs").mkdir()
jsonl(d / "runs" / "x=1.jsonl", [{"task": "e1", "attempt": 0, "compiled": True, "correct": True},
                                 {"task": "e2", "attempt": 0, "compiled": True, "correct": False}])
add("path_with_equals", ["A=runs/x=1.jsonl"] + COMMON, "ok",
    checks=[chk("model A scored from runs/x=1.jsonl (split NAME=PATH on the FIRST '='); correct rate 0.5", "A", "correct_rate", 0.5)],
    note="rsplit('=') gives name 'A=runs/x', path '1.jsonl' -> file not found.")

# 39 compare unknown model
d = case_dir("compare_unknown_model")
jsonl(d / "results.jsonl", rows1("alpha", ["u1", "u2"], [True] * 2, [True, False]) + rows1("beta", ["u1", "u2"], [True] * 2, [False, False]))
add("compare_unknown_model", ["results.jsonl", "--compare", "alpha:gamma"] + COMMON, "error", ["gamma"],
    note="gamma is not a model in the input; must not silently skip the comparison.")

# 40 model named twice on the CLI
d = case_dir("model_named_twice_cli")
jsonl(d / "a.jsonl", [{"task": "d1", "attempt": 0, "compiled": True, "correct": True}])
jsonl(d / "b.jsonl", [{"task": "d1", "attempt": 0, "compiled": True, "correct": False}])
add("model_named_twice_cli", ["gpt4o=a.jsonl", "gpt4o=b.jsonl"] + COMMON, "error", ["gpt4o"],
    note="Same NAME for two files: either duplicate (gpt4o,d1,0) or 'model given twice'; never concatenate into 2 attempts or keep one.")

# 41 missing required column
d = case_dir("missing_task_column")
(d / "results.csv").write_text("model,problem,attempt,compiled,correct\nA,z1,0,true,true\n")
add("missing_task_column", ["results.csv"] + COMMON, "error", ["task"], note="no 'task' column (named 'problem'); error must name the column.")

(HERE / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
print(len(manifest), "cases")

HEAD = """# Red-team cases for `kvdata score`

Written without reading the scorer's code. Each case lives in `cases/<name>/`; `manifest.json` lists, per case, the
arguments after `kvdata score` (paths relative to the case folder: run with the case folder as cwd, and replace
`{OUT}` with a fresh temporary directory), the expected outcome, and:

- `error` cases: exit code nonzero; `error_contains`: substrings the message (stderr or stdout) must all contain;
  `error_contains_any`: at least one of these must appear (the row can be named by task id or by line number).
- `ok` cases: exit code 0, `--json` stdout parses with a strict JSON parser (no NaN/Infinity), and `checks`: each a
  plain-English `text` and, where a number is stated, `model` / `metric` / `value` (4 decimals; compare with an absolute
  tolerance of 1e-4; `[lo, hi]` is a 95% interval). Metric names are descriptive, not the scorer's schema.
- `also_acceptable`: a second outcome that is also correct where the spec is ambiguous (stated in `note`).

Numbers come from `gen.py` (brute-force k-subset pass@k checked against the unbiased formula, closed-form Wilson with
z=1.959964, exact two-sided McNemar = 2*Binom(min(b,c); b+c, 1/2) capped at 1 (p=1 when b+c=0), scipy Fisher exact,
Newcombe hybrid score interval, Holm step-down). Re-run `python tests/score_redteam/gen.py` to regenerate everything; `python tests/score_redteam/check_cases.py [case ...]`
runs the scorer on every case and checks exit status, error substrings and strict JSON (numeric checks are printed for a
reader, since metric names are not the scorer's schema).

Decisions taken where the brief is open: task ids compare exactly (case and whitespace matter, so mismatches are join
errors); booleans are case-insensitive with whitespace stripped; an attempt gap is an error; `inf` speedup is an error
(or, acceptably, "no speedup"); a clean-list id absent from the results is an error, results outside the clean list are
excluded and counted; fast_p uses strict `>` and all tasks as denominator; geomean is over correct tasks with a valid speedup.

| case | expect | what it tests |
|---|---|---|
"""
with open(HERE / "README.md", "w") as f:
    f.write(HEAD)
    for e in manifest:
        f.write(f"| `{e['case']}` | {e['expect']}{' (alt: ' + e['also_acceptable']['expect'] + ')' if e.get('also_acceptable') else ''} | "
                f"{e['note'].replace('|', '/')} |\n")

FINDINGS = """
## First run against the scorer (black box, without reading its code)

`check_cases.py` flagged 5 of 41 cases; two more checks fail on reading the JSON:

- `csv_bom_crlf`: the BOM is not stripped, so the scorer reports "needs columns ['model'] (has [... '\\ufeffmodel'])". Excel CSVs fail.
- `task_trailing_space`: 'task1 ' and 'task1' are merged without a word (whitespace stripped silently, no note).
- `attempt_gap`: attempts 0 and 2 with no 1 are scored as n=2 (pass@1 0.75, Corr@2 counts attempt 2 as one of the first 2), with no note.
- `speedup_string`: speedup "fast" is read as "no speedup" with no error or note (x3 stays correct, but not fast).
- `clean_unknown_id`: clean-list id t99, absent from the results, is ignored with no note.
- `missing_task_intersect` (exit status passes, a check fails): with `--on-missing intersect` the comparison uses the 4 shared tasks,
  but the per-model table still shows A on 5 tasks (0.8) beside B on 4 (0.25). Only a note says so.
- `clean_subset` (exit status passes, a check is missing): the clean-task rates are right (A 0.5, B 1.0), but the A:B comparison
  is given only on all tasks; there is no paired comparison on the clean tasks.
Everything else matches the expected numbers: Wilson, Newcombe, Fisher, McNemar, Holm, pass@k with unequal n, Corr@k by
attempt index, strict fast_p, and the geomean that ignores invalid and incorrect speedups. It also matched on string
booleans in parquet, correct-implies-compiled, the counts errors, and NAME=PATH with '=' in the path.
"""
with open(HERE / "README.md", "a") as f:
    f.write(FINDINGS)
