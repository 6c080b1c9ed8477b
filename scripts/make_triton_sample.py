"""Write the bundled Triton sample (builders/sample/triton/) from the task table below.

One table of small tasks, written in the four raw layouts the Triton Sources read:

* ``kernelbench/<task>/{reference.py,kernel.py}``  (triton_kernelbench; most tasks)
* ``kernelbook/kernelbook_sample.parquet``         (triton_kernelbook, written with pyarrow)
* ``github/tritonbench_g_sample.json``             (triton_github, TritonBench-G form)
* ``table/agent_outputs.jsonl``                    (triton_table, with renamed columns)

plus ``expected.json`` (task_name -> "correct" | "incorrect" | "malformed") for tests that
need ground truth, and ``sources.yaml``. All code here is original, written for kvdata.
Shapes are small so each task runs in well under a second under ``TRITON_INTERPRET=1``.

    python scripts/make_triton_sample.py          # rewrite the sample
    python scripts/check_triton_sample.py         # verify labels on the CPU interpreter
"""
from __future__ import annotations

import json
import re
import shutil
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import yaml

ROOT = Path(__file__).resolve().parent.parent / "builders" / "sample" / "triton"

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
KHEADER = "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n"


def code(text: str) -> str:
    return textwrap.dedent(text).strip("\n") + "\n"


@dataclass
class Task:
    name: str
    label: str                  # correct | incorrect | malformed
    form: str                   # kernelbench | kernelbook | github | table
    reference: str
    kernel: str
    extra: dict = field(default_factory=dict)   # per-form metadata (license, entry point...)
    why: str = ""               # for incorrect / malformed: what is wrong


TASKS: list[Task] = []


def add(*args, **kwargs) -> None:
    TASKS.append(Task(*args, **kwargs))


# ------------------------------------------------------------------ elementwise helpers
def unary_reference(doc: str, expr: str, shape: str = "16, 100", init_args: str = "",
                    init_body: str = "", inputs: Optional[str] = None, init_inputs: str = "[]") -> str:
    """A KernelBench reference applying ``expr`` (a function of x) elementwise."""
    sig = f"self{', ' + init_args if init_args else ''}"
    body = textwrap.indent(code(init_body), " " * 8) if init_body else ""
    inputs = inputs or f"[torch.randn({shape})]"
    return HEADER + f'''

class Model(nn.Module):
    """{doc}"""

    def __init__({sig}):
        super().__init__()
{body}
    def forward(self, x):
        return {expr}


def get_inputs():
    return {inputs}


def get_init_inputs():
    return {init_inputs}
'''


#: Naming schemes for the generated kernels. The build's near-duplicate filter compares 5-token
#: shingles of kernel code, so one template with one set of names would make every elementwise task
#: a "near duplicate" of the others; each task gets its own scheme (and structure) instead.
SCHEMES: list[dict[str, str]] = [
    {},
    {"x_ptr": "src", "out_ptr": "dst", "n_elements": "total", "BLOCK_SIZE": "TILE", "offsets": "idx",
     "mask": "keep", "pid": "prog", "x": "v", "y": "r", "out": "result", "n": "count",
     "n_cols": "width", "cols": "lane", "BLOCK_N": "WIDTH_P2", "row": "r_id", "n_rows": "height"},
    {"x_ptr": "in_ptr0", "out_ptr": "out_ptr0", "n_elements": "xnumel", "BLOCK_SIZE": "XBLOCK",
     "offsets": "xindex", "mask": "xmask", "pid": "xoffset", "x": "tmp0", "y": "tmp1", "out": "buf0",
     "n": "numel", "n_cols": "rnumel", "cols": "rindex", "BLOCK_N": "RBLOCK", "row": "xrow", "n_rows": "xrows"},
    {"x_ptr": "input_ptr", "out_ptr": "output_ptr", "n_elements": "num_elements", "BLOCK_SIZE": "BLOCK",
     "offsets": "positions", "mask": "in_bounds", "pid": "block_id", "x": "val", "y": "res", "out": "output",
     "n": "size", "n_cols": "row_len", "cols": "col_ids", "BLOCK_N": "COLS_P2", "row": "row_id", "n_rows": "num_rows"},
    {"x_ptr": "a_ptr", "out_ptr": "b_ptr", "n_elements": "length", "BLOCK_SIZE": "CHUNK", "offsets": "off",
     "mask": "ok", "pid": "chunk", "x": "a", "y": "b", "out": "out_t", "n": "length_",
     "n_cols": "ncol", "cols": "k", "BLOCK_N": "KB", "row": "i_row", "n_rows": "nrow"},
    {"x_ptr": "p_in", "out_ptr": "p_out", "n_elements": "count_", "BLOCK_SIZE": "VEC", "offsets": "lanes",
     "mask": "active", "pid": "program", "x": "xs", "y": "ys", "out": "ys_buf", "n": "cnt",
     "n_cols": "dim", "cols": "j", "BLOCK_N": "DIMB", "row": "r", "n_rows": "rows_"},
]
# tl keyword arguments that share a name with a renamed variable: `mask=` in tl.load/tl.store.
_KEYWORDS = {"mask"}


