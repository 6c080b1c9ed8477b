"""Plant TritonBench-G kernels into hand-written Triton library files.

    files, truth = build_corpus("../shared/data/tritonbench/TritonBench_G_v1.json")

``files`` maps a library file name to its final text; ``truth`` has one row per
scored benchmark item (see README.md).  The benchmark text is read from the JSON
at call time; nothing from it is stored in this folder.  Deterministic (SEED).
"""
import ast
import io
import json
import random
import re
import tokenize
from pathlib import Path

SEED = 20240817
N_PLANT = 44
LIBRARY = Path(__file__).parent / "library"
MARKER = re.compile(r"^# <<PLANT:(\w+)>>[ \t]*$", re.M)
SIBLING_JACCARD = 0.6  # benchmark items this close to a planted one are not scored
MAX_PER_SLOT = 2
EDIT_COUNTS = {"verbatim": 9, "rename_args": 6, "block_size": 6, "extra_constexpr": 6,
               "reorder_constexpr": 5, "comments": 6, "combo": 6}
SIMPLE_EDITS = ["rename_args", "block_size", "extra_constexpr", "reorder_constexpr", "comments"]

# Absent benchmark items with an independently written kernel computing the same thing.
LOOKALIKES = {
    "triton_softmax.py": ("softmax_variants.py", ["_row_softmax_fwd"]),
    "layer_norm_triton.py": ("normalization.py", ["_ln_fwd_rows", "_ln_bwd_input", "_sum_partials"]),
    "rmsnorm_triton.py": ("normalization.py", ["_rms_3d_fwd"]),
    "swiglu_fwd.py": ("elementwise_ops.py", ["_gated_silu_rows_kernel"]),
    "geglu_tanh_triton.py": ("elementwise_ops.py", ["_geglu_tanh_fwd", "_geglu_tanh_bwd"]),
    "seeded_dropout.py": ("sampling_misc.py", ["philox_dropout_kernel"]),
    "matrix_transpose.py": ("sampling_misc.py", ["tile_transpose_kernel"]),
    "mean_reduction.py": ("reductions.py", ["col_mean_kernel", "last_dim_mean_kernel"]),
    "rowwise_quantization_triton.py": ("quantization.py", ["absmax_rows_int8_kernel"]),
    "embedding_triton_kernel.py": ("sampling_misc.py", ["token_embedding_kernel"]),
}

# Where a planted item goes first (substring of its file name -> library file).
TOPICS = [
    (("softmax",), "softmax_variants.py"),
    (("norm",), "normalization.py"),
    (("entropy", "kldiv", "_ce_", "loss"), "losses.py"),
    (("rope", "rotary", "rbe"), "rotary.py"),
    (("kv", "cache", "destindex", "var_len_copy"), "kv_cache.py"),
    (("quant", "int8", "int4", "fp4", "f8_", "dequant"), "quantization.py"),
    (("matmul", "bmm", "mv_", "vecmat", "matrix", "conv"), "matmul_tiles.py"),
    (("attn", "attention", "flash", "decode"), "attention_pieces.py"),
    (("cumsum", "recurren", "retention", "chunk", "gla", "ssm", "delta", "rwkv", "hgrn", "decay"), "sequence_scan.py"),
    (("adam",), "optim_kernels.py"),
    (("dropout", "sampling", "embedding", "penalty", "select", "index", "transpose"), "sampling_misc.py"),
    (("max", "mean", "argmax", "reduction", "lock", "sum"), "reductions.py"),
]

SYNONYMS = {"ptr": "p", "input": "src", "inp": "src", "in": "src", "output": "dst", "out": "dst",
            "x": "a", "y": "b", "z": "c", "offsets": "idx", "offs": "ix", "offset": "shift", "mask": "valid",
            "pid": "prog", "row": "r", "rows": "rr", "col": "c", "cols": "cc", "stride": "st",
            "block": "tile", "BLOCK": "TILE", "SIZE": "SZ", "n": "cnt", "acc": "accum", "idx": "pos",
            "start": "begin", "end": "stop", "num": "count", "M": "ROWS", "N": "COLS", "K": "INNER",
            "elements": "elems", "weight": "wt", "bias": "shift", "scale": "mult", "seq": "tok",
            "len": "length", "head": "hd", "batch": "bt", "cur": "now", "max": "hi", "min": "lo"}
