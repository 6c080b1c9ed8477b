"""Edits a copy makes to a Triton kernel, and look-alikes that compute something else (test-time only).

The edits are the ones a PyPI package applies to a kernel it took from elsewhere: renamed arguments (or every
name), another block size, an extra constexpr (unused, or guarding one more op), reordered constexprs, comments
and docstrings stripped, a reformat, and all of them together. A look-alike keeps the skeleton and changes the
computation: one call or arithmetic operator swapped, or the loaded input negated. Everything here works on
source text with ``ast``/``tokenize`` and is independent of ``kvdata.audit.triton_kernels`` (the code under
test), so a bug there cannot hide in the fixtures.
"""
from __future__ import annotations

import ast
import io
import random
import textwrap
import tokenize

EDITS = ("verbatim", "rename_args", "rename_all", "block_size", "extra_constexpr", "extra_constexpr_used",
         "reorder_constexprs", "strip_comments", "reformat", "combined")


# ---- locating kernels (independently of the code under test) ------------------------------------------------

def kernel_sources(code: str) -> list[tuple[str, str]]:
    """(name, dedented source with decorators) of every function with a ``jit`` in one of its decorators."""
    tree = ast.parse(code)
    lines = code.splitlines()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            first = min(d.lineno for d in node.decorator_list)
            out.append((node.name, textwrap.dedent("\n".join(lines[first - 1:node.end_lineno]))))
    return out


def _function(src: str) -> ast.FunctionDef:
    return next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef))


def _is_constexpr(arg: ast.arg) -> bool:
    return arg.annotation is not None and "constexpr" in ast.unparse(arg.annotation)


# ---- edits ----------------------------------------------------------------------------------------------------

def _rename_tokens(src: str, mapping: dict[str, str]) -> str:
    """Rename NAME tokens (not attributes, not keyword-argument names) by ``mapping``."""
    toks = [t for t in tokenize.generate_tokens(io.StringIO(src).readline)
            if t.type not in (tokenize.NL, tokenize.COMMENT)]
    lines = src.split("\n")
    edits = []
    depth = 0
    for i, t in enumerate(toks):
        if t.type == tokenize.OP and t.string in "([{":
            depth += 1
        elif t.type == tokenize.OP and t.string in ")]}":
            depth -= 1
        if t.type != tokenize.NAME or t.string not in mapping:
            continue
        prev = toks[i - 1].string if i else ""
        nxt = toks[i + 1].string if i + 1 < len(toks) else ""
        if prev == "." or (depth > 0 and nxt == "=" and prev in ("(", ",")
                           and not _is_param_position(toks, i)):
            continue
        edits.append((t.start, t.end, mapping[t.string]))
    for (r, c0), (_, c1), new in reversed(edits):
        line = lines[r - 1]
        lines[r - 1] = line[:c0] + new + line[c1:]
    return "\n".join(lines)


def _is_param_position(toks, i) -> bool:
    """Whether the NAME at ``i`` sits in the def's parameter list (a default value follows it there)."""
    depth = 0
    for j in range(i - 1, -1, -1):
        s = toks[j].string
        if s in ")]}":
            depth += 1
        elif s in "([{":
            if depth == 0:
                return j >= 2 and toks[j - 2].string == "def"
            depth -= 1
    return False


def rename_args(src: str, rng: random.Random) -> str:
    fn = _function(src)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
    style = rng.choice(["p{}", "arg{}", "t{}_", "buf_{}"])
    return _rename_tokens(src, {p: (style.format(i).upper() if p.isupper() else style.format(i))
                                for i, p in enumerate(params)})


def rename_all(src: str, rng: random.Random, functions: dict[str, str] | None = None) -> str:
    """Every argument, local and the function renamed; ``functions`` renames the item's other kernels too (at
    their call sites), as a copy that renames its helpers does."""
    fn = _function(src)
    names = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in names:
            names.append(node.id)
    mapping = {n: f"v{i}_{rng.randrange(100)}" for i, n in enumerate(names)}
    mapping.update(functions or {})
    mapping.setdefault(fn.name, f"kernel_{rng.randrange(10**6)}")
    return _rename_tokens(src, mapping)


def function_renames(srcs: list[str], rng: random.Random) -> dict[str, str]:
    """New names for the kernels of one item (shared by all its kernels)."""
    return {_function(s).name: f"kernel_{rng.randrange(10**6)}" for s in srcs}