def rename(text: str, scheme: int) -> str:
    """Rename the canonical identifiers of a generated module by a naming scheme (whole words;
    a keyword argument such as ``mask=`` keeps its name)."""
    mapping = SCHEMES[scheme]
    if not mapping:
        return text
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, mapping), key=len, reverse=True)) + r")\b(=(?!=))?")

    def sub(m: re.Match) -> str:
        name, kw = m.group(1), m.group(2)
        if kw and name in _KEYWORDS:
            return m.group(0)
        return mapping[name] + (kw or "")

    return pattern.sub(sub, text)


_UNARY_BODIES = {
    # one program per BLOCK_SIZE elements of the flattened tensor
    "flat": (
        "pid = tl.program_id(0)\n"
        "offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n"
        "mask = offsets < n_elements\n"
        "x = tl.load(x_ptr + offsets, mask=mask, other=0.0)\n"
        "y = {expr}\n"
        "tl.store(out_ptr + offsets, y, mask=mask)\n"),
    # a fixed number of programs, each striding over the tensor
    "loop": (
        "pid = tl.program_id(0)\n"
        "for start in range(pid * BLOCK_SIZE, n_elements, NUM_PROGRAMS * BLOCK_SIZE):\n"
        "    offsets = start + tl.arange(0, BLOCK_SIZE)\n"
        "    mask = offsets < n_elements\n"
        "    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)\n"
        "    y = {expr}\n"
        "    tl.store(out_ptr + offsets, y, mask=mask)\n"),
    # one program per row of a 2-D view, reading through the row stride
    "rows": (
        "row = tl.program_id(0)\n"
        "cols = tl.arange(0, BLOCK_N)\n"
        "mask = cols < n_cols\n"
        "x = tl.load(x_ptr + row * stride_row + cols, mask=mask, other=0.0)\n"
        "y = {expr}\n"
        "tl.store(out_ptr + row * n_cols + cols, y, mask=mask)\n"),
}
_ALLOC = {"zeros": "torch.zeros_like(x)", "empty": "torch.empty_like(x)",
          "new": "torch.empty(x.shape, device=x.device, dtype=x.dtype)"}


def unary_kernel(kname: str, tl_expr: str, init_args: str = "", init_body: str = "",
                 scalars: str = "", launch_scalars: str = "", grid: str = "triton.cdiv(n, BLOCK_SIZE)",
                 structure: str = "flat", scheme: int = 0, alloc: str = "empty") -> str:
    """A Triton module: one elementwise kernel and ModelNew launching it on x's device."""
    sig = f"self{', ' + init_args if init_args else ''}"
    init = textwrap.indent(code(init_body), " " * 8) if init_body else ""
    extra = f"{scalars}, " if scalars else ""
    lextra = f"{launch_scalars}, " if launch_scalars else ""
    body = textwrap.indent(_UNARY_BODIES[structure].format(expr=tl_expr), "    ")
    if structure == "rows":
        params = f"x_ptr, out_ptr, n_cols, stride_row, {extra}BLOCK_N: tl.constexpr"
        launch = (f"        x2 = x.reshape(-1, x.shape[-1])\n"
                  f"        out = {_ALLOC[alloc].replace('x', 'x2')}\n"
                  f"        n_rows, n_cols = x2.shape\n"
                  f"        {kname}[(n_rows,)](x2, out, n_cols, x2.stride(0), {lextra}"
                  f"BLOCK_N=triton.next_power_of_2(n_cols))\n"
                  f"        return out.reshape(x.shape)\n")
    else:
        consts = "BLOCK_SIZE: tl.constexpr" + (", NUM_PROGRAMS: tl.constexpr" if structure == "loop" else "")
        params = f"x_ptr, out_ptr, n_elements, {extra}{consts}"
        grid_expr = "NUM_PROGRAMS" if structure == "loop" else grid
        more = ", NUM_PROGRAMS=NUM_PROGRAMS" if structure == "loop" else ""
        launch = (f"        x = x.contiguous()\n"
                  f"        out = {_ALLOC[alloc]}\n"
                  f"        n = x.numel()\n"
                  f"        BLOCK_SIZE = 256\n"
                  + ("        NUM_PROGRAMS = 4\n" if structure == "loop" else "")
                  + f"        {kname}[({grid_expr},)](x, out, n, {lextra}BLOCK_SIZE=BLOCK_SIZE{more})\n"
                  f"        return out\n")
    return KHEADER + f"""

@triton.jit
def {kname}({params}):
{body}

class ModelNew(nn.Module):
    def __init__({sig}):
        super().__init__()
{init}
    def forward(self, x):
{launch}"""