NEW_CONSTEXPRS = ["USE_FAST_PATH", "DEBUG_SYNC", "EVEN_TILES_HINT", "ENABLE_STATS", "UNROLL_HINT"]
NEW_DOCS = ["Fused kernel; one program per tile of the output.",
            "Ported from the reference implementation, see the launcher for the grid.",
            "Device-side body.  All accumulation is done in fp32.",
            "Kernel entry point (called through the wrapper below)."]


# ---------------------------------------------------------------- parsing ---

def is_jit(node):
    return isinstance(node, ast.FunctionDef) and any(
        "jit" in ast.unparse(d) for d in node.decorator_list)


def kernel_names(src):
    return [n.name for n in ast.parse(src).body if is_jit(n)]


def _segment(src, node):
    lines = src.split("\n")
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return "\n".join(lines[first - 1:node.end_lineno])


def extract(src, with_wrapper):
    """Return (header import lines, snippet text) for one benchmark item."""
    tree = ast.parse(src)
    kernels = [n for n in tree.body if is_jit(n)]
    knames = {k.name for k in kernels}
    used = {n.id for k in kernels for n in ast.walk(k) if isinstance(n, ast.Name)}
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n not in kernels}
    while True:  # helpers that the kernels' decorators use, and what those helpers use
        more = {m.id for h in helpers.values() if h.name in used for m in ast.walk(h) if isinstance(m, ast.Name)}
        if more <= used:
            break
        used |= more
    parts, imports = [], []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(_segment(src, node))
        elif isinstance(node, ast.Try) and all(isinstance(b, (ast.Import, ast.ImportFrom)) for b in node.body):
            imports.append(_segment(src, node))
        elif node in kernels:
            parts.append(_segment(src, node))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(t, ast.Name) and t.id in used for t in ast.walk(node) if isinstance(t, ast.Name)
                and isinstance(t.ctx, ast.Store)):
            parts.append(_segment(src, node))
        elif isinstance(node, ast.FunctionDef) and (node.name in used or with_wrapper and any(
                isinstance(n, ast.Name) and n.id in knames for n in ast.walk(node))):
            parts.append(_segment(src, node))
    return imports, "\n\n\n".join(parts)


def _shingles(src, k=5):
    code = "\n".join(_segment(src, n) for n in ast.parse(src).body if is_jit(n))
    toks = [t.string for t in tokenize.generate_tokens(io.StringIO(code).readline)
            if t.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER)]
    return {tuple(toks[i:i + k]) for i in range(len(toks) - k + 1)}


def sibling_groups(items):
    """Union-find over benchmark items whose kernels share >= SIBLING_JACCARD of 5-gram shingles."""
    names = sorted(items)
    sh = {f: _shingles(items[f]) for f in names}
    parent = {f: f for f in names}

    def root(f):
        while parent[f] != f:
            f = parent[f]
        return f
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if len(sh[a] & sh[b]) / max(1, len(sh[a] | sh[b])) >= SIBLING_JACCARD:
                parent[root(b)] = root(a)
    groups = {}
    for f in names:
        groups.setdefault(root(f), []).append(f)
    return sorted(groups.values())


# ------------------------------------------------------------------ edits ---

def _replace(text, spans):
    """spans: (lineno, byte_col, end_lineno, end_byte_col, new_text), non-overlapping."""
    starts, pos = [], 0
    for line in text.split("\n"):
        starts.append(pos)
        pos += len(line.encode()) + 1
    data = text.encode()
    for s, e, new in sorted(((starts[a - 1] + b, starts[c - 1] + d, n) for a, b, c, d, n in spans), reverse=True):
        data = data[:s] + new.encode() + data[e:]
    return data.decode()


def _params(fn):
    return fn.args.posonlyargs + fn.args.args


def _constexpr(arg):
    return arg.annotation is not None and ast.unparse(arg.annotation).endswith("constexpr")


def _fresh(name, taken):
    parts = [SYNONYMS.get(p, SYNONYMS.get(p.lower(), p)) for p in name.split("_")]
    cand = "_".join(parts)
    if cand == name:
        cand = name + name[-1] if len(name) <= 2 else name + ("_T" if name.isupper() else "_v")
    base, i = cand, 2
    while cand in taken:
        cand, i = f"{base}{i}", i + 1
    taken.add(cand)
    return cand