def block_size(src: str, rng: random.Random) -> str:
    """Another block size: every power-of-two integer literal from 16 up (autotune configs, defaults, aranges)
    doubled or halved; a kernel with no such literal gets its first ``BLOCK`` constexpr fixed to 128 or 256
    (dropped from the signature, the number written where it was used)."""
    factor = rng.choice([2, 0.5])
    toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    lines = src.split("\n")
    changed = False
    for t in reversed(toks):
        if t.type == tokenize.NUMBER and t.string.isdigit():
            v = int(t.string)
            if v >= 16 and v & (v - 1) == 0:
                (r, c0), (_, c1) = t.start, t.end
                lines[r - 1] = lines[r - 1][:c0] + str(int(v * factor)) + lines[r - 1][c1:]
                changed = True
    if changed:
        return "\n".join(lines)
    fn = _function(src)
    block = next((a.arg for a in fn.args.args if _is_constexpr(a) and "BLOCK" in a.arg.upper()), None)
    if block is None:
        return src
    fixed = _with_signature(src, lambda params: [p for p in params if p[0].split(":")[0].strip() != block])
    if fixed == src:
        return src
    return _rename_tokens(fixed, {block: str(rng.choice([128, 256]))})


def _with_signature(src: str, transform) -> str:
    """``src`` with its def header rebuilt from ``transform(list of (text, is_constexpr, has_default))``."""
    fn = _function(src)
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or fn.body[0].lineno == fn.lineno:
        return src
    lines = src.split("\n")
    defaults = [None] * (len(a.args) - len(a.defaults)) + list(a.defaults)
    params = []
    for arg, default in zip(a.args, defaults):
        text = ast.get_source_segment(src, arg)
        if default is not None:
            text += " = " + ast.get_source_segment(src, default)
        params.append((text, _is_constexpr(arg), default is not None))
    params = transform(params)
    header = f"def {fn.name}(\n" + "".join(f"    {p[0]},\n" for p in params) + "):"
    body_start = fn.body[0].lineno - 1
    if isinstance(fn.body[0], ast.Expr) and fn.body[0].lineno > 1:
        body_start = fn.body[0].lineno - 1
    head = lines[:fn.lineno - 1]
    return "\n".join(head + [header] + lines[body_start:])


def reorder_constexprs(src: str, rng: random.Random) -> str:
    def transform(params):
        out = list(params)
        for has_default in (False, True):
            slots = [i for i, p in enumerate(out) if p[1] and p[2] == has_default]
            if len(slots) >= 2:
                moved = [out[i] for i in slots]
                moved = moved[::-1] if len(moved) == 2 else rng.sample(moved, len(moved))
                if [m[0] for m in moved] == [out[i][0] for i in slots]:
                    moved = moved[::-1]
                for i, m in zip(slots, moved):
                    out[i] = m
        return out
    return _with_signature(src, transform)


def extra_constexpr(src: str, rng: random.Random) -> str:
    return extra_constexpr_named(src, rng.choice(["USE_MASK", "EVEN_K", "HAS_BIAS", "NUM_STAGES_HINT", "IS_FP8",
                                                  "ALLOW_TF32"]))


def extra_constexpr_named(src: str, name: str) -> str:
    """``src`` with one more constexpr parameter ``name`` at the end of its signature (unused)."""
    def transform(params):
        default = " = False" if any(p[2] for p in params) else ""
        return params + [(f"{name}: tl.constexpr{default}", True, bool(default))]
    return _with_signature(src, transform)


def extra_constexpr_used(src: str, rng: random.Random) -> str:
    """An extra constexpr feature switch that guards one more op on the first loaded value
    (``if APPLY_RELU: x = tl.maximum(x, 0.0)``); the plain extra constexpr when nothing is loaded into a name."""
    fn = _function(src)
    loads = [n for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Call)
             and "load" in ast.unparse(n.value.func)]
    name = rng.choice(["APPLY_RELU", "CLAMP_NEG", "USE_ACT"])
    out = extra_constexpr_named(src, name)
    if not loads or out == src:
        return out
    load = loads[0]
    var = load.targets[0].id
    shift = len(out.split("\n")) - len(src.split("\n"))        # the header grew by this many lines
    lines = out.split("\n")
    at = load.end_lineno + shift
    indent = " " * load.col_offset
    lines[at:at] = [f"{indent}if {name}:", f"{indent}    {var} = tl.maximum({var}, 0.0)"]
    return "\n".join(lines)


def strip_comments(src: str) -> str:
    """Comments and docstrings removed (tokenize-based), blank lines dropped."""
    lines = src.split("\n")
    for t in tokenize.generate_tokens(io.StringIO(src).readline):
        if t.type == tokenize.COMMENT:
            r, c = t.start
            lines[r - 1] = lines[r - 1][:c].rstrip()
    fn = _function("\n".join(lines))
    drop = set()
    for node in ast.walk(fn):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str) and len(body) > 1:
            drop.update(range(body[0].lineno - 1, body[0].end_lineno))
    return "\n".join(line for i, line in enumerate(lines) if i not in drop and line.strip())