def unary_styled(kname: str, tl_expr: str, style: tuple[str, int, str], **kw) -> str:
    structure, scheme, alloc = style
    return rename(unary_kernel(kname, tl_expr, structure=structure, alloc=alloc, **kw), scheme)


def unary(name, doc, torch_expr, tl_expr, style, label="correct", why="", **kw):
    ref_kw = {k: kw[k] for k in ("shape", "init_args", "init_body", "inputs", "init_inputs") if k in kw}
    ker_kw = {k: kw[k] for k in ("init_args", "init_body", "scalars", "launch_scalars", "grid") if k in kw}
    add(name, label, "kernelbench", unary_reference(doc, torch_expr, **ref_kw),
        unary_styled(f"{name}_kernel", tl_expr, style, **ker_kw), why=why)


# ------------------------------------------------------------------ (c) kernelbench: elementwise
unary("relu", "ReLU.", "torch.relu(x)", "tl.maximum(x, 0.0)", ("flat", 0, "empty"))
unary("gelu", "GELU (exact, erf form).", "F.gelu(x)", "0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))", ("rows", 1, "new"))
unary("silu", "SiLU / swish.", "F.silu(x)", "x * tl.sigmoid(x)", ("loop", 2, "empty"))
unary("sigmoid", "Logistic sigmoid.", "torch.sigmoid(x)", "tl.sigmoid(x)", ("flat", 3, "new"))
unary("tanh", "Hyperbolic tangent.", "torch.tanh(x)",
      "tl.where(x >= 0, 1.0, -1.0) * (1.0 - tl.exp(-2.0 * tl.abs(x))) / (1.0 + tl.exp(-2.0 * tl.abs(x)))", ("rows", 4, "empty"))
unary("exp", "Exponential.", "torch.exp(x)", "tl.exp(x)", ("loop", 5, "new"))
unary("leaky_relu", "LeakyReLU with a configurable slope.", "F.leaky_relu(x, self.negative_slope)",
      "tl.where(x > 0, x, x * negative_slope)", ("flat", 4, "zeros"),
      init_args="negative_slope", init_body="self.negative_slope = negative_slope",
      init_inputs="[0.1]", scalars="negative_slope", launch_scalars="self.negative_slope")
unary("clamp", "Clamp to [low, high].", "torch.clamp(x, self.low, self.high)",
      "tl.minimum(tl.maximum(x, low), high)", ("loop", 1, "empty"),
      init_args="low, high", init_body="self.low = low\nself.high = high",
      init_inputs="[-0.5, 0.5]", scalars="low, high", launch_scalars="self.low, self.high")
unary("relu_tail_dropped", "ReLU.", "torch.relu(x)", "tl.maximum(x, 0.0)", ("flat", 5, "zeros"), label="incorrect",
      grid="n // BLOCK_SIZE",
      why="the grid rounds down (n // BLOCK) instead of up: the last 64 of 1600 elements are never written")
unary("gelu_tanh_wrong_constant", "GELU, tanh approximation.", "F.gelu(x, approximate='tanh')",
      "0.5 * x * (1.0 + (2.0 * tl.sigmoid(2.0 * (0.7978845608028654 * (x + 0.44715 * x * x * x)))) - 1.0)", ("loop", 3, "empty"),
      label="incorrect", why="cubic coefficient 0.44715 instead of 0.044715")

add("add", "correct", "kernelbench", HEADER + '''

class Model(nn.Module):
    """Elementwise sum of two tensors."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a + b


def get_inputs():
    return [torch.randn(32, 50), torch.randn(32, 50)]


def get_init_inputs():
    return []
''', KHEADER + '''

@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, a + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        out = torch.empty_like(a)
        n = a.numel()
        add_kernel[(triton.cdiv(n, 512),)](a, b, out, n, BLOCK_SIZE=512)
        return out
''')

add("scale_bias", "correct", "kernelbench", HEADER + '''

class Model(nn.Module):
    """y = x * scale + bias, with a learned per-feature bias."""

    def __init__(self, features, scale):
        super().__init__()
        self.scale = scale
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x):
        return x * self.scale + self.bias


def get_inputs():
    return [torch.randn(24, 40)]


def get_init_inputs():
    return [40, 1.5]
''', KHEADER + '''

@triton.jit
def scale_bias_kernel(x_ptr, bias_ptr, out_ptr, n_elements, features, scale, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    b = tl.load(bias_ptr + offsets % features, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, x * scale + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features, scale):
        super().__init__()
        self.scale = scale
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        scale_bias_kernel[(triton.cdiv(n, 256),)](x, self.bias, out, n, x.shape[-1], self.scale, BLOCK_SIZE=256)
        return out
''')