def rename_args(text, rng):
    tree = ast.parse(text)
    kernels = [n for n in tree.body if is_jit(n)]
    all_names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args + n.kwonlyargs}
    top = {t.id for n in tree.body for t in ast.walk(n) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)
           and not isinstance(n, ast.FunctionDef)} | {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    params = {a.arg for k in kernels for a in _params(k)}
    local = {n.id for k in kernels for n in ast.walk(k) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    taken = set(all_names) | top | {"tl", "triton", "torch", "math"}
    mapping = {n: _fresh(n, taken) for n in sorted((params | local) - top)}
    spans, knames = [], {k.name for k in kernels}
    for k in kernels:
        for a in _params(k):
            spans.append((a.lineno, a.col_offset, a.lineno, a.col_offset + len(a.arg), mapping[a.arg]))
        for stmt in k.body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and n.id in mapping:
                    spans.append((n.lineno, n.col_offset, n.end_lineno, n.end_col_offset, mapping[n.id]))
    body_ids = {id(n) for k in kernels for stmt in k.body for n in ast.walk(stmt)}
    body_ids |= {id(c) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for c in ast.walk(n)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):  # keyword arguments of calls to the renamed kernels
            f = n.func.value if isinstance(n.func, ast.Subscript) else n.func
            if isinstance(f, ast.Name) and f.id in knames:
                for kw in n.keywords:
                    if kw.arg in params:
                        spans.append((kw.lineno, kw.col_offset, kw.lineno, kw.col_offset + len(kw.arg),
                                      mapping[kw.arg]))
        elif (isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in params
              and id(n) not in body_ids):  # autotune keys, Config dicts, heuristics lambdas
            q = text.split("\n")[n.lineno - 1].encode()[n.col_offset:n.col_offset + 1].decode()
            spans.append((n.lineno, n.col_offset, n.end_lineno, n.end_col_offset, q + mapping[n.value] + q))
    return _replace(text, spans)


TUNABLE = re.compile(r"BLOCK|TILE|CHUNK|SIZE|GROUP|WARPS|STAGES|^BS|^BM|^BN|^BK", re.I)


def _bumped(name, v):
    if "stage" in name.lower():
        return v + 1 if v <= 3 else v - 1
    if "warp" in name.lower():
        return 8 if v == 4 else (4 if v > 4 else v * 2)
    if v >= 2 and v & (v - 1) == 0:
        return v * 2 if v <= 32 else v // 2
    return v


def block_size(text, rng):
    tree = ast.parse(text)
    spans = []

    def bump(name, node):
        if isinstance(node, ast.Constant) and type(node.value) is int and TUNABLE.search(name or ""):
            new = _bumped(name, node.value)
            if new != node.value:
                spans.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, str(new)))
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef):
            ps = _params(n)
            for a, d in zip(ps[len(ps) - len(n.args.defaults):], n.args.defaults):
                bump(a.arg, d)
        elif isinstance(n, ast.Dict):
            for k, v in zip(n.keys, n.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    bump(k.value, v)
        elif isinstance(n, ast.Call):
            for kw in n.keywords:
                bump(kw.arg, kw.value)
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            bump(n.targets[0].id, n.value)
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
            bump(n.target.id, n.value)
    for k in (n for n in tree.body if is_jit(n)):  # give trailing size constexprs a default
        ps = _params(k)
        i = len(ps) - len(k.args.defaults) - 1
        while i >= 0 and _constexpr(ps[i]) and TUNABLE.search(ps[i].arg):
            a = ps[i]
            value = 4 if "warp" in a.arg.lower() else 8 if "group" in a.arg.lower() else 128
            spans.append((a.end_lineno, a.end_col_offset, a.end_lineno, a.end_col_offset, f" = {value}"))
            i -= 1
    return _replace(text, spans)


def extra_constexpr(text, rng):
    tree = ast.parse(text)
    kernels = [n for n in tree.body if is_jit(n) and not (n.args.vararg or n.args.kwarg or n.args.kwonlyargs)]
    if not kernels:
        return text
    k = max(kernels, key=lambda n: n.end_lineno - n.lineno)
    ps = _params(k)
    if not ps:
        return text
    existing = {a.arg for a in ps}
    name = next(c for c in rng.sample(NEW_CONSTEXPRS, len(NEW_CONSTEXPRS)) if c not in existing)
    last = ps[-1]
    tail = k.args.defaults[-1] if k.args.defaults else last
    lines = text.split("\n")
    after = lines[tail.end_lineno - 1].encode()[tail.end_col_offset:].decode().lstrip()
    if after.startswith(","):
        comma = lines[tail.end_lineno - 1].encode().index(b",", tail.end_col_offset) + 1
        new = f"\n{' ' * last.col_offset}{name}: tl.constexpr = False,"
        spans = [(tail.end_lineno, comma, tail.end_lineno, comma, new)]
    else:
        spans = [(tail.end_lineno, tail.end_col_offset, tail.end_lineno, tail.end_col_offset,
                  f", {name}: tl.constexpr = False")]
    body = k.body[1:] if (len(k.body) > 1 and isinstance(k.body[0], ast.Expr)
                          and isinstance(k.body[0].value, ast.Constant)) else k.body
    first = body[0]
    if rng.random() < 0.5 and first.lineno > k.lineno and \
            lines[first.lineno - 1][:first.col_offset].strip() == "":
        ind = " " * first.col_offset
        spans.append((first.lineno, 0, first.lineno, 0, f"{ind}if {name}:\n{ind}    tl.debug_barrier()\n"))
    return _replace(text, spans)


def reorder_constexpr(text, rng):
    tree = ast.parse(text)
    spans = []
    for k in (n for n in tree.body if is_jit(n)):
        ps = _params(k)
        n_nodef = len(ps) - len(k.args.defaults)
        ends = [k.args.defaults[i - n_nodef] if i >= n_nodef else a for i, a in enumerate(ps)]
        lines = text.split("\n")
        seg = [lines[a.lineno - 1].encode()[a.col_offset:].decode() if a.lineno == e.end_lineno else None
               for a, e in zip(ps, ends)]
        for group in ([i for i in range(n_nodef) if _constexpr(ps[i])],
                      [i for i in range(n_nodef, len(ps)) if _constexpr(ps[i])]):
            if len(group) < 2 or any(seg[i] is None for i in group):
                continue
            texts = [lines[ps[i].lineno - 1].encode()[ps[i].col_offset:ends[i].end_col_offset].decode() for i in group]
            for i, t in zip(group, texts[::-1]):
                spans.append((ps[i].lineno, ps[i].col_offset, ends[i].end_lineno, ends[i].end_col_offset, t))
    return _replace(text, spans)


def comments(text, rng):
    tree = ast.parse(text)
    drop = set()
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        d = fn.body[0]
        if isinstance(d, ast.Expr) and isinstance(d.value, ast.Constant) and isinstance(d.value.value, str) \
                and d.lineno > fn.lineno and len(fn.body) > 1:
            drop.update(range(d.lineno, d.end_lineno + 1))
    lines = [l for i, l in enumerate(text.split("\n"), 1) if i not in drop]
    text = "\n".join(lines)
    cut = {}
    for t in tokenize.generate_tokens(io.StringIO(text).readline):
        if t.type == tokenize.COMMENT:
            cut[t.start[0]] = t.start[1]
    out = []
    for i, l in enumerate(text.split("\n"), 1):
        if i in cut:
            l = l[:cut[i]].rstrip()
            if not l:
                continue
        out.append(l)
    text = "\n".join(out)
    tree = ast.parse(text)
    k = max((n for n in tree.body if is_jit(n)), key=lambda n: n.end_lineno - n.lineno)
    first = k.body[0]
    if first.lineno > k.lineno:
        ind = " " * first.col_offset
        doc = rng.choice(NEW_DOCS)
        new = f'{ind}"""{doc}"""\n' if rng.random() < 0.5 else f"{ind}# {doc}\n"
        text = _replace(text, [(first.lineno, 0, first.lineno, 0, new)])
    return text


EDIT_FUNCS = {"rename_args": rename_args, "block_size": block_size, "extra_constexpr": extra_constexpr,
              "reorder_constexpr": reorder_constexpr, "comments": comments}


def apply_edit(edit, text, rng):
    """Return (new_text, edit_actually_applied, combo_parts)."""
    if edit == "verbatim":
        return text, "verbatim", None
    if edit == "combo":
        want = rng.sample(SIMPLE_EDITS, rng.choice([2, 3]))
        done = []
        for e in want + [e for e in SIMPLE_EDITS if e not in want]:
            new = EDIT_FUNCS[e](text, rng)
            if kernels_text(new) != kernels_text(text):
                text, done = new, done + [e]
            if len(done) >= len(want):
                break
        return text, "combo", done
    for e in [edit, "rename_args", "extra_constexpr", "comments"]:
        new = EDIT_FUNCS[e](text, rng)
        if kernels_text(new) != kernels_text(text):
            return new, e, None
    return text, "verbatim", None


def kernels_text(text):
    return "\n".join(_segment(text, n) for n in ast.parse(text).body if is_jit(n))


# --------------------------------------------------------------- assembly ---

def _top_names(text):
    return {n.name for n in ast.parse(text).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def _add_imports(text, imports):
    missing = [i for i in dict.fromkeys(imports) if i.strip() not in text]
    if not missing:
        return text
    tree = ast.parse(text)
    last = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))][-1]
    return _replace(text, [(last.end_lineno, last.end_col_offset, last.end_lineno, last.end_col_offset,
                            "\n" + "\n".join(missing))])


