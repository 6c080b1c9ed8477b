"""Build the red-team corpus and verify it.

    python check.py [path/to/TritonBench_G_v1.json]
"""
import ast
import collections
import difflib
import io
import json
import os
import sys
import tokenize

import plant

PATH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.environ.get("KVDATA_SHARED_DATA", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                                      "shared", "data")), "tritonbench", "TritonBench_G_v1.json")


def tokens(code):
    return [t.string for t in tokenize.generate_tokens(io.StringIO(code).readline)
            if t.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.STRING)]


def defs(text):
    return {n.name: n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}


def main():
    files, truth = plant.build_corpus(PATH)
    files2, truth2 = plant.build_corpus(PATH)
    assert files == files2 and truth == truth2, "build_corpus is not deterministic"
    items = {x["file"]: x["output"].replace("\r\n", "\n") for x in json.load(open(PATH))}
    problems = []

    for name, text in sorted(files.items()):
        ast.parse(text)  # raises on invalid Python
        if "<<PLANT:" in text:
            problems.append(f"{name}: marker left behind")

    ratios = collections.defaultdict(list)
    for row in truth:
        if row["status"] != "planted":
            continue
        text = files[row["library_file"]]
        have = defs(text)
        src = items[row["bench_file"]]
        for k in row["kernels"]:
            if k not in have:
                problems.append(f"{row['bench_file']}: kernel {k} missing from {row['library_file']}")
                continue
            orig = plant._segment(src, defs(src)[k])
            got = plant._segment(text, have[k])
            if row["edit"] == "verbatim":
                if orig not in text:
                    problems.append(f"{row['bench_file']}: verbatim kernel {k} not found as-is")
            ratios[row["edit"]].append(difflib.SequenceMatcher(None, tokens(orig), tokens(got)).ratio())
        if row["edit"] != "verbatim":
            if all(plant._segment(src, defs(src)[k]) in text for k in row["kernels"]):
                problems.append(f"{row['bench_file']}: edit {row['edit']} left every kernel unchanged")

    for row in truth:
        if row.get("lookalike_in"):
            have = defs(files[row["lookalike_in"]])
            for k in row["lookalike_kernels"]:
                if k not in have:
                    problems.append(f"look-alike {k} missing from {row['lookalike_in']}")

    planted = [r for r in truth if r["status"] == "planted"]
    absent = [r for r in truth if r["status"] == "absent"]
    assert not {r["bench_file"] for r in planted} & {r["bench_file"] for r in absent}
    print(f"library files: {len(files)}")
    for name, text in sorted(files.items()):
        n_jit = sum(1 for n in ast.parse(text).body if plant.is_jit(n))
        n_pl = sum(r["library_file"] == name for r in planted)
        print(f"  {name:24s} {len(text.splitlines()):5d} lines {n_jit:3d} jit functions  {n_pl} plants")
    print(f"truth rows: {len(truth)}  by status: {dict(collections.Counter(r['status'] for r in truth))}")
    print(f"look-alikes (absent, with an independent kernel of the same kind): "
          f"{sum(1 for r in absent if r.get('lookalike_in'))}")
    print(f"siblings of planted items left out of truth: {sum(len(r['siblings_not_scored']) for r in planted)}")
    print("plants by edit (token similarity of planted kernel to the benchmark kernel, min/mean):")
    for e, c in sorted(collections.Counter(r["edit"] for r in planted).items()):
        rs = ratios[e]
        print(f"  {e:18s} {c:3d}   sim {min(rs):.2f} / {sum(rs) / len(rs):.2f}")
    combos = collections.Counter("+".join(r["combo_parts"]) for r in planted if r.get("combo_parts"))
    print(f"combo parts: {dict(combos)}")
    print(f"planted with wrapper: {sum(r['with_wrapper'] for r in planted)}")
    if problems:
        print("PROBLEMS:")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