# ------------------------------------------------------------------ (c) kernelbench: row reductions
def row_reference(doc: str, expr: str, inputs: str = "[torch.randn(16, 50)]") -> str:
    return HEADER + f'''

class Model(nn.Module):
    """{doc}"""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return {expr}


def get_inputs():
    return {inputs}


def get_init_inputs():
    return []
'''


def row_kernel(kname: str, body: str, squeeze: bool = True, scheme: int = 0) -> str:
    """One program per row: load the row into a BLOCK_N block (masked), compute, store."""
    alloc = "torch.empty(n_rows, device=x.device, dtype=x.dtype)" if squeeze else "torch.empty_like(x)"
    return rename(KHEADER + f'''

@triton.jit
def {kname}(x_ptr, out_ptr, n_cols, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
{textwrap.indent(code(body), "    ")}

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = {alloc}
        BLOCK_N = triton.next_power_of_2(n_cols)
        {kname}[(n_rows,)](x, out, n_cols, BLOCK_N=BLOCK_N)
        return out
''', scheme)


add("row_sum", "correct", "kernelbench", row_reference("Sum over the last dimension.", "torch.sum(x, dim=1)"),
    row_kernel("row_sum_kernel", """
        x = tl.load(x_ptr + pid * n_cols + cols, mask=mask, other=0.0)
        tl.store(out_ptr + pid, tl.sum(x, axis=0))
    """))
add("row_mean", "correct", "kernelbench", row_reference("Mean over the last dimension.", "torch.mean(x, dim=1)"),
    row_kernel("row_mean_kernel", """
        x = tl.load(x_ptr + pid * n_cols + cols, mask=mask, other=0.0)
        tl.store(out_ptr + pid, tl.sum(x, axis=0) / n_cols)
    """, scheme=1))
add("row_max", "correct", "kernelbench", row_reference("Max over the last dimension.", "torch.amax(x, dim=1)"),
    row_kernel("row_max_kernel", """
        x = tl.load(x_ptr + pid * n_cols + cols, mask=mask, other=-float("inf"))
        tl.store(out_ptr + pid, tl.max(x, axis=0))
    """, scheme=2))
add("softmax", "correct", "kernelbench",
    row_reference("Softmax over the last dimension.", "torch.softmax(x, dim=1)", "[torch.randn(8, 64) * 40.0]"),
    row_kernel("softmax_kernel", """
        x = tl.load(x_ptr + pid * n_cols + cols, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        tl.store(out_ptr + pid * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)
    """, squeeze=False, scheme=3))
add("log_softmax", "correct", "kernelbench",
    row_reference("Log-softmax over the last dimension.", "torch.log_softmax(x, dim=1)", "[torch.randn(12, 30) * 5.0]"),
    row_kernel("log_softmax_kernel", """
        x = tl.load(x_ptr + pid * n_cols + cols, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        lse = tl.log(tl.sum(tl.exp(x), axis=0))
        tl.store(out_ptr + pid * n_cols + cols, x - lse, mask=mask)
    """, squeeze=False, scheme=4))
add("cumsum", "correct", "kernelbench", row_reference("Inclusive prefix sum along the last dimension.",
                                                      "torch.cumsum(x, dim=1)", "[torch.randn(8, 50)]"),
    row_kernel("cumsum_kernel", """
        x = tl.load(x_ptr + pid * n_cols + cols, mask=mask, other=0.0)
        tl.store(out_ptr + pid * n_cols + cols, tl.cumsum(x, axis=0), mask=mask)
    """, squeeze=False, scheme=5))
add("softmax_no_max", "incorrect", "kernelbench",
    row_reference("Softmax over the last dimension.", "torch.softmax(x, dim=1)", "[torch.randn(8, 64) * 40.0]"),
    row_kernel("softmax_no_max_kernel", """
        x = tl.load(x_ptr + pid * n_cols + cols, mask=mask, other=-float("inf"))
        e = tl.exp(x)
        tl.store(out_ptr + pid * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)
    """, squeeze=False, scheme=1),
    why="no max subtraction: exp overflows to inf for inputs ~N(0, 40^2) and the row becomes nan")
add("row_sum_wrong_axis", "incorrect", "kernelbench",
    row_reference("Sum over the last dimension.", "torch.sum(x, dim=1)", "[torch.randn(32, 32)]"),
    row_kernel("row_sum_wrong_axis_kernel", """
        x = tl.load(x_ptr + cols * n_cols + pid, mask=mask, other=0.0)
        tl.store(out_ptr + pid, tl.sum(x, axis=0))
    """, scheme=5), why="sums columns instead of rows; the square input hides it from a shape check")