def reformat(src: str) -> str:
    return ast.unparse(_function(src))


# ---- look-alikes: the same skeleton computing something else -------------------------------------------------

CALL_SWAPS = {"exp": "log", "log": "exp", "exp2": "log2", "log2": "exp2", "maximum": "minimum",
              "minimum": "maximum", "max": "min", "min": "max", "sum": "max", "sqrt": "rsqrt", "rsqrt": "sqrt",
              "sigmoid": "exp", "abs": "sqrt", "sin": "cos", "cos": "sin", "argmax": "argmin", "argmin": "argmax",
              "cumsum": "cumprod", "cumprod": "cumsum", "tanh": "sigmoid", "erf": "tanh"}
OP_SWAPS = {ast.Add: "-", ast.Sub: "+", ast.Mult: "/", ast.Div: "*"}
_PLUMBING_WORDS = ("program_id", "arange", "stride", "ptr", "off", "mask", "idx", "range", "cdiv", "tl.load",
                   "tl.store", "//", "%")
LOOK_ALIKES = ("swap_call", "swap_op", "negate_input")


def _replace_span(src: str, start: tuple[int, int], end: tuple[int, int], text: str) -> str:
    lines = src.split("\n")
    (r0, c0), (r1, c1) = start, end
    head, tail = lines[r0 - 1][:c0], lines[r1 - 1][c1:]
    return "\n".join(lines[:r0 - 1] + [head + text + tail] + lines[r1:])


def look_alike(src: str, kind: str, rng: random.Random) -> str | None:
    """A kernel with ``src``'s skeleton that computes something else (None when ``kind`` does not apply):

    * ``swap_call``: one compute call of the body replaced (``tl.exp`` by ``tl.log``, ``maximum`` by ``minimum``,
      ``sum`` by ``max``, ...);
    * ``swap_op``: one arithmetic operator outside address and mask arithmetic replaced (``+`` by ``-``, ...);
    * ``negate_input``: the first loaded value negated (``softmax(-x)`` next to ``softmax``).
    """
    fn = _function(src)
    body_nodes = [n for stmt in fn.body for n in ast.walk(stmt)]
    if kind == "swap_call":
        calls = [n for n in body_nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr in CALL_SWAPS]
        if not calls:
            return None
        c = rng.choice(calls).func
        end = (c.end_lineno, c.end_col_offset)
        start = (c.end_lineno, c.end_col_offset - len(c.attr))
        return _replace_span(src, start, end, CALL_SWAPS[c.attr])
    if kind == "swap_op":
        lines = src.split("\n")
        ops = [n for n in body_nodes if isinstance(n, ast.BinOp) and type(n.op) in OP_SWAPS
               and n.lineno == n.end_lineno
               and not any(w in lines[n.lineno - 1] for w in _PLUMBING_WORDS)]
        if not ops:
            return None
        n = rng.choice(ops)
        line = lines[n.lineno - 1]
        gap = line[n.left.end_col_offset:n.right.col_offset]
        sym = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}[type(n.op)]
        if gap.count(sym) != 1 or n.left.end_lineno != n.lineno:
            return None
        new_gap = gap.replace(sym, OP_SWAPS[type(n.op)])
        return _replace_span(src, (n.lineno, n.left.end_col_offset), (n.lineno, n.right.col_offset), new_gap)
    if kind == "negate_input":
        loads = [n for n in body_nodes if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                 and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "load"
                 and any(k.arg in ("mask", "other") for k in n.value.keywords)]
        if not loads:
            return None
        v = loads[0].value
        return _replace_span(src, (v.lineno, v.col_offset), (v.lineno, v.col_offset), "-")
    raise ValueError(kind)


def edit_kernel(src: str, kind: str, rng: random.Random, functions: dict[str, str] | None = None) -> str:
    """``src`` (one dedented kernel with decorators) after the edit ``kind`` (one of :data:`EDITS`);
    ``functions`` are the renames of the item's kernels that ``rename_all`` applies (see :func:`rename_all`)."""
    if kind == "verbatim":
        return src
    if kind == "rename_args":
        return rename_args(src, rng)
    if kind == "rename_all":
        return rename_all(src, rng, functions)
    if kind == "block_size":
        return block_size(src, rng)
    if kind == "extra_constexpr":
        return extra_constexpr(src, rng)
    if kind == "extra_constexpr_used":
        return extra_constexpr_used(src, rng)
    if kind == "reorder_constexprs":
        return reorder_constexprs(src, rng)
    if kind == "strip_comments":
        return strip_comments(src)
    if kind == "reformat":
        return reformat(src)
    if kind == "combined":
        out = strip_comments(block_size(src, rng))
        out = extra_constexpr(reorder_constexprs(out, rng), rng)
        return rename_all(out, rng, functions)
    raise ValueError(kind)