def _pick_file(bench_file, names, libs, load):
    pref = next((lib for keys, lib in TOPICS if any(k in bench_file for k in keys)), "elementwise_ops.py")
    order = [pref] + sorted(libs, key=lambda f: (sum(load[f].values()), f))
    for lib in order:
        free = [s for s, c in load[lib].items() if c < MAX_PER_SLOT]
        if free and not names & libs[lib]:
            return lib, min(free, key=lambda s: (load[lib][s], s))
    raise RuntimeError(f"no slot for {bench_file}")


def build_corpus(tritonbench_g_json_path):
    rng = random.Random(SEED)
    items = {x["file"]: x["output"].replace("\r\n", "\n") for x in json.load(open(tritonbench_g_json_path))}
    lib_text = {p.name: p.read_text() for p in sorted(LIBRARY.glob("*.py"))}
    libs = {f: _top_names(t) for f, t in lib_text.items()}
    load = {f: {m: 0 for m in MARKER.findall(t)} for f, t in lib_text.items()}
    plants = {f: {m: [] for m in load[f]} for f in lib_text}
    imports = {f: [] for f in lib_text}

    groups = sibling_groups(items)
    forced_absent = [g for g in groups if any(f in LOOKALIKES for f in g)]
    free = [g for g in groups if g not in forced_absent]
    rng.shuffle(free)
    edits = [e for e, c in EDIT_COUNTS.items() for _ in range(c)]
    assert len(edits) == N_PLANT
    rng.shuffle(edits)

    truth = []
    for group in free[:N_PLANT]:
        bench = rng.choice(group)
        coin = rng.random() < 0.4
        for j, edit in enumerate(edits + [None]):  # first still-wanted edit that applies to this item
            edit = edit or edits[0]
            with_wrapper = coin or edit in ("block_size", "combo")  # launchers hold the sizes
            head, snippet = extract(items[bench], with_wrapper)
            new, done, parts = apply_edit(edit, snippet, rng)
            if done == edit or j == len(edits):
                edits.remove(edit)
                break
        ast.parse(new)
        lib, slot = _pick_file(bench, _top_names(new), libs, load)
        libs[lib] |= _top_names(new)
        load[lib][slot] += 1
        plants[lib][slot].append(new)
        imports[lib] += head
        row = {"bench_file": bench, "status": "planted", "library_file": lib, "edit": done,
               "kernels": kernel_names(items[bench]), "slot": slot, "with_wrapper": with_wrapper,
               "siblings_not_scored": sorted(set(group) - {bench})}
        if parts:
            row["combo_parts"] = parts
        truth.append(row)
    for group in free[N_PLANT:] + forced_absent:
        for bench in group:
            row = {"bench_file": bench, "status": "absent", "library_file": None, "edit": None,
                   "kernels": kernel_names(items[bench])}
            if bench in LOOKALIKES:
                row["lookalike_in"], row["lookalike_kernels"] = LOOKALIKES[bench]
            truth.append(row)

    files = {}
    for lib, text in lib_text.items():
        def fill(m, lib=lib):
            chunks = plants[lib][m.group(1)]
            return "\n\n".join(c.strip("\n") for c in chunks) if chunks else ""
        text = MARKER.sub(fill, text)
        text = re.sub(r"\n{4,}", "\n\n\n", text)
        text = _add_imports(text, imports[lib])
        ast.parse(text)
        files[lib] = text
    truth.sort(key=lambda r: (r["status"] != "planted", r["bench_file"]))
    return files, truth