add("layernorm", "correct", "kernelbench", HEADER + '''

class Model(nn.Module):
    """LayerNorm over the last dimension, with learned (non-trivial) affine parameters."""

    def __init__(self, features):
        super().__init__()
        self.norm = nn.LayerNorm(features)
        with torch.no_grad():
            self.norm.weight.normal_()
            self.norm.bias.normal_()

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(16, 48)]


def get_init_inputs():
    return [48]
''', KHEADER + '''

@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / n_cols
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    y = diff / tl.sqrt(var + eps) * w + b
    tl.store(out_ptr + row * n_cols + cols, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.norm = nn.LayerNorm(features)

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty_like(x)
        layernorm_kernel[(n_rows,)](x, self.norm.weight, self.norm.bias, out, n_cols, self.norm.eps,
                                    BLOCK_N=triton.next_power_of_2(n_cols))
        return out
''')

add("rmsnorm", "correct", "kernelbench", HEADER + '''

class Model(nn.Module):
    """RMSNorm over the last dimension with a learned scale."""

    def __init__(self, features, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(features))

    def forward(self, x):
        rms = torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)
        return x / rms * self.weight


def get_inputs():
    return [torch.randn(20, 36)]


def get_init_inputs():
    return [36]
''', KHEADER + '''

@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    rms = tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, x / rms * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(features))

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty_like(x)
        rmsnorm_kernel[(n_rows,)](x, self.weight, out, n_cols, self.eps, BLOCK_N=triton.next_power_of_2(n_cols))
        return out
''')

# ------------------------------------------------------------------ (c) kernelbench: tl.dot and 2-D tiles
# tl.dot multiplies in TF32 on NVIDIA GPUs by default, which misses the fp32 reference by ~1e-3..1e-2
# (seen on an H200); the samples ask for IEEE fp32 so they are correct on every backend.
MATMUL_KERNEL = '''

@triton.jit
def matmul_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  HAS_BIAS: tl.constexpr, APPLY_RELU: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    if HAS_BIAS:
        acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0)[None, :]
    if APPLY_RELU:
        acc = tl.maximum(acc, 0.0)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b, bias=None, relu=False):
    """a (M, K) @ b (K, N) [+ bias] [relu]; b may be a transposed view (strides are passed)."""
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
    matmul_kernel[grid](a, b, bias if bias is not None else c, c, M, N, K,
                        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        HAS_BIAS=bias is not None, APPLY_RELU=relu, BLOCK_M=16, BLOCK_N=32, BLOCK_K=32)
    return c
'''

add("matmul", "correct", "kernelbench", HEADER + '''

class Model(nn.Module):
    """Plain matrix product of two non-square matrices."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(40, 56), torch.randn(56, 48)]


def get_init_inputs():
    return []
''', KHEADER + MATMUL_KERNEL + '''

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return matmul(a, b)
''')

add("linear_relu", "correct", "kernelbench", HEADER + '''

class Model(nn.Module):
    """relu(x @ W^T + b) with an nn.Linear layer."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(24, 40)]


def get_init_inputs():
    return [40, 36]
''', KHEADER + '''

@triton.jit
def linear_relu_kernel(inp, weight, bias, res, rows, outs, ins,
                       ROWS_T: tl.constexpr, OUTS_T: tl.constexpr, INS_T: tl.constexpr):
    """res[rows, outs] = relu(inp[rows, ins] @ weight[outs, ins]^T + bias[outs]); all row-major."""
    i = tl.program_id(0) * ROWS_T + tl.arange(0, ROWS_T)
    o = tl.program_id(1) * OUTS_T + tl.arange(0, OUTS_T)
    total = tl.zeros((ROWS_T, OUTS_T), dtype=tl.float32)
    for kk in range(0, ins, INS_T):
        c = kk + tl.arange(0, INS_T)
        lhs = tl.load(inp + i[:, None] * ins + c[None, :], mask=(i[:, None] < rows) & (c[None, :] < ins), other=0.0)
        rhs = tl.load(weight + o[:, None] * ins + c[None, :], mask=(o[:, None] < outs) & (c[None, :] < ins), other=0.0)
        total += tl.dot(lhs, tl.trans(rhs), input_precision="ieee")
    total = total + tl.load(bias + o, mask=o < outs, other=0.0)[None, :]
    total = tl.where(total > 0.0, total, 0.0)
    tl.store(res + i[:, None] * outs + o[None, :], total, mask=(i[:, None] < rows) & (o[None, :] < outs))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = x.contiguous()
        rows, ins = x.shape
        outs = self.fc.out_features
        y = torch.empty((rows, outs), device=x.device, dtype=x.dtype)
        grid = (triton.cdiv(rows, 16), triton.cdiv(outs, 16))
        linear_relu_kernel[grid](x, self.fc.weight.contiguous(), self.fc.bias, y, rows, outs, ins,
                                 ROWS_T=16, OUTS_T=16, INS_T=32)
        return y
''')

add("transpose", "correct", "kernelbench", HEADER + '''

class Model(nn.Module):
    """Materialised transpose of a matrix."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.t().contiguous()


def get_inputs():
    return [torch.randn(40, 56)]


def get_init_inputs():
    return []
''', KHEADER + '''

@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    rm = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rn = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(out_ptr + rn[None, :] * M + rm[:, None], tile, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        out = torch.empty((N, M), device=x.device, dtype=x.dtype)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
        transpose_kernel[grid](x, out, M, N, BLOCK=16)
        return out
''')

add("scaled_dot_attention", "correct", "kernelbench", HEADER + '''

class Model(nn.Module):
    """softmax(q k^T / sqrt(d)) v per batch entry, no mask."""

    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        scale = q.shape[-1] ** -0.5
        attn = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * scale, dim=-1)
        return torch.matmul(attn, v)


def get_inputs():
    return [torch.randn(4, 16, 32), torch.randn(4, 16, 32), torch.randn(4, 16, 32)]


def get_init_inputs():
    return []
''', KHEADER + '''

@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, scale, SEQ: tl.constexpr, DIM: tl.constexpr):
    b = tl.program_id(0)
    base = b * SEQ * DIM
    rows = tl.arange(0, SEQ)
    cols = tl.arange(0, DIM)
    offs = base + rows[:, None] * DIM + cols[None, :]
    q = tl.load(q_ptr + offs)
    k = tl.load(k_ptr + offs)
    v = tl.load(v_ptr + offs)
    s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
    s = s - tl.max(s, axis=1)[:, None]
    p = tl.exp(s)
    p = p / tl.sum(p, axis=1)[:, None]
    tl.store(out_ptr + offs, tl.dot(p, v, input_precision="ieee"))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        batch, seq, dim = q.shape
        out = torch.empty_like(q)
        attention_kernel[(batch,)](q, k, v, out, dim ** -0.5, SEQ=seq, DIM=dim)
        return out
''')

# ------------------------------------------------------------------ (c) kernelbench: malformed
add("no_get_inputs", "malformed", "kernelbench", HEADER + '''

class Model(nn.Module):
    """Negation; the reference forgot get_inputs()."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return -x


def get_init_inputs():
    return []
''', unary_styled("neg_kernel", "-x", ("flat", 2, "empty")), why="reference defines no get_inputs()")

add("no_triton_jit", "malformed", "kernelbench", unary_reference("Square.", "x * x"), KHEADER + '''

def square(x):
    return x * x


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return square(x)
''', why="kernel has no @triton.jit kernel: it is plain PyTorch")


# ------------------------------------------------------------------ (b) kernelbook parquet
def kernelbook_elementwise(cls: str, doc: str, torch_body: str, tl_expr: str, init: str = "[[], {}]",
                           init_sig: str = "", init_body: str = "", scalars: str = "", launch: str = "",
                           n_inputs: int = 1) -> tuple[str, str]:
    """(python_code, triton_code) in the KernelBook shape: entry-point class + <cls>New."""
    sig = f"self{', ' + init_sig if init_sig else ''}"
    body = textwrap.indent(code(init_body), " " * 8) if init_body else ""
    args = ", ".join(f"x{i}" for i in range(n_inputs))
    inputs = ", ".join("torch.rand([4, 4, 8, 8])" for _ in range(n_inputs))
    python_code = f'''import torch
import torch.nn as nn


class {cls}(nn.Module):
    """{doc}"""

    def __init__({sig}):
        super().__init__()
{body}
    def forward(self, {args}):
        {torch_body}


def get_inputs():
    return [{inputs}]


def get_init_inputs():
    return {init}
'''
    ptrs = ", ".join(f"in{i}_ptr" for i in range(n_inputs))
    loads = "\n".join(f"    x{i} = tl.load(in{i}_ptr + offs, mask=mask)" for i in range(n_inputs))
    new_args = ", ".join(f"input_{i}" for i in range(n_inputs))
    conts = ", ".join(f"input_{i}.contiguous()" for i in range(n_inputs))
    triton_code = f'''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def {cls.lower()}_kernel({ptrs}, out_ptr, xnumel, {scalars + ', ' if scalars else ''}XBLOCK: tl.constexpr):
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    mask = offs < xnumel
{loads}
    tl.store(out_ptr + offs, {tl_expr}, mask=mask)


def call(args{', ' + scalars if scalars else ''}):
    tensors = [a.contiguous() for a in args]
    out = torch.empty_like(tensors[0])
    n = out.numel()
    {cls.lower()}_kernel[(triton.cdiv(n, 128),)](*tensors, out, n, {scalars + ', ' if scalars else ''}XBLOCK=128)
    return (out,)


class {cls}New(nn.Module):
    def __init__({sig}):
        super().__init__()
{body}
    def forward(self, {new_args}):
        return call([{conts}]{', ' + launch if launch else ''})[0]
'''
    return python_code, triton_code


def kernelbook(cls, label, licenses, repo, *pair_args, why="", **pair_kwargs):
    py, tr = kernelbook_elementwise(cls, *pair_args, **pair_kwargs)
    add(cls, label, "kernelbook", py, tr, why=why,
        extra={"licenses": licenses, "repo_name": repo, "module_name": cls, "sha": "0" * 40, "stars": 3})


kernelbook("Square", "correct", ["MIT"], "kvdata-sample/elementwise", "x0 * x0.", "return x0 * x0", "x0 * x0")
kernelbook("HardSigmoid", "correct", ["Apache-2.0"], "kvdata-sample/activations",
           "Piecewise-linear sigmoid.", "return torch.clamp(x0 / 6.0 + 0.5, 0.0, 1.0)",
           "tl.minimum(tl.maximum(x0 / 6.0 + 0.5, 0.0), 1.0)")
kernelbook("ScaledResidual", "correct", ["BSD-3-Clause"], "kvdata-sample/blocks",
           "x + alpha * y with alpha given as a keyword argument.", "return x0 + self.alpha * x1",
           "x0 + alpha * x1", init="[[], {'alpha': 0.5}]", init_sig="alpha=1.0",
           init_body="self.alpha = alpha", scalars="alpha", launch="self.alpha", n_inputs=2)
kernelbook("Cube", "malformed", [], "kvdata-sample/elementwise", "x0 ** 3.", "return x0 * x0 * x0",
           "x0 * x0 * x0", why="no license: the `licenses` list is empty")


# ------------------------------------------------------------------ (a) TritonBench-G form JSON
def github(file, label, license_, repo, reference, kernel, why=""):
    add(file.rsplit(".", 1)[0], label, "github", reference, kernel, why=why,
        extra={"file": file, "repo": repo, "license": license_})


github("softplus.py", "correct", "MIT", "kvdata-sample/mined-kernels",
       unary_reference("Softplus, log(1 + exp(x)), stable for large x.", "F.softplus(x)", inputs="[torch.randn(16, 100) * 4.0]"),
       unary_styled("softplus_kernel", "tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(tl.minimum(x, 20.0))))",
                    ("rows", 2, "empty")))
github("row_l2_normalize.py", "correct", "Apache-2.0", "kvdata-sample/mined-kernels",
       row_reference("Each row divided by its L2 norm.", "x / torch.linalg.vector_norm(x, dim=1, keepdim=True)"),
       row_kernel("l2_normalize_kernel", """
           x = tl.load(x_ptr + pid * n_cols + cols, mask=mask, other=0.0)
           norm = tl.sqrt(tl.sum(x * x, axis=0))
           tl.store(out_ptr + pid * n_cols + cols, x / norm, mask=mask)
       """, squeeze=False, scheme=4))
github("abs_val.py", "correct", "MIT", "kvdata-sample/mined-kernels",
       unary_reference("Absolute value.", "torch.abs(x)"), unary_styled("abs_kernel", "tl.abs(x)", ("loop", 0, "new")))
github("swish_gate.py", "malformed", "Proprietary-No-Redistribution", "kvdata-sample/mined-kernels",
       unary_reference("x * sigmoid(x).", "x * torch.sigmoid(x)"), unary_styled("swish_gate_kernel", "x * tl.sigmoid(x)", ("flat", 1, "empty")),
       why="license names no SPDX id")


# ------------------------------------------------------------------ (d) table JSONL with renamed columns
def table(name, label, reference, kernel, why="", license_="MIT"):
    add(name, label, "table", reference, kernel, why=why, extra={"license": license_})


table("reciprocal", "correct", unary_reference("1 / x on inputs in [1, 2).", "torch.reciprocal(x)",
                                               inputs="[torch.rand(16, 100) + 1.0]"),
      unary_styled("reciprocal_kernel", "1.0 / x", ("rows", 5, "new")))
table("hardtanh", "correct", unary_reference("Clamp to [-1, 1].", "F.hardtanh(x)"),
      unary_styled("hardtanh_kernel", "tl.minimum(tl.maximum(x, -1.0), 1.0)", ("flat", 1, "new")))
table("mse_loss", "correct", HEADER + '''

class Model(nn.Module):
    """Mean squared error between two tensors (a scalar)."""

    def __init__(self):
        super().__init__()

    def forward(self, pred, target):
        return torch.mean((pred - target) ** 2)


def get_inputs():
    return [torch.randn(600), torch.randn(600)]


def get_init_inputs():
    return []
''', KHEADER + '''

@triton.jit
def mse_kernel(p_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    d = tl.load(p_ptr + offs, mask=mask, other=0.0) - tl.load(t_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr, tl.sum(d * d, axis=0) / n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred, target):
        pred, target = pred.contiguous(), target.contiguous()
        out = torch.empty((), device=pred.device, dtype=pred.dtype)
        n = pred.numel()
        mse_kernel[(1,)](pred, target, out, n, BLOCK=triton.next_power_of_2(n))
        return out
''')
table("empty_kernel", "malformed", unary_reference("Identity.", "x.clone()"), "   \n",
      why="kernel code is empty")


# ================================================================== writing
def write_kernelbench(root: Path, tasks: list[Task]) -> None:
    for t in tasks:
        folder = root / t.name
        folder.mkdir(parents=True)
        (folder / "reference.py").write_text(t.reference)
        (folder / "kernel.py").write_text(t.kernel)


def write_kernelbook(path: Path, tasks: list[Task]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{
        "entry_point": t.name, "original_triton_code": None, "python_code": t.reference,
        "triton_code": t.kernel, "repo_name": t.extra["repo_name"], "module_name": t.extra["module_name"],
        "synthetic": False, "licenses": t.extra["licenses"], "stars": t.extra["stars"], "sha": t.extra["sha"],
        "repo_link": f"https://github.com/{t.extra['repo_name']}",
    } for t in tasks]
    schema = pa.schema([
        ("entry_point", pa.string()), ("original_triton_code", pa.string()), ("python_code", pa.string()),
        ("triton_code", pa.string()), ("repo_name", pa.string()), ("module_name", pa.string()),
        ("synthetic", pa.bool_()), ("licenses", pa.list_(pa.string())), ("stars", pa.int64()),
        ("sha", pa.string()), ("repo_link", pa.string()),
    ])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, row_group_size=2)


def write_github(path: Path, tasks: list[Task]) -> None:
    rows = [{
        "file": t.extra["file"], "repo": t.extra["repo"], "star": "3", "difficulty": "1",
        "simp_instru": f"Write a Triton kernel for {t.name}.", "simp_instru_len": "0",
        "comp_instru": f"Write a Triton kernel for {t.name}, launched from a module ModelNew.",
        "comp_instru_len": "0", "output": t.kernel, "output_triton_len": str(len(t.kernel)),
        "pytorch_code": t.reference, "license": t.extra["license"],
    } for t in tasks]
    path.write_text(json.dumps(rows, indent=1) + "\n")


TABLE_COLUMNS = {"task_name": "name", "pytorch_code": "ref", "kernel_code": "triton", "license": "lic",
                 "generator": "model"}


def write_table(path: Path, tasks: list[Task]) -> None:
    with path.open("w") as f:
        for t in tasks:
            f.write(json.dumps({"name": t.name, "ref": t.reference, "triton": t.kernel,
                                "lic": t.extra["license"], "model": "kvdata-handwritten"}) + "\n")


SOURCES_YAML = [
    {"kind": "triton_kernelbench", "path": "kernelbench", "options": {"license": "Apache-2.0", "generator": "kvdata-handwritten"}},
    {"kind": "triton_kernelbook", "path": "kernelbook/kernelbook_sample.parquet", "options": {}},
    {"kind": "triton_github", "path": "github/tritonbench_g_sample.json", "options": {}},
    {"kind": "triton_table", "path": "table/agent_outputs.jsonl", "options": {"columns": TABLE_COLUMNS}},
]


def main() -> None:
    names = [t.name for t in TASKS]
    assert len(names) == len(set(names)), "task names must be unique across the sample"
    for sub in ("kernelbench", "kernelbook", "github", "table"):
        shutil.rmtree(ROOT / sub, ignore_errors=True)
        (ROOT / sub).mkdir(parents=True)
    by_form = {f: [t for t in TASKS if t.form == f] for f in ("kernelbench", "kernelbook", "github", "table")}
    write_kernelbench(ROOT / "kernelbench", by_form["kernelbench"])
    write_kernelbook(ROOT / "kernelbook" / "kernelbook_sample.parquet", by_form["kernelbook"])
    write_github(ROOT / "github" / "tritonbench_g_sample.json", by_form["github"])
    write_table(ROOT / "table" / "agent_outputs.jsonl", by_form["table"])
    expected = {t.name: t.label for t in sorted(TASKS, key=lambda t: t.name)}
    (ROOT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    notes = {t.name: {"form": t.form, "label": t.label, "why": t.why} for t in sorted(TASKS, key=lambda t: t.name)}
    (ROOT / "tasks.json").write_text(json.dumps(notes, indent=1) + "\n")
    header = "# Written by scripts/make_triton_sample.py: the Triton sample in its four raw layouts.\n"
    (ROOT / "sources.yaml").write_text(header + yaml.safe_dump(SOURCES_YAML, sort_keys=False))
    counts = {f: len(ts) for f, ts in by_form.items()}
    labels = {lab: sum(t.label == lab for t in TASKS) for lab in ("correct", "incorrect", "malformed")}
    print(f"wrote {len(TASKS)} tasks to {ROOT}: {counts} {labels}")


if __name__ == "__main__":
    main()
