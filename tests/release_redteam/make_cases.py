#!/usr/bin/env python3
"""Regenerate tests/release_redteam/cases/ deterministically (black-box red team of AMD release layouts).

Every tree and archive is generated here from small templates (no downloads). Every expectation was written
from docs/notes/layouts.md before the tool ran on the case; see README.md for the disclosed changes.

    python tests/release_redteam/make_cases.py          # rewrites cases/ from scratch
"""
from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import re
import shutil
import tarfile
import zlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
GM = "v0.1/PyTorch_HIP_kernel_dataset/pytorch_hip_kernel_gpumode"
AMD = "/home/amd/dataset/AIG-Datasets/" + GM          # an absolute path as recorded on AMD's machines

MIT = """MIT License

Copyright (c) 2024 Red Team Fixtures

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""

# --------------------------------------------------------------------------------------------- content
# Markers are delimited (@HIP:1@ is not a substring of @HIP:10@) so row checks can pair by substring.
OPS = ["fmaxf({v}, 0.0f)", "{v} * {v} * 0.5f", "tanhf({v}) + 0.25f", "({v} > 0.0f ? {v} : 0.01f * {v})",
       "1.0f / (1.0f + expf(-{v}))", "sqrtf(fabsf({v}) + 1e-6f)", "sinf({v}) * cosf({v})", "fminf({v}, 6.0f)",
       "logf(1.0f + expf({v}))", "{v} * (1.0f / (1.0f + expf(-1.702f * {v})))"]


def _ident(tag: str) -> str:
    return re.sub(r"\W", "_", tag, flags=re.ASCII)


def _h(tag: str) -> int:
    return zlib.crc32(tag.encode())


def hip_ext(tag: str) -> str:
    """A HIP PyTorch extension (PYBIND11_MODULE); every identifier carries the tag, so variants differ a lot."""
    m = _ident(tag)
    h = _h(tag)
    op = OPS[h % len(OPS)].format(v=f"val_{m}")
    block = [64, 128, 256, 512][(h >> 4) % 4]
    unroll = 1 + (h >> 8) % 4
    return f"""// @HIP:{tag}@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_{m} = {block};
constexpr int UNROLL_{m} = {unroll};

__global__ void kernel_{m}(const float* __restrict__ in_{m}, float* __restrict__ out_{m}, int count_{m}) {{
    int base_{m} = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_{m};
    #pragma unroll
    for (int step_{m} = 0; step_{m} < UNROLL_{m}; ++step_{m}) {{
        int pos_{m} = base_{m} + step_{m};
        if (pos_{m} < count_{m}) {{
            float val_{m} = in_{m}[pos_{m}];
            out_{m}[pos_{m}] = {op};
        }}
    }}
}}

torch::Tensor launch_{m}(torch::Tensor input_{m}) {{
    auto result_{m} = torch::empty_like(input_{m});
    int total_{m} = input_{m}.numel();
    int grid_{m} = (total_{m} + BLOCK_{m} * UNROLL_{m} - 1) / (BLOCK_{m} * UNROLL_{m});
    hipLaunchKernelGGL(kernel_{m}, dim3(grid_{m}), dim3(BLOCK_{m}), 0, 0,
                       input_{m}.data_ptr<float>(), result_{m}.data_ptr<float>(), total_{m});
    return result_{m};
}}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{
    m.def("forward", &launch_{m}, "variant {m}");
}}
"""


def hip_plain(tag: str) -> str:
    """A HIP program that is not a PyTorch extension (no PYBIND11_MODULE)."""
    m = _ident(tag)
    return f"""// @HIP:{tag}@
#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void standalone_{m}(float* data_{m}, int n_{m}) {{
    int i_{m} = blockIdx.x * blockDim.x + threadIdx.x;
    if (i_{m} < n_{m}) data_{m}[i_{m}] = data_{m}[i_{m}] * 3.0f - 1.0f;
}}

int main() {{
    float* buf_{m} = nullptr;
    hipMalloc(&buf_{m}, 1024 * sizeof(float));
    hipLaunchKernelGGL(standalone_{m}, dim3(4), dim3(256), 0, 0, buf_{m}, 1024);
    hipDeviceSynchronize();
    hipFree(buf_{m});
    printf("done\\n");
    return 0;
}}
"""


def py_module(tag: str) -> str:
    n = _h(tag) % 97
    return f"""# @MOD:{tag}@
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x) + {n}


def get_inputs():
    return [torch.randn(1024)]


def get_init_inputs():
    return []
"""


def py_func(tag: str) -> str:
    n = _h(tag) % 97
    return f"""# @FUNC:{tag}@
import torch
import torch.nn as nn
import torch.nn.functional as F


def module_fn(x):
    return F.relu(x) + {n}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, fn=module_fn):
        return fn(x)


def get_inputs():
    return [torch.randn(1024)]


def get_init_inputs():
    return []
"""


def triton_kernel(tag: str) -> str:
    m = _ident(tag)
    return f"""# @TRI:{tag}@
import torch
import triton
import triton.language as tl


@triton.jit
def kernel_{m}(x_ptr_{m}, y_ptr_{m}, n_{m}, BLOCK_{m}: tl.constexpr):
    pid_{m} = tl.program_id(0)
    offs_{m} = pid_{m} * BLOCK_{m} + tl.arange(0, BLOCK_{m})
    mask_{m} = offs_{m} < n_{m}
    x_{m} = tl.load(x_ptr_{m} + offs_{m}, mask=mask_{m})
    tl.store(y_ptr_{m} + offs_{m}, tl.maximum(x_{m}, 0.0), mask=mask_{m})


def run_{m}(x):
    y = torch.empty_like(x)
    n = x.numel()
    kernel_{m}[(triton.cdiv(n, 256),)](x, y, n, BLOCK_{m}=256)
    return y
"""


# --------------------------------------------------------------------------------------------- writers
def wb(path: Path, data) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)


def wjson(path: Path, obj, indent=2) -> None:
    wb(path, json.dumps(obj, indent=indent, ensure_ascii=False) + "\n")


def license_at(root: Path) -> None:
    wb(root / "LICENSE", MIT)


def refs(gm: Path, sid: str, module=True, functional=True) -> None:
    if module:
        wb(gm / "pytorch_code_module" / f"py_{sid}.py", py_module(sid))
    if functional:
        wb(gm / "pytorch_code_functional" / f"py_{sid}_func.py", py_func(sid))


def gm_sample(gm: Path, sid: str, files: dict, info=None, module=True, functional=True) -> None:
    """files: {name: str|bytes}; info: object (dumped), bytes (raw) or None (no info.json)."""
    refs(gm, sid, module, functional)
    d = gm / "hip_opt" / sid
    d.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        p = os.path.join(os.fsencode(d), name if isinstance(name, bytes) else os.fsencode(name))
        with open(p, "wb") as fh:
            fh.write(content.encode() if isinstance(content, str) else content)
    if info is not None:
        if isinstance(info, bytes):
            wb(d / "info.json", info)
        else:
            wjson(d / "info.json", info)


def tar_bytes(members, compress: str | None = None) -> bytes:
    """members: list of (name, bytes | None for a directory). Deterministic (mtime 0, uid 0, no names)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        for name, data in members:
            ti = tarfile.TarInfo(name)
            ti.mtime = 0
            ti.uid = ti.gid = 0
            ti.uname = ti.gname = ""
            if data is None:
                ti.type = tarfile.DIRTYPE
                ti.mode = 0o755
                tf.addfile(ti)
            else:
                ti.mode = 0o644
                ti.size = len(data)
                tf.addfile(ti, io.BytesIO(data))
    raw = buf.getvalue()
    if compress == "gz":
        out = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as g:
            g.write(raw)
        return out.getvalue()
    if compress == "bz2":
        return bz2.compress(raw)
    if compress == "xz":
        return lzma.compress(raw)
    return raw


def tree_members(root: Path, prefix: str = ""):
    """(name, bytes|None) for every entry below root, sorted, directories included."""
    out = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out.append((prefix + rel, None if p.is_dir() else p.read_bytes()))
    return out


def write_parquet(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def kit_row(hip_file, base, gen, side="single", ok=True, pt=2.0, ht=1.0, speedup=None):
    return {"hip_file": hip_file, "base_name": base, "gen_idx": gen, "compile_ok": ok, "run_ok": ok,
            "match_ok": ok, "pytorch_time_ms": pt if ok else None, "hip_time_ms": ht if ok else None,
            "speedup": (speedup if speedup is not None else (pt / ht)) if ok else None,
            "error_message": "" if ok else "mismatch", "artifact_side": side, "eval_backend": "server",
            "module_perf_enabled": False}


def kit_refs(data: Path, base: str, level: int = 1, hip=True) -> None:
    """<data>/level-N/{hip_code/hip_<b>.hip, pytorch_code_module/py_<b>.py, pytorch_code_functional/py_<b>.py}"""
    lv = data / f"level-{level}"
    short = base.replace("hip_", "py_")
    if hip:
        wb(lv / "hip_code" / f"{base}.hip", hip_ext(f"base_{base}"))
    wb(lv / "pytorch_code_module" / f"{short}.py", py_module(base))
    wb(lv / "pytorch_code_functional" / f"{short}.py", py_func(base))


# --------------------------------------------------------------------------------------------- cases
ALL: dict[str, tuple[dict, callable]] = {}


def case(cid):
    def deco(fn):
        ALL[cid] = fn
        return fn
    return deco


def src(kind, path):
    return {"kind": kind, "path": path}


def acc(input, kept, rejected=None, duplicates=0, rows=None, rejects=None, no_rows_contain=None):
    d = {"input": input, "kept": kept, "rejected": rejected or {}, "duplicates": duplicates}
    if rows:
        d["rows"] = rows
    if rejects:
        d["rejects"] = rejects
    if no_rows_contain:
        d["no_rows_contain"] = no_rows_contain
    return d


def pairs(sid, hip_tag, **more):
    """A kept hip_gpumode row whose kernel is hip_tag must carry sample sid's module and functional."""
    return {"where": {"kernel_code~": f"@HIP:{hip_tag}@"},
            "expect": {"pytorch_code~": f"@MOD:{sid}@", "pytorch_functional_code~": f"@FUNC:{sid}@", **more}}


# ----------------------------------------------------------------------------- v0.1 gpumode, files
@case("gm_baseline")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "101", {"a.hip": hip_ext("101a"), "b.hip": hip_ext("101b")},
              {"a.hip": {"code": hip_ext("101a"), "speedup": 1.5, "correct": True},
               "b.hip": {"code": hip_ext("101b"), "speedup": 0.8, "correct": True}})
    gm_sample(gm, "202", {"k.hip": hip_ext("202k")}, {"k.hip": {"code": hip_ext("202k"), "speedup": 3.0}})
    return {
        "rationale": "The documented v0.1 layout exactly: py_<id>.py, py_<id>_func.py, hip_opt/<id>/*.hip and an "
                     "info.json keyed by the file names, each entry with `code` and a speedup. One row per .hip "
                     "file (entries that name a file describe it, they are not extra records); speedup and "
                     "correct go to `verification`.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(3, 3, rows=[
                        pairs("101", "101a", task_name="101", **{"verification.speedup": 1.5, "verification.correct": True}),
                        pairs("101", "101b", task_name="101", **{"verification.speedup": 0.8}),
                        pairs("202", "202k", task_name="202", **{"verification.speedup": 3.0})])}}],
        "inspect": [{"path": "gm", "expect": {".": "hip_gpumode"}, "exact": True}],
    }


DECIDED = "Decided otherwise after the red team (kvdata's rule, documented in docs/notes/layouts.md): "


@case("gm_odd_filenames_no_info")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    names = ["my kernel.hip", "v1.opt.final.hip", "ядро.hip", "-dash.hip"]
    files = {n: hip_ext(f"301_{i}") for i, n in enumerate(names)}
    sp = [1.1, 1.2, 1.3, 1.4]
    info = {n: {"code": files[n], "speedup": sp[i]} for i, n in enumerate(names)}
    gm_sample(gm, "301", files, info)
    gm_sample(gm, "302", {"x.hip": hip_ext("302x"), "y.hip": hip_ext("302y"), "z.hip": hip_ext("302z")}, None)
    rows = [pairs("301", f"301_{i}", **{"verification.speedup": sp[i]}) for i in range(4)]
    rows += [pairs("302", f"302{s}", **{"verification.speedup": None}) for s in "xyz"]
    return {
        "rationale": "File names inside hip_opt/<id>/ are not specified: a space, several dots, Cyrillic and a "
                     "leading dash must each be a .hip of the sample and be described by the info.json entry "
                     "keyed by that exact name. A sample without info.json is still its *.hip files (the lab "
                     "walks *.hip plus info.json).",
        "certainty": "sure",
        "notes": "Sample 302 has no info.json at all; layouts.md never says info.json is required.",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(7, 7, rows=rows)}}],
    }


@case("gm_not_extension_and_empty")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "501", {"good.hip": hip_ext("501good"), "plain.hip": hip_plain("501plain"), "empty.hip": b"",
                          "comment_only.hip": "// nothing here yet\n/* TODO */\n"},
              {"good.hip": {"code": hip_ext("501good"), "speedup": 1.2},
               "attempt_9": {"code": hip_plain("501attempt"), "speedup": 0.5}})
    return {
        "rationale": "Only a PyTorch extension (PYBIND11_MODULE) is a row. A HIP program with main() and no "
                     "binding, an empty .hip, a comment-only .hip and an info.json variant without a binding "
                     "must each be a reject with a reason, not a row and not a silent drop.",
        "certainty": "judgement",
        "notes": "The reason code is not in layouts.md: no_kernel or missing_field accepted. Changed after the "
                 "first run: empty_code added to the accepted reasons (the tool's name for an empty kernel; my "
                 "first list only guessed the vocabulary, the behaviour expected is unchanged).",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(5, 1, {"no_kernel|missing_field|empty_code": 4},
                                                    rows=[pairs("501", "501good")],
                                                    no_rows_contain={"kernel_code": "@HIP:501plain@"})}}],
    }


@case("gm_non_utf8")
def _(c: Path):
    license_at(c)
    gm = c / "content"
    latin = hip_ext("601latin").replace("// @HIP:601latin@", "// @HIP:601latin@ caf\xe9 na\xefve").encode("latin-1")
    gm_sample(gm, "601", {"latin.hip": latin, "ok.hip": hip_ext("601ok")})
    gm2 = c / "filename"
    gm_sample(gm2, "602", {"ok.hip": hip_ext("602ok"), b"k\xe9rnel.hip": hip_ext("602latin1name")})
    return {
        "rationale": "content: a .hip whose bytes are not UTF-8 (a Latin-1 comment) is one bad_encoding reject "
                     "naming the file; the sample's other file is kept. filename: a file name that is not UTF-8 "
                     "(byte 0xE9) inside hip_opt/<id>/ is either kept (its name escaped in the output) or one "
                     "reject; the build must not crash writing the name to parquet, and the record must not "
                     "vanish.",
        "certainty": "sure",
        "notes": "The `filename` build is a judgement call (two outcomes accepted); the `content` build is sure.",
        "builds": [{"name": "content", "sources": [src("hip_gpumode", "content")],
                    "expected": {"hip_gpumode": acc(2, 1, {"bad_encoding": 1}, rows=[pairs("601", "601ok")],
                                                    rejects=[{"reason": "bad_encoding", "any_contains": "latin.hip"}])}},
                   {"name": "filename", "sources": [src("hip_gpumode", "filename")],
                    "alternatives": [
                        {"hip_gpumode": acc(2, 2, rows=[pairs("602", "602ok"), pairs("602", "602latin1name")])},
                        {"hip_gpumode": acc(2, 1, {"*": 1}, rows=[pairs("602", "602ok")])}]}],
    }


# ----------------------------------------------------------------------------- v0.1 gpumode, info.json
@case("gm_info_broken")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    full = json.dumps({"a.hip": {"code": hip_ext("701a"), "speedup": 2.0}}, indent=2)
    gm_sample(gm, "701", {"a.hip": hip_ext("701a")}, full[: len(full) // 2].encode())           # truncated
    latin = ('{"a.hip": {"speedup": 2.0, "note": "caf\xe9"}}\n').encode("latin-1")
    gm_sample(gm, "702", {"a.hip": hip_ext("702a")}, latin)                                       # not UTF-8
    gm_sample(gm, "703", {"a.hip": hip_ext("703a")},
              b"\xef\xbb\xbf" + json.dumps({"a.hip": {"speedup": 2.0}}).encode())                 # UTF-8 BOM
    return {
        "rationale": "info.json is metadata beside the .hip files: a truncated one is a bad_json reject, a "
                     "Latin-1 one a bad_encoding (or bad_json) reject, each naming info.json, and the sample's "
                     ".hip files are still rows. A BOM before the object is tolerated (the speedup is read).",
        "certainty": "judgement",
        "notes": "Keeping the .hip files when their info.json is broken is my call: the lab reads *.hip and "
                 "info.json separately. The BOM tolerance follows the build red team's utf8_bom fix.",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(5, 3, {"bad_json|bad_encoding": 2}, rows=[
                        pairs("701", "701a"), pairs("702", "702a"),
                        pairs("703", "703a", **{"verification.speedup": 2.0})],
                        rejects=[{"reason": "bad_json", "any_contains": "701"},
                                 {"reason": "bad_json|bad_encoding", "any_contains": "702"}])}}],
    }


@case("gm_info_without_code")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "801", {"v0.hip": hip_ext("801v0")},
              {"v0.hip": {"speedup": 2.0},                                  # names a file: describes it
               "attempt_3": {"speedup": 1.1},                               # no file, no code: missing_field
               "attempt_4": {"code": hip_ext("801a4"), "speedup": 3.0},     # a variant of its own
               "gone.hip": {"speedup": 5.0},                                # names no file of the folder, no code
               "gone2.hip": {"code": hip_ext("801g2"), "speedup": 6.0}})    # names no file, has code: a variant
    return {
        "rationale": "layouts.md: an entry whose key names a .hip of the folder describes that file; any other "
                     "entry with `code` is a variant of its own; one without `code` is a missing_field reject. "
                     "`gone.hip` names a file that is not in the folder, so it is 'any other entry'.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(5, 3, {"missing_field": 2}, rows=[
                        pairs("801", "801v0", **{"verification.speedup": 2.0}),
                        pairs("801", "801a4", **{"verification.speedup": 3.0}),
                        pairs("801", "801g2", **{"verification.speedup": 6.0})],
                        rejects=[{"reason": "missing_field", "any_contains": "attempt_3"},
                                 {"reason": "missing_field", "any_contains": "gone.hip"}])}}],
    }


@case("gm_info_repeats_file")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "901", {"a.hip": hip_ext("901a"), "b.hip": hip_ext("901b")},
              {"run_1": {"code": hip_ext("901a"), "speedup": 1.0},
               "b.hip": {"code": hip_ext("901b"), "speedup": 2.0}})
    return {
        "rationale": "An entry not naming a file whose `code` repeats a.hip is a variant of its own that the "
                     "build's dedup removes and counts (layouts.md says so). b.hip's entry names the file.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(3, 2, duplicates=1, rows=[
                        pairs("901", "901a"), pairs("901", "901b", **{"verification.speedup": 2.0})])}}],
    }


@case("gm_info_code_differs_from_file")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "950", {"a.hip": hip_ext("950file")}, {"a.hip": {"code": hip_ext("950info"), "speedup": 1.7}})
    return {
        "rationale": "The entry keyed `a.hip` holds code that differs from the file a.hip. The file is a row; the "
                     "entry's other code must not vanish without a trace: either it is a second row or it is "
                     "rejected with a reason.",
        "certainty": "judgement",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "alternatives": [
                        {"hip_gpumode": acc(2, 2, rows=[pairs("950", "950file"), pairs("950", "950info")])},
                        {"hip_gpumode": acc(2, 1, {"*": 1}, rows=[pairs("950", "950file")])}]}],
    }


@case("gm_info_file_fields")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "1001", {"c.hip": hip_ext("1001c"), "d.hip": hip_ext("1001d"), "e.hip": hip_ext("1001e")},
              {"0": {"file": "c.hip", "code": hip_ext("1001c"), "speedup": 4.0},
               "1": {"path": "d.hip", "speedup": 5.0},
               "2": {"path": "hip_opt/1001/e.hip", "code": hip_ext("1001e"), "speedup": 6.0}})
    return {
        "rationale": "Entries keyed by attempt numbers name their file in a `file` or `path` field; each "
                     "describes that file (no extra record, no missing_field for the one without code).",
        "certainty": "judgement",
        "notes": "`path: hip_opt/1001/e.hip` (a path, not a bare name) naming the folder's e.hip is my reading of "
                 "'a file/path field names a .hip file of the folder'.",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(3, 3, rows=[
                        pairs("1001", "1001c", **{"verification.speedup": 4.0}),
                        pairs("1001", "1001d", **{"verification.speedup": 5.0}),
                        pairs("1001", "1001e", **{"verification.speedup": 6.0})])}}],
    }


@case("gm_info_is_list")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "1101", {"a.hip": hip_ext("1101a")},
              [{"code": hip_ext("1101l1"), "speedup": 1.3}, {"code": hip_ext("1101l2"), "speedup": 1.4}])
    return {
        "rationale": "info.json is documented as an object. A list holding code must not be ignored silently: "
                     "either its elements become variants, or the file is one reject; a.hip is a row either way.",
        "certainty": "judgement",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "alternatives": [
                        {"hip_gpumode": acc(3, 3, rows=[pairs("1101", "1101a"), pairs("1101", "1101l1"),
                                                        pairs("1101", "1101l2")])},
                        {"hip_gpumode": acc(2, 1, {"*": 1}, rows=[pairs("1101", "1101a")],
                                            rejects=[{"reason": "*", "any_contains": "info.json"}])},
                        {"hip_gpumode": acc(3, 1, {"*": 2}, rows=[pairs("1101", "1101a")])}]}],
    }


@case("gm_info_code_wrong_type")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "1201", {}, {"r1": {"code": 42}, "r2": {"code": ""}, "r3": {"code": ["#include <x>"]},
                               "r4": {"code": hip_ext("1201r4")}, "r5": "just a string", "r6": None})
    return {
        "rationale": "A folder with only info.json: r4 is a variant (row). `code` that is not a non-empty string "
                     "(42, '', a list) and entries that are not objects (a string, null) have no usable code: "
                     "each is one reject (missing_field, or no_kernel for the empty string).",
        "certainty": "judgement",
        "notes": "The lab silently skips non-object values; layouts.md says an entry without code is missing_field. "
                 "Changed after the first run: empty_code added to the accepted reasons (vocabulary only). "
                 + DECIDED + "a plain value of info.json (a string, null) is metadata, not an entry: keyed by a "
                 "file's name it describes that file, else every file of the folder (here r4's row), so r5 and r6 "
                 "are no records.",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(4, 1, {"missing_field|no_kernel|empty_code": 3},
                                                    rows=[pairs("1201", "1201r4")])}}],
    }


@case("gm_info_wrong_types")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "1301", {"a.hip": hip_ext("1301a"), "b.hip": hip_ext("1301b"), "c.hip": hip_ext("1301c")},
              {"a.hip": {"speedup": "fast", "correct": "yes", "compiled": 1},
               "b.hip": {"speedup": "2.5", "kernel_ms": "n/a"},
               "c.hip": {"speedup": 1.25, "correct": False, "compiled": True, "attempt": 3, "gpu": "MI300X"}})
    return {
        "rationale": "Metadata keys go to `verification` only where their type fits, the rest to "
                     "provenance.upstream; a wrong type is never a reason to drop the file. `correct: false` is "
                     "a fact recorded on the row (layouts.md says nothing about rejecting it).",
        "certainty": "judgement",
        "notes": "`compiled` -> verification.compile_ok is my reading of the key list in layouts.md.",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(3, 3, rows=[
                        pairs("1301", "1301a", **{"verification.speedup": None, "verification.correct": None,
                                                  "provenance.upstream~": "fast"}),
                        pairs("1301", "1301b", **{"verification.kernel_ms": None}),
                        pairs("1301", "1301c", **{"verification.speedup": 1.25, "verification.correct": False,
                                                  "verification.compile_ok": True,
                                                  "provenance.upstream~": "attempt"})])}}],
    }


@case("gm_stray_files")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "1401", {"a.hip": hip_ext("1401a"), "b.hip": hip_ext("1401b"), "notes.py": "print('x')\n",
                           "build.sh": "#!/bin/sh\nhipcc a.hip\n", ".DS_Store": b"\x00\x00\x00\x01Bud1\x00\x00",
                           "info.json.bak": "{not json"})
    wb(gm / "README.md", "# gpumode\n")
    wb(gm / ".DS_Store", b"\x00\x00\x00\x01Bud1\x00\x10\x00\x00")
    wb(gm / "hip_opt" / "README.md", "hip variants\n")
    wb(gm / "hip_opt" / ".DS_Store", b"\x00\x00\x00\x01Bud1")
    wb(gm / "hip_opt" / "1401" / "x.hip" / "readme.txt", "a directory named x.hip\n")
    wb(gm / "pytorch_code_module" / ".DS_Store", b"\x00\x01")
    wb(gm / "pytorch_code_module" / "README.md", "modules\n")
    wb(gm / "pytorch_code_module" / "__pycache__" / "py_1401.cpython-311.pyc", b"\xa7\r\r\n\x00\x00\x00\x00garbage")
    wb(gm / "pytorch_code_functional" / ".DS_Store", b"\x00\x02")
    return {
        "rationale": "README, .DS_Store, a .py / .sh / .bak in hip_opt/<id>/, a __pycache__ and a directory named "
                     "x.hip are not records of the layout: exactly the two .hip files are rows, nothing crashes.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(2, 2, rows=[pairs("1401", "1401a"), pairs("1401", "1401b")])}}],
        "inspect": [{"path": "gm", "expect": {".": "hip_gpumode"}, "exact": True}],
    }


@case("gm_nested_and_loose_hip")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "1501", {"a.hip": hip_ext("1501a")})
    wb(gm / "hip_opt" / "1501" / "old" / "b.hip", hip_ext("1501old"))
    wb(gm / "hip_opt" / "loose.hip", hip_ext("loose"))
    return {
        "rationale": "A .hip one folder too deep (hip_opt/<id>/old/b.hip) and one directly in hip_opt/ are not in "
                     "the documented glob. They hold kernels, so each must be accounted: a row (paired with "
                     "1501 for the nested one) or a reject. Ignoring them silently is the failure looked for.",
        "certainty": "judgement",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "alternatives": [
                        {"hip_gpumode": acc(3, 2, {"*": 1}, rows=[pairs("1501", "1501a"), pairs("1501", "1501old")])},
                        {"hip_gpumode": acc(3, 1, {"*": 2}, rows=[pairs("1501", "1501a")])}]}],
    }


@case("gm_missing_refs")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "1601", {"a.hip": hip_ext("1601a"), "b.hip": hip_ext("1601b")}, module=False)
    gm_sample(gm, "1602", {"a.hip": hip_ext("1602a")}, functional=False)
    gm_sample(gm, "1603", {"a.hip": hip_ext("1603a")})
    wb(gm / "pytorch_code_module" / "py_1603.py", py_module("1603").split("def get_inputs")[0])
    gm_sample(gm, "1604", {"a.hip": hip_ext("1604a")})
    wb(gm / "pytorch_code_module" / "py_1604.py", py_module("1604").replace("def forward(self, x):", "def forward(self, x)"))
    gm_sample(gm, "1605", {"a.hip": hip_ext("1605a")})
    refs(gm, "1606")                                           # references without any hip_opt folder
    common = [pairs("1605", "1605a")]
    return {
        "rationale": "Every variant must pair with its sample's module. No py_1601.py: both variants are "
                     "missing_file rejects naming it. A module without get_inputs and one with a syntax error "
                     "make the variant a reject. py_1602_func.py missing: a row with a null functional or a "
                     "missing_file reject. References without hip_opt/1606 are no record.",
        "certainty": "judgement",
        "notes": "The reason for a module without get_inputs is not documented (any reason accepted). "
                 + DECIDED + "a module with no variant at all is one no_kernel record (every reference is "
                 "accounted for), so 1606 adds one input and one reject.",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "alternatives": [
                        {"hip_gpumode": acc(7, 2, {"missing_file": 2, "syntax_error": 1, "no_kernel": 1, "*": 1},
                                            rows=common + [{"where": {"kernel_code~": "@HIP:1602a@"},
                                                            "expect": {"pytorch_code~": "@MOD:1602@",
                                                                       "pytorch_functional_code": None}}],
                                            rejects=[{"reason": "missing_file", "any_contains": "1601"}])},
                        {"hip_gpumode": acc(7, 1, {"missing_file": 3, "syntax_error": 1, "no_kernel": 1, "*": 1},
                                            rows=common,
                                            rejects=[{"reason": "missing_file", "any_contains": "1601"},
                                                     {"reason": "missing_file", "any_contains": "1602"}])}]}],
    }


@case("gm_prefix_ids")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    for sid in ["1", "10", "100", "x"]:
        gm_sample(gm, sid, {"a.hip": hip_ext(f"id{sid}")})
    # id `x_func`: its module is pytorch_code_module/py_x_func.py, its functional py_x_func_func.py; the
    # functional folder's py_x_func.py belongs to id `x`.
    gm_sample(gm, "x_func", {"a.hip": hip_ext("idx_func")})
    return {
        "rationale": "The lab's rule: kernel_id_name = module name[3:-3]; functional is py_{id}_func.py. Ids that "
                     "are prefixes of each other (1, 10, 100) and an id ending in _func (whose module file has "
                     "the same name as id x's functional file) must each pair with their own files.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(5, 5, rows=[
                        pairs(s, f"id{s}", task_name=s) for s in ["1", "10", "100", "x", "x_func"]])}}],
    }


@case("gm_old_naming_mixed")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    wb(gm / "pytorch_code_module" / "relu.py", py_module("relu"))
    wb(gm / "hip_code" / "relu_0.hip", hip_ext("relu0"))
    wb(gm / "hip_code" / "relu_1.hip", hip_ext("relu1"))
    gm_sample(gm, "7", {"a.hip": hip_ext("7a")})
    return {
        "rationale": "kvdata still reads its older naming (pytorch_code_module/<task>.py + hip_code/<task>_<n>.hip). "
                     "A folder holding both namings must read both: picking one layout per folder would drop the "
                     "other's records silently.",
        "certainty": "judgement",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(3, 3, rows=[
                        {"where": {"kernel_code~": "@HIP:relu0@"}, "expect": {"pytorch_code~": "@MOD:relu@"}},
                        {"where": {"kernel_code~": "@HIP:relu1@"}, "expect": {"pytorch_code~": "@MOD:relu@"}},
                        pairs("7", "7a")])}}],
    }


# ----------------------------------------------------------------------------- release at several depths
def small_release(root: Path, sids=("2001", "2002")):
    gm = root / GM
    gm_sample(gm, sids[0], {"a.hip": hip_ext(f"{sids[0]}a"), "b.hip": hip_ext(f"{sids[0]}b")},
              {"a.hip": {"code": hip_ext(f"{sids[0]}a"), "speedup": 1.9}, "attempt_2": {"speedup": 0.4}})
    gm_sample(gm, sids[1], {"k.hip": hip_ext(f"{sids[1]}k")}, {"k.hip": {"speedup": 2.2}})
    wb(root / "v0.1" / "PyTorch_HIP_kernel_dataset" / "README.md", "# PyTorch HIP kernel dataset\n")
    return gm


# A release subset's source is named `release:<folder relative to the named path>`; expectations find it by
# "@release:<suffix>" (the runner matches the name or the accounting path), so they hold at every depth.
REL_NAME = "@release:pytorch_hip_kernel_gpumode"


@case("rel_depths_agree")
def _(c: Path):
    license_at(c / "rel")
    small_release(c / "rel")
    exp = acc(4, 3, {"missing_field": 1}, rows=[pairs("2001", "2001a", **{"verification.speedup": 1.9}),
                                                pairs("2001", "2001b"),
                                                pairs("2002", "2002k", **{"verification.speedup": 2.2})])
    builds = []
    for name, p in [("root", "rel"), ("v01", "rel/v0.1"), ("dataset", "rel/v0.1/PyTorch_HIP_kernel_dataset"),
                    ("gm", "rel/" + GM)]:
        builds.append({"name": name, "sources": [src("release", p)], "expected": {REL_NAME: exp}})
    builds.append({"name": "direct", "sources": [src("hip_gpumode", "rel/" + GM)], "expected": {"hip_gpumode": exp}})
    return {
        "rationale": "--source release= at the release root, v0.1/, v0.1/PyTorch_HIP_kernel_dataset/ and the "
                     "gpumode folder itself, and --source hip_gpumode= on the folder: the same 4 records, the same "
                     "rows with the same pairing and metadata.",
        "certainty": "sure",
        "builds": builds,
        "agree": ["root", "v01", "dataset", "gm", "direct"],
        "inspect": [{"path": "rel", "expect": {GM: "hip_gpumode"}, "exact": True},
                    {"path": "rel/v0.1", "expect": {"PyTorch_HIP_kernel_dataset/pytorch_hip_kernel_gpumode": "hip_gpumode"}, "exact": True},
                    {"path": "rel/" + GM, "expect": {".": "hip_gpumode"}, "exact": True}],
    }


def v02_kernel_table(prefix: str, n: int = 2, ids: bool = False):
    return [dict({"question_code": py_module(f"{prefix}{i}"), "answer_code": hip_ext(f"{prefix}{i}")},
                 **({"id": f"{prefix}{i}"} if ids else {})) for i in range(n)]


# Added after the first run: the tool refuses every v0.2 table that has only the documented question_code /
# answer_code columns ("no column for task_name"). To test what lies behind that refusal, each v0.2 case also
# builds a copy of its tables with an `id` column, mapped with columns={task_name: id}; the expectations of
# those builds are the original ones.
ID_COLS = {"task_name": "id"}


def pair_q(tag):
    return {"where": {"kernel_code~": f"@HIP:{tag}@"}, "expect": {"pytorch_code~": f"@MOD:{tag}@"}}


@case("rel_v01_and_v02_gpumode")
def _(c: Path):
    root = c / "rel"
    license_at(root)
    gm = root / GM
    gm_sample(gm, "2101", {"a.hip": hip_ext("2101a"), "b.hip": hip_ext("2101b")})
    wjson(root / "v0.2" / "pytorch_hip_kernel_gpumode" / "gpumode.json", v02_kernel_table("v02gm", 3))
    root2 = c / "rel_id"
    license_at(root2)
    gm_sample(root2 / GM, "2101", {"a.hip": hip_ext("2101a"), "b.hip": hip_ext("2101b")})
    wjson(root2 / "v0.2" / "pytorch_hip_kernel_gpumode" / "gpumode.json", v02_kernel_table("v02gm", 3, ids=True))
    both = {"@release:" + GM: acc(2, 2, rows=[pairs("2101", "2101a"), pairs("2101", "2101b")]),
            "@release:v0.2/pytorch_hip_kernel_gpumode": acc(3, 3, rows=[pair_q("v02gm0"), pair_q("v02gm2")])}
    return {
        "rationale": "A release root with both v0.1's pytorch_hip_kernel_gpumode and v0.2's folder of the same "
                     "name. Each subset is its own source (the brief: named `release:<folder relative to the "
                     "named path>`), with its own accounting that reconciles.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("release", "rel")],
                    "expected": {
                        "@release:" + GM: acc(2, 2, rows=[pairs("2101", "2101a"), pairs("2101", "2101b")]),
                        "@release:v0.2/pytorch_hip_kernel_gpumode": acc(3, 3, rows=[pair_q("v02gm0"), pair_q("v02gm2")])},
                    "distinct_source_names": True},
                   {"name": "with_id", "sources": [src("release", "rel_id")],
                    "options": {"release.columns": {"pytorch_hip_kernel_gpumode": ID_COLS}},
                    "expected": both, "distinct_source_names": True}],
        "notes": "Build with_id (added after the first run) also shows whether release.columns keyed by the folder "
                 "name `pytorch_hip_kernel_gpumode`, which both subsets share, leaves the v0.1 reading alone.",
        "inspect": [{"path": "rel", "expect": {GM: "hip_gpumode", "v0.2/pytorch_hip_kernel_gpumode": "v02_gpumode"},
                     "exact": True}],
    }


@case("rel_whole_tar")
def _(c: Path):
    stage = c / "_stage"
    license_at(stage)
    small_release(stage, ("2201", "2202"))
    wb(c / "release.tar", tar_bytes(tree_members(stage)))
    shutil.copytree(stage, c / "unpacked")
    shutil.rmtree(stage)
    exp = acc(4, 3, {"missing_field": 1}, rows=[pairs("2201", "2201a", **{"verification.speedup": 1.9}),
                                                pairs("2201", "2201b"), pairs("2202", "2202k")])
    return {
        "rationale": "The whole release as one tar, read through fsspec (tar://<inside>::<archive>), as "
                     "hip_gpumode on the gpumode folder and as release on v0.1/, agrees with the unpacked folder.",
        "certainty": "sure",
        "notes": "The license option is passed as a fallback because a LICENSE inside an archive is not "
                 "something this case tests.",
        "builds": [
            {"name": "folder", "sources": [src("release", "unpacked")], "expected": {REL_NAME: exp}},
            {"name": "tar_gm", "sources": [src("hip_gpumode", f"tar://{GM}::release.tar")],
             "options": {"hip_gpumode.license": "MIT"}, "expected": {"hip_gpumode": exp}},
            {"name": "tar_release", "sources": [src("release", "tar://v0.1::release.tar")],
             "options": {"release.license": "MIT"}, "expected": {REL_NAME: exp}}],
        "agree": ["folder", "tar_gm", "tar_release"],
        "inspect": [{"path": "release.tar", "expect": {GM: "hip_gpumode"}, "exact": True}],
    }


# ----------------------------------------------------------------------------- hip_opt packed as a tar
def gm_refs_only(gm: Path, sids):
    for s in sids:
        refs(gm, s)


def hip_opt_members(prefix, spec):
    """spec: {sid: {name: content}} -> tar members under prefix (dirs included)."""
    out = []
    if prefix:
        out.append((prefix.rstrip("/"), None))
    for sid, files in spec.items():
        out.append((f"{prefix}{sid}", None))
        for n, content in files.items():
            out.append((f"{prefix}{sid}/{n}", content.encode() if isinstance(content, str) else content))
    return out


@case("tar_hip_opt_prefix")
def _(c: Path):
    root = c / "rel"
    license_at(root)
    gm = root / GM
    gm_refs_only(gm, ["2301", "2302"])
    spec = {"2301": {"a.hip": hip_ext("2301a"), "b.hip": hip_ext("2301b"),
                     "info.json": json.dumps({"a.hip": {"speedup": 1.6}, "b.hip": {"speedup": 0.9}})},
            "2302": {"k.hip": hip_ext("2302k")}}
    wb(gm / "hip_opt.tar", tar_bytes(hip_opt_members("hip_opt/", spec)))
    ctl = c / "ctl" / GM          # the same sample unpacked, as a control
    license_at(c / "ctl")
    gm_refs_only(ctl, ["2301", "2302"])
    for sid, files in spec.items():
        for n, content in files.items():
            wb(ctl / "hip_opt" / sid / n, content)
    exp = acc(3, 3, rows=[pairs("2301", "2301a", **{"verification.speedup": 1.6}),
                          pairs("2301", "2301b", **{"verification.speedup": 0.9}), pairs("2302", "2302k")])
    return {
        "rationale": "hip_opt.tar (members hip_opt/<id>/...) beside pytorch_code_module/, no hip_opt/ folder: "
                     "read at every depth and equal to the unpacked folder, info.json inside the tar included.",
        "certainty": "sure",
        "builds": [
            {"name": "ctl", "sources": [src("hip_gpumode", "ctl/" + GM)], "expected": {"hip_gpumode": exp}},
            {"name": "gm", "sources": [src("hip_gpumode", "rel/" + GM)], "expected": {"hip_gpumode": exp}},
            {"name": "rel_root", "sources": [src("release", "rel")], "expected": {REL_NAME: exp}},
            {"name": "rel_v01", "sources": [src("release", "rel/v0.1")], "expected": {REL_NAME: exp}}],
        "agree": ["ctl", "gm", "rel_root", "rel_v01"],
        "inspect": [{"path": "rel", "expect": {GM: "hip_gpumode"}, "exact": True}],
    }


@case("tar_gz_no_prefix")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_refs_only(gm, ["2401", "2402"])
    spec = {"2401": {"a.hip": hip_ext("2401a"), "info.json": json.dumps({"a.hip": {"speedup": 1.4}})},
            "2402": {"b c.hip": hip_ext("2402b")}}
    wb(gm / "hip_opt.tar.gz", tar_bytes(hip_opt_members("", spec), "gz"))
    return {
        "rationale": "hip_opt.tar.gz whose members start at the sample id (<id>/x.hip), no leading folder.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(2, 2, rows=[pairs("2401", "2401a", **{"verification.speedup": 1.4}),
                                                                pairs("2402", "2402b")])}}],
        "inspect": [{"path": "gm", "expect": {".": "hip_gpumode"}, "exact": True}],
    }


@case("tar_leading_folders")
def _(c: Path):
    license_at(c)
    members_a = hip_opt_members("hip_opt_release_v1/", {"2501": {"a.hip": hip_ext("2501a")}})
    members_b = hip_opt_members("./hip_opt/", {"2502": {"b.hip": hip_ext("2502b")}})
    for name, comp, members in [("xz", "xz", members_a + members_b), ("bz2", "bz2", members_a + members_b),
                                ("tgz", "gz", members_a + members_b)]:
        gm = c / name
        gm_refs_only(gm, ["2501", "2502"])
        fname = {"xz": "hip_opt.tar.xz", "bz2": "hip_opt.tar.bz2", "tgz": "hip_opt.tgz"}[name]
        wb(gm / fname, tar_bytes(members, comp))
    exp = acc(2, 2, rows=[pairs("2501", "2501a"), pairs("2502", "2502b")])
    return {
        "rationale": "Members under a leading folder that is not a sample id (hip_opt_release_v1/<id>/) and under "
                     "./hip_opt/<id>/ are both stripped to the sample id; .tar.xz, .tar.bz2 and .tgz are read.",
        "certainty": "sure",
        "builds": [{"name": n, "sources": [src("hip_gpumode", n)], "expected": {"hip_gpumode": exp}}
                   for n in ["xz", "bz2", "tgz"]],
        "agree": ["xz", "bz2", "tgz"],
    }


@case("tar_dotdot_members")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_refs_only(gm, ["2601", "2602"])
    members = hip_opt_members("hip_opt/", {"2601": {"a.hip": hip_ext("2601a")}})
    members += [("../evil.hip", hip_ext("evil").encode()),
                ("hip_opt/2601/../../../escape.hip", hip_ext("escape").encode()),
                ("hip_opt/2601/../2602/sneak.hip", hip_ext("sneak").encode())]
    wb(gm / "hip_opt.tar", tar_bytes(members))
    return {
        "rationale": "Members with `..` in their names: `../evil.hip` and `hip_opt/2601/../../../escape.hip` name no "
                     "sample inside hip_opt and are rejects; `hip_opt/2601/../2602/sneak.hip` is a `..` member too "
                     "and is rejected rather than guessed. Nothing is written outside the output folder.",
        "certainty": "judgement",
        "notes": DECIDED + "sample 2602's module then has no variant left: one no_kernel record more.",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "expected": {"hip_gpumode": acc(5, 1, {"no_kernel": 1, "*": 3}, rows=[pairs("2601", "2601a")],
                                                    no_rows_contain={"kernel_code": "@HIP:evil@"})}}],
        "forbidden_files": ["evil.hip", "escape.hip", "sneak.hip"],
    }


@case("tar_truncated_and_corrupt")
def _(c: Path):
    license_at(c)
    gm = c / "trunc"
    gm_refs_only(gm, ["2701", "2702"])
    members = hip_opt_members("hip_opt/", {"2701": {"a.hip": hip_ext("2701a"), "b.hip": hip_ext("2701b")},
                                           "2702": {"c.hip": hip_ext("2702c"), "d.hip": hip_ext("2702d")}})
    raw = tar_bytes(members)
    cut = raw.index(b"@HIP:2702c@") + 300               # in the middle of c.hip's data
    wb(gm / "hip_opt.tar", raw[:cut])
    gm2 = c / "corrupt"
    gm_refs_only(gm2, ["2703"])
    wb(gm2 / "hip_opt.tar.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(range(7, 250)) * 3)
    return {
        "rationale": "A tar cut in the middle of a member: the members before it are rows and the cut member is "
                     "one reject (or the archive is one reject); a .tar.gz that is not gzip data is one reject "
                     "or a clean CLI refusal naming it. Never a traceback.",
        "certainty": "judgement",
        "notes": DECIDED + "a module whose variants were all lost with the archive is one no_kernel record more.",
        "builds": [
            {"name": "truncated", "sources": [src("hip_gpumode", "trunc")],
             "alternatives": [{"hip_gpumode": acc(4, 2, {"no_kernel": 1, "*": 1},
                                                  rows=[pairs("2701", "2701a"), pairs("2701", "2701b")],
                                                  rejects=[{"reason": "*", "any_contains": "hip_opt.tar"}])},
                              {"hip_gpumode": acc(1, 0, {"*": 1})}]},
            {"name": "corrupt_gz", "sources": [src("hip_gpumode", "corrupt")],
             "alternatives": [{"hip_gpumode": acc(2, 0, {"no_kernel": 1, "*": 1},
                                                  rejects=[{"reason": "*", "any_contains": "hip_opt.tar.gz"}])}],
             "cli_error_ok": "hip_opt.tar.gz"}],
    }


@case("tar_beside_folder")
def _(c: Path):
    gm = c / "gm"
    license_at(c)
    gm_sample(gm, "2801", {"a.hip": hip_ext("2801a")})
    refs(gm, "2802")
    members = hip_opt_members("hip_opt/", {"2801": {"a.hip": hip_ext("2801a")}, "2802": {"c.hip": hip_ext("2802c")}})
    wb(gm / "hip_opt.tar", tar_bytes(members))
    return {
        "rationale": "Both hip_opt/ and hip_opt.tar beside the modules, and the tar holds a sample (2802) the "
                     "folder lacks. Reading only the folder would drop 2802 silently. Reading both (with a.hip "
                     "as an exact duplicate) or only the tar are both accounted.",
        "certainty": "judgement",
        "builds": [{"name": "main", "sources": [src("hip_gpumode", "gm")],
                    "alternatives": [
                        {"hip_gpumode": acc(3, 2, duplicates=1, rows=[pairs("2801", "2801a"), pairs("2802", "2802c")])},
                        {"hip_gpumode": acc(2, 2, rows=[pairs("2801", "2801a"), pairs("2802", "2802c")])}]}],
    }


# ----------------------------------------------------------------------------- the lab's rl_data*.json
def rl_rec(name, hip, mod, func):
    return {"data_info": {"name": name, "hip_code_path": hip, "pytorch_code_module": mod,
                          "pytorch_code_functional": func, "original_code_body": "return torch.relu(x)",
                          "signature": "def forward(self, x)"},
            "prompt": "Write a HIP kernel."}


def ref_tree(ref: Path):
    license_at(ref)
    gm_sample(ref, "3001", {"a.hip": hip_ext("3001a"), "b.hip": hip_ext("3001b")})
    gm_sample(ref, "3002", {"c.hip": hip_ext("3002c")})


@case("rl_remap")
def _(c: Path):
    license_at(c)
    ref = c / "ref" / "pytorch_hip_kernel_gpumode"
    ref_tree(ref)
    recs = [
        rl_rec("relu_fwd", f"{AMD}/hip_opt/3001/a.hip", f"{AMD}/pytorch_code_module/py_3001.py",
               f"{AMD}/pytorch_code_functional/py_3001_func.py"),
        rl_rec(["k3002", "alias"], "/scratch/u/tmp/hip_opt/3002/c.hip", "/scratch/u/tmp/pytorch_code_module/py_3002.py",
               "/x/y/pytorch_code_functional/py_3002_func.py"),
        rl_rec("nowhere", "/data/other/kernels/k.hip", f"{AMD}/pytorch_code_module/py_3001.py",
               f"{AMD}/pytorch_code_functional/py_3001_func.py"),
        rl_rec("absent", f"{AMD}/hip_opt/3001/missing.hip", f"{AMD}/pytorch_code_module/py_3001.py",
               f"{AMD}/pytorch_code_functional/py_3001_func.py"),
        {"prompt": "no data_info here", "answer": "x"},
        {"data_info": "hip_opt/3001/a.hip"},
        rl_rec("relative", "hip_opt/3001/b.hip", "pytorch_code_module/py_3001.py",
               "pytorch_code_functional/py_3001_func.py"),
    ]
    wjson(c / "rl" / "rl_data_hard.json", recs)
    # the same records found by discovery: the JSON inside the gpumode tree (the tree is above the JSON)
    ref2 = c / "disc" / "pytorch_hip_kernel_gpumode"
    ref_tree(ref2)
    wjson(ref2 / "hip_kernel_rldataset" / "rl_data_normal.json", recs)
    exp = acc(7, 3, {"missing_file": 2, "missing_field": 2}, rows=[
        pairs("3001", "3001a"), pairs("3002", "3002c"), pairs("3001", "3001b")],
        rejects=[{"reason": "missing_file", "any_contains": "/data/other/kernels/k.hip"},
                 {"reason": "missing_file", "any_contains": "missing.hip"}])
    return {
        "rationale": "rl_data records whose data_info paths are AMD absolute paths re-anchor under the reference "
                     "root at its folder name or at the first hip_opt/pytorch_code_* component (a relative path "
                     "too). A path that does not re-anchor, or whose file is absent, is missing_file naming it; no "
                     "data_info, or a data_info that is not an object, is missing_field. Given as the "
                     "reference_root option or found above the JSON, the result is the same.",
        "certainty": "sure",
        "builds": [{"name": "option", "sources": [src("hip_rl_data", "rl")],
                    "options": {"hip_rl_data.reference_root": "@case/ref/pytorch_hip_kernel_gpumode"},
                    "expected": {"hip_rl_data": exp}},
                   {"name": "discovered", "sources": [src("hip_rl_data", "disc/pytorch_hip_kernel_gpumode/hip_kernel_rldataset")],
                    "expected": {"hip_rl_data": exp}}],
        "agree": ["option", "discovered"],
    }


@case("rl_escape")
def _(c: Path):
    license_at(c)
    ref = c / "ref" / "pytorch_hip_kernel_gpumode"
    ref_tree(ref)
    wb(c / "ref" / "secret" / "x.hip", hip_ext("secret"))
    wb(c / "ref" / "secret" / "py_evil.py", py_module("secret"))
    mod, func = f"{AMD}/pytorch_code_module/py_3001.py", f"{AMD}/pytorch_code_functional/py_3001_func.py"
    recs = [rl_rec("esc1", f"{AMD}/hip_opt/../../secret/x.hip", mod, func),
            rl_rec("esc2", "/z/hip_opt/3001/../../../secret/x.hip", mod, func),
            rl_rec("esc3", f"{AMD}/hip_opt/3001/a.hip", "/z/pytorch_code_module/../../secret/py_evil.py", func),
            rl_rec("good", f"{AMD}/hip_opt/3001/b.hip", mod, func)]
    wjson(c / "rl" / "rl_data_normal_10k.json", recs)
    return {
        "rationale": "Paths with `..` that re-anchor under the reference root but resolve outside it (to real "
                     "files in ../secret/) must be missing_file rejects: the tool 'never reads a recorded path "
                     "as it stands', and a path outside the reference tree does not re-anchor inside it.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("hip_rl_data", "rl")],
                    "options": {"hip_rl_data.reference_root": "@case/ref/pytorch_hip_kernel_gpumode"},
                    "expected": {"hip_rl_data": acc(4, 1, {"missing_file": 3}, rows=[pairs("3001", "3001b")],
                                                    no_rows_contain={"kernel_code": "@HIP:secret@",
                                                                     "pytorch_code": "@MOD:secret@"})}}],
    }


@case("rl_top_level_object")
def _(c: Path):
    license_at(c)
    ref = c / "ref" / "pytorch_hip_kernel_gpumode"
    ref_tree(ref)
    good = rl_rec("ok", f"{AMD}/hip_opt/3001/a.hip", f"{AMD}/pytorch_code_module/py_3001.py",
                  f"{AMD}/pytorch_code_functional/py_3001_func.py")
    other = rl_rec("wrapped", f"{AMD}/hip_opt/3002/c.hip", f"{AMD}/pytorch_code_module/py_3002.py",
                   f"{AMD}/pytorch_code_functional/py_3002_func.py")
    wjson(c / "rl" / "rl_data_hard.json", [good])
    wjson(c / "rl" / "rl_data_normal.json", {"records": [other]})
    return {
        "rationale": "The top level must be a list: rl_data_normal.json holding an object is one reject naming "
                     "the file (its wrapped record is not read as a row); the list file beside it is read.",
        "certainty": "judgement",
        "notes": "The reason (bad_json, missing_field, ...) is not documented: any reason accepted.",
        "builds": [{"name": "main", "sources": [src("hip_rl_data", "rl")],
                    "options": {"hip_rl_data.reference_root": "@case/ref/pytorch_hip_kernel_gpumode"},
                    "expected": {"hip_rl_data": acc(2, 1, {"*": 1}, rows=[pairs("3001", "3001a")],
                                                    rejects=[{"reason": "*", "any_contains": "rl_data_normal.json"}])}}],
    }


@case("rl_legacy_and_shapes")
def _(c: Path):
    license_at(c)
    ref = c / "ref" / "pytorch_hip_kernel_gpumode"
    ref_tree(ref)
    recs = [{"kernel_name": "relu", "input": py_module("legacy1"), "hip_reference_cde": hip_ext("legacy1")},
            {"kernel_name": "gelu", "input": py_module("legacy2"), "hip_reference_cde": hip_ext("legacy2")},
            {}, "a string record", {"data_info": None},
            rl_rec("ok", f"{AMD}/hip_opt/3002/c.hip", f"{AMD}/pytorch_code_module/py_3002.py",
                   f"{AMD}/pytorch_code_functional/py_3002_func.py")]
    wjson(c / "rl" / "rl_data_mixed.json", recs)
    return {
        "rationale": "Legacy kernel2kernel_json records are missing_field rejects naming that format; an empty "
                     "object, a string and a null data_info are rejects too; one good record is kept.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("hip_rl_data", "rl")],
                    "options": {"hip_rl_data.reference_root": "@case/ref/pytorch_hip_kernel_gpumode"},
                    "expected": {"hip_rl_data": acc(6, 1, {"missing_field": 2, "missing_field|bad_json": 3},
                                                    rows=[pairs("3002", "3002c")],
                                                    rejects=[{"reason": "missing_field", "any_contains": "kernel2kernel"}])}}],
    }


# ----------------------------------------------------------------------------- AMD's evaluation kit
@case("kit_single_side")
def _(c: Path):
    license_at(c)
    kit = c / "kit"
    kit_refs(kit / "data", "hip_relu")
    kit_refs(kit / "data", "hip_gelu")
    wb(kit / "run1" / "staging" / "optimized" / "hip_relu_gen0.hip", hip_ext("cand_relu0"))
    wb(kit / "run1" / "staging" / "optimized" / "hip_gelu_hip_gen1.hip", hip_ext("cand_gelu1"))
    wjson(kit / "run1" / "optimized_eval" / "baseline_hip_results.json", [
        kit_row("hip_relu_gen0.hip", "hip_relu", 0, "single", pt=2.0, ht=0.5),
        kit_row("hip_gelu_hip_gen1.hip", "hip_gelu", 1, "optimized", pt=3.0, ht=1.5),
        kit_row("hip_relu.hip", "hip_relu", 0, "origin", pt=2.0, ht=2.0),
        kit_row("hip_relu_gen7.hip", "hip_relu", 7, "single", pt=2.0, ht=1.0)])
    return {
        "rationale": "A kit run (JSON array): each row's candidate is found by its bare name under "
                     "staging/optimized/, the baseline as hip_code/<base_name>.hip, and both Python files as "
                     "py_<x>.py (no _func) in the data tree. pytorch_time_ms is the reference HIP time: it is "
                     "`baseline_ms`, speedup_over `baseline_kernel`, ref_ms null. An origin-side row is "
                     "baseline_only; a candidate that is nowhere is missing_file naming it.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("hip2hip", "kit")],
                    "expected": {"hip2hip": acc(4, 2, {"baseline_only": 1, "missing_file": 1}, rows=[
                        {"where": {"kernel_code~": "@HIP:cand_relu0@"},
                         "expect": {"baseline_kernel_code~": "@HIP:base_hip_relu@", "pytorch_code~": "@MOD:hip_relu@",
                                    "pytorch_functional_code~": "@FUNC:hip_relu@",
                                    "verification.baseline_ms": 2.0, "verification.kernel_ms": 0.5,
                                    "verification.speedup": 4.0, "verification.speedup_over": "baseline_kernel",
                                    "verification.ref_ms": None}},
                        {"where": {"kernel_code~": "@HIP:cand_gelu1@"},
                         "expect": {"baseline_kernel_code~": "@HIP:base_hip_gelu@", "pytorch_code~": "@MOD:hip_gelu@",
                                    "verification.baseline_ms": 3.0, "verification.speedup": 2.0,
                                    "verification.speedup_over": "baseline_kernel", "verification.ref_ms": None}}],
                        rejects=[{"reason": "missing_file", "any_contains": "hip_relu_gen7.hip"}])}}],
        "inspect": [{"path": "kit", "expect": {"run1|.": "hip2hip"}}],
    }


@case("kit_comparison")
def _(c: Path):
    license_at(c)
    kit = c / "kit"
    for b in ["hip_add", "hip_mul"]:
        kit_refs(kit / "data", b, level=2)
        wb(kit / "run" / "staging" / "origin" / f"{b}_gen0.hip", hip_ext(f"orig_{b}"))
        wb(kit / "run" / "staging" / "optimized" / f"{b}_gen0.hip", hip_ext(f"opt_{b}"))
    wjson(kit / "run" / "origin_eval" / "baseline_hip_results.json",
          [kit_row(f"{b}_gen0.hip", b, 0, "origin", pt=3.0, ht=3.0) for b in ["hip_add", "hip_mul"]])
    wjson(kit / "run" / "optimized_eval" / "baseline_hip_results.json",
          [kit_row(f"{b}_gen0.hip", b, 0, "optimized", pt=3.0, ht=1.0) for b in ["hip_add", "hip_mul"]])

    def cmp_row(b, ok):
        r = {"base_name": b, "gen_idx": 0, "origin_hip_file": f"{b}_gen0.hip", "optimized_hip_file": f"{b}_gen0.hip"}
        for side in ["origin", "optimized"]:
            for f in ["compile_ok", "run_ok", "match_ok"]:
                r[f"{side}_{f}"] = True
            r[f"{side}_error_message"] = ""
        if not ok:
            r["optimized_match_ok"] = False
            r["optimized_error_message"] = "max abs diff 0.5"
        r.update({"origin_hip_time_ms": 3.0, "optimized_hip_time_ms": 1.0 if ok else 0.2,
                  "speedup": 3.0 if ok else None, "pair_ok": ok, "compare_error": "" if ok else "optimized mismatch"})
        return r
    wjson(kit / "run" / "comparison" / "origin_vs_optimized_results.json", [cmp_row("hip_add", True), cmp_row("hip_mul", False)])
    return {
        "rationale": "A run with per-side files and a comparison file: the comparison replaces the per-side files "
                     "(2 records, not 6). The pair_ok row is kept: candidate from staging/optimized/, baseline "
                     "from staging/origin/ (same bare name in both), speedup = origin/optimized over the baseline "
                     "kernel. The mismatching pair is a reject with a reason.",
        "certainty": "sure",
        "notes": "baseline_ms = origin_hip_time_ms follows from the speedup being origin/optimized.",
        "builds": [{"name": "main", "sources": [src("hip2hip", "kit")],
                    "expected": {"hip2hip": acc(2, 1, {"*": 1}, rows=[
                        {"where": {"kernel_code~": "@HIP:opt_hip_add@"},
                         "expect": {"baseline_kernel_code~": "@HIP:orig_hip_add@", "pytorch_code~": "@MOD:hip_add@",
                                    "verification.speedup": 3.0, "verification.baseline_ms": 3.0,
                                    "verification.kernel_ms": 1.0, "verification.speedup_over": "baseline_kernel",
                                    "verification.ref_ms": None}}],
                        no_rows_contain={"kernel_code": "@HIP:opt_hip_mul@"})}}],
    }


@case("kit_nearest_copy")
def _(c: Path):
    license_at(c)
    kit = c / "kit"
    kit_refs(kit / "data", "hip_k")
    for run, tag, ht in [("runA", "candA", 1.0), ("runB", "candB", 0.5)]:
        wb(kit / run / "staging" / "optimized" / "hip_k_gen0.hip", hip_ext(tag))
        wjson(kit / run / "optimized_eval" / "baseline_hip_results.json",
              [kit_row("hip_k_gen0.hip", "hip_k", 0, "single", pt=2.0, ht=ht)])
    return {
        "rationale": "Two runs hold a candidate of the same bare name. Each result file must pair with the copy "
                     "nearest to it (its own run), told apart by the kernel time it recorded.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("hip2hip", "kit")],
                    "expected": {"hip2hip": acc(2, 2, rows=[
                        {"where": {"kernel_code~": "@HIP:candA@"}, "expect": {"verification.kernel_ms": 1.0, "verification.speedup": 2.0}},
                        {"where": {"kernel_code~": "@HIP:candB@"}, "expect": {"verification.kernel_ms": 0.5, "verification.speedup": 4.0}}])}}],
    }


@case("kit_pytorch_root")
def _(c: Path):
    license_at(c)
    run = c / "run"
    wb(run / "staging" / "origin" / "hip_k.hip", hip_ext("base_hip_k"))
    wb(run / "staging" / "optimized" / "hip_k_gen0.hip", hip_ext("cand_k0"))
    wjson(run / "optimized_eval" / "baseline_hip_results.json", [kit_row("hip_k_gen0.hip", "hip_k", 0, "single", pt=4.0, ht=1.0)])
    kit_refs(c / "refs", "hip_k", level=3, hip=False)
    license_at(c / "refs")
    return {
        "rationale": "The run folder holds the HIP files only; its PyTorch references live in another tree given "
                     "as --option hip2hip.pytorch_root. The row pairs with py_k.py from both folders there.",
        "certainty": "sure",
        "builds": [{"name": "main", "sources": [src("hip2hip", "run")],
                    "options": {"hip2hip.pytorch_root": "@case/refs"},
                    "expected": {"hip2hip": acc(1, 1, rows=[
                        {"where": {"kernel_code~": "@HIP:cand_k0@"},
                         "expect": {"baseline_kernel_code~": "@HIP:base_hip_k@", "pytorch_code~": "@MOD:hip_k@",
                                    "pytorch_functional_code~": "@FUNC:hip_k@", "verification.baseline_ms": 4.0,
                                    "verification.speedup": 4.0, "verification.speedup_over": "baseline_kernel",
                                    "verification.ref_ms": None}}])}}],
    }


@case("kit_broken_files")
def _(c: Path):
    license_at(c)
    kit = c / "kit"
    kit_refs(kit / "data", "hip_k")
    wb(kit / "good" / "staging" / "optimized" / "hip_k_gen0.hip", hip_ext("good_k0"))
    wjson(kit / "good" / "optimized_eval" / "baseline_hip_results.json", [kit_row("hip_k_gen0.hip", "hip_k", 0)])
    wb(kit / "trunc" / "staging" / "optimized" / "hip_k_gen1.hip", hip_ext("trunc_k1"))
    full = json.dumps([kit_row("hip_k_gen1.hip", "hip_k", 1)], indent=2)
    wb(kit / "trunc" / "optimized_eval" / "baseline_hip_results.json", full[: len(full) // 2])
    wb(kit / "empty" / "optimized_eval" / "baseline_hip_results.json", "[]\n")
    wb(kit / "obj" / "staging" / "optimized" / "hip_k_gen2.hip", hip_ext("obj_k2"))
    wjson(kit / "obj" / "comparison" / "origin_vs_optimized_results.json", {"results": [kit_row("hip_k_gen2.hip", "hip_k", 2)]})
    return {
        "rationale": "The kit writes JSON arrays. A truncated results file is one bad_json reject naming it; an "
                     "empty array is no record; a file holding an object instead of an array is one reject; a "
                     "good run beside them is kept.",
        "certainty": "judgement",
        "builds": [{"name": "main", "sources": [src("hip2hip", "kit")],
                    "expected": {"hip2hip": acc(3, 1, {"bad_json": 1, "*": 1},
                                                rows=[{"where": {"kernel_code~": "@HIP:good_k0@"},
                                                       "expect": {"pytorch_code~": "@MOD:hip_k@"}}],
                                                rejects=[{"reason": "bad_json", "any_contains": "trunc"},
                                                         {"reason": "*", "any_contains": "origin_vs_optimized_results.json"}])}}],
    }


# ----------------------------------------------------------------------------- v0.2 tables
V02 = {"cuda": "pytorch_hip_kernel_cuda_agent_ops_6k", "gm": "pytorch_hip_kernel_gpumode", "h2h": "hip-to-hip",
       "qa": "rocm-libraries", "tri": "PyTorch_triton_datasets"}


def v02_tree(root: Path, ids: bool = False):
    v = root / "v0.2"
    idc = (lambda x: {"id": x}) if ids else (lambda x: {})
    wjson(v / V02["cuda"] / "train.json", v02_kernel_table("ca", 2, ids))
    wb(v / V02["gm"] / "data" / "part-0.json",
       "".join(json.dumps(r) + "\n" for r in v02_kernel_table("gj", 2, ids)))      # JSON Lines in a .json
    wjson(v / V02["h2h"] / "hip_to_hip.json", [
        dict({"question_code": hip_ext(f"hb{i}"), "answer_code": hip_ext(f"ho{i}"),
              "source_ref": f"hip_opt.tar:hip_opt/10{i}/v{i}.hip", "speedup": 1.5 + i}, **idc(f"h{i}")) for i in range(2)])
    write_parquet(v / V02["tri"] / "Triton-Stack.parquet",
                  [dict({"question_code": py_module(f"ts{i}"), "answer_code": triton_kernel(f"ts{i}")}, **idc(f"ts{i}"))
                   for i in range(2)])


@case("v02_tables_formats")
def _(c: Path):
    root = c / "rel"
    license_at(root)
    v02_tree(root)
    license_at(c / "rel_id")
    v02_tree(c / "rel_id", ids=True)
    exps = {
        V02["cuda"]: acc(2, 2, rows=[pair_q("ca0"), pair_q("ca1")]),
        V02["gm"]: acc(2, 2, rows=[pair_q("gj0"), pair_q("gj1")]),
        V02["h2h"]: acc(2, 2, rows=[
            {"where": {"kernel_code~": f"@HIP:ho{i}@"},
             "expect": {"baseline_kernel_code~": f"@HIP:hb{i}@", "verification.speedup": 1.5 + i,
                        "provenance.upstream~": f"hip_opt/10{i}/v{i}.hip"}} for i in range(2)]),
        V02["tri"]: acc(2, 2, rows=[{"where": {"kernel_code~": f"@TRI:ts{i}@"},
                                     "expect": {"pytorch_code~": f"@MOD:ts{i}@", "provenance.pipeline": "triton-stack"}}
                                    for i in range(2)]),
    }
    kinds = {"cuda": "v02_cudaagent", "gm": "v02_gpumode", "h2h": "v02_hip2hip", "tri": "v02_triton"}
    return {
        "rationale": "v0.2 subset tables as a JSON array, JSON Lines inside a .json, a JSON array with extra "
                     "columns (provenance reference, speedup) and parquet. question_code -> PyTorch reference (the "
                     "baseline HIP for hip-to-hip), answer_code -> the kernel; a speedup goes to verification and "
                     "the provenance reference to provenance.upstream; Triton-Stack names pipeline triton-stack. "
                     "Read as `release` at the root or by each kind, the rows agree.",
        "certainty": "sure",
        "builds": [{"name": "release", "sources": [src("release", "rel")],
                    "expected": {f"@release:{V02[k]}": exps[V02[k]] for k in kinds}},
                   {"name": "kinds", "sources": [src(kinds[k], f"rel/v0.2/{V02[k]}") for k in kinds],
                    "expected": {kinds[k]: exps[V02[k]] for k in kinds}},
                   {"name": "release_id", "sources": [src("release", "rel_id")],
                    "options": {"release.columns": {V02[k]: ID_COLS for k in kinds}},
                    "expected": {f"@release:{V02[k]}": exps[V02[k]] for k in kinds}},
                   {"name": "kinds_id", "sources": [src(kinds[k], f"rel_id/v0.2/{V02[k]}") for k in kinds],
                    "options": {f"{kinds[k]}.columns": ID_COLS for k in kinds},
                    "expected": {kinds[k]: exps[V02[k]] for k in kinds}}],
        # a task column changes the task names, so the builds with and without one agree among themselves
        "agree": [["release", "kinds"], ["release_id", "kinds_id"]],
        "inspect": [{"path": "rel", "expect": {f"v0.2/{V02[k]}": kinds[k] for k in kinds}, "exact": True}],
    }


@case("v02_triton_names")
def _(c: Path):
    license_at(c)
    for folder, ids in [("PyTorch_triton_datasets", False), ("id/PyTorch_triton_datasets", True)]:
        t = c / folder

        def r(k):
            return dict({"question_code": py_module(f"n_{k}"), "answer_code": triton_kernel(f"n_{k}")},
                        **({"id": f"n_{k}"} if ids else {}))
        write_parquet(t / "triton_stack_train.parquet", [r("stack")])
        wjson(t / "Triton-Bench.json", [r("bench")])
        wb(t / "gpumode_triton.jsonl", json.dumps(r("gm")) + "\n")
        write_parquet(t / "sub" / "AICE.parquet", [r("aice")])
    rows = [{"where": {"kernel_code~": f"@TRI:n_{k}@"}, "expect": {"pytorch_code~": f"@MOD:n_{k}@", "provenance.pipeline": f"triton-{k2}"}}
            for k, k2 in [("stack", "stack"), ("bench", "bench"), ("gm", "gpumode"), ("aice", "aice")]]
    return {
        "rationale": "The Triton source is told from the file name (stack, bench, gpumode, aice), whatever the "
                     "case and the table format, in a subfolder too.",
        "certainty": "judgement",
        "notes": "Case-insensitive matching of the names (Triton-Bench, AICE) is my reading; the card spells "
                 "them Triton-Stack/-Bench/-GPUMode/-AICE.",
        "builds": [{"name": "main", "sources": [src("v02_triton", "PyTorch_triton_datasets")],
                    "expected": {"v02_triton": acc(4, 4, rows=rows)}},
                   {"name": "with_id", "sources": [src("v02_triton", "id/PyTorch_triton_datasets")],
                    "options": {"v02_triton.columns": ID_COLS}, "expected": {"v02_triton": acc(4, 4, rows=rows)}}],
    }


@case("v02_unknown_keys")
def _(c: Path):
    root = c / "rel"
    license_at(root)
    tbl = [{"uid": f"u{i}", "ref_src": py_module(f"uk{i}"), "hip_src": hip_ext(f"uk{i}")} for i in range(2)]
    wjson(root / "v0.2" / V02["gm"] / "t.json", tbl)
    wjson(root / "v0.2" / V02["qa"] / "qa.json", [{"q_text": "What does rocblas_sgemm do?", "a_text": "GEMM."}])
    cols = {"pytorch_code": "ref_src", "kernel_code": "hip_src"}
    refused = acc(1, 0, {"missing_field": 1}, rejects=[{"reason": "missing_field", "message_contains": "ref_src"},
                                                       {"reason": "missing_field", "message_contains": "hip_src"},
                                                       {"reason": "missing_field", "message_contains": "columns"}])
    mapped = acc(2, 2, rows=[pair_q("uk0"), pair_q("uk1")])
    qa_refused = acc(1, 0, {"missing_field": 1}, rejects=[{"reason": "missing_field", "message_contains": "q_text"},
                                                          {"reason": "missing_field", "message_contains": "columns"}])
    return {
        "rationale": "A v0.2 table whose keys are not the documented defaults is refused as ONE missing_field "
                     "record whose message names the keys it saw and the option; with --option "
                     "v02_gpumode.columns (or release.columns per folder) it is read. The QA folder with unknown "
                     "keys is refused the same way.",
        "certainty": "judgement",
        "notes": "The field names of the mapping (pytorch_code, kernel_code) are the row schema's columns; "
                 "layouts.md only says `{field: column}`. The builds mapped_task / release_mapped_task were added "
                 "after the first run, to show the mapping works once the undocumented task_name is given.",
        "builds": [
            {"name": "refused", "sources": [src("v02_gpumode", f"rel/v0.2/{V02['gm']}")],
             "expected": {"v02_gpumode": refused}},
            {"name": "mapped", "sources": [src("v02_gpumode", f"rel/v0.2/{V02['gm']}")],
             "options": {"v02_gpumode.columns": cols}, "expected": {"v02_gpumode": mapped}},
            {"name": "release_refused", "sources": [src("release", "rel")],
             "expected": {f"@release:{V02['gm']}": refused, f"@release:{V02['qa']}": qa_refused}},
            {"name": "release_mapped", "sources": [src("release", "rel")],
             "options": {"release.columns": {V02["gm"]: cols}},
             "expected": {f"@release:{V02['gm']}": mapped, f"@release:{V02['qa']}": qa_refused}},
            # added after the first run: the same mapping plus task_name, which the tool asks for
            {"name": "mapped_task", "sources": [src("v02_gpumode", f"rel/v0.2/{V02['gm']}")],
             "options": {"v02_gpumode.columns": dict(cols, task_name="uid")}, "expected": {"v02_gpumode": mapped}},
            {"name": "release_mapped_task", "sources": [src("release", "rel")],
             "options": {"release.columns": {V02["gm"]: dict(cols, task_name="uid")}},
             "expected": {f"@release:{V02['gm']}": mapped, f"@release:{V02['qa']}": qa_refused}}],
        "agree": [["mapped", "release_mapped"], ["mapped_task", "release_mapped_task"]],
        "agree_sources": {"release_mapped": [f"@release:{V02['gm']}"], "release_mapped_task": [f"@release:{V02['gm']}"]},
        "inspect": [{"path": "rel", "expect": {f"v0.2/{V02['gm']}": "v02_gpumode", f"v0.2/{V02['qa']}": "v02_qa"}, "exact": True}],
    }


@case("v02_bad_rows")
def _(c: Path):
    for folder, ids in [("rel", False), ("rel_id", True)]:
        root = c / folder
        license_at(root)
        idc = (lambda x: {"id": x}) if ids else (lambda x: {})
        good = v02_kernel_table("br", 1, ids)[0]
        wjson(root / "v0.2" / V02["cuda"] / "train.json", [
            good, "a string element",
            dict({"question_code": py_module("br_noans")}, **idc("noans")),
            dict({"question_code": py_module("br_plain"), "answer_code": hip_plain("br_plain")}, **idc("plain")),
            dict({"question_code": 42, "answer_code": hip_ext("br_num")}, **idc("num"))])
        bl = v02_kernel_table("bl", 2, ids)
        lines = [json.dumps(bl[0]), "", '{"question_code": "import torch', json.dumps(bl[1])]
        wb(root / "v0.2" / V02["gm"] / "gpumode.json", "\n".join(lines) + "\n")
    exp = {f"@release:{V02['cuda']}": acc(5, 1, {"missing_field|bad_json": 3, "no_kernel|missing_field": 1},
                                          rows=[pair_q("br0")]),
           f"@release:{V02['gm']}": acc(3, 2, {"bad_json": 1}, rows=[pair_q("bl0"), pair_q("bl1")])}
    return {
        "rationale": "Row-level faults inside otherwise well-formed tables: a non-object element, a row without "
                     "answer_code, an answer that is not a PyTorch extension, a question_code that is a number; a "
                     "JSONL-in-.json with a blank line and a truncated line. Each is one reject; good rows kept.",
        "certainty": "judgement",
        "notes": "Reasons are not documented for v0.2 rows; families accepted. Build with_id added after the first "
                 "run (the same tables with an id column mapped to task_name).",
        "builds": [{"name": "main", "sources": [src("release", "rel")], "expected": exp},
                   {"name": "with_id", "sources": [src("release", "rel_id")],
                    "options": {"release.columns": {V02["cuda"]: ID_COLS, V02["gm"]: ID_COLS}}, "expected": exp}],
    }


# ----------------------------------------------------------------------------- inspect only
@case("inspect_everything")
def _(c: Path):
    root = c / "tree"
    license_at(root)
    small_release(root, ("3301", "3302"))
    wjson(root / "v0.2" / V02["h2h"] / "hip_to_hip.json", [{"question_code": hip_ext("ib"), "answer_code": hip_ext("io")}])
    write_parquet(root / "v0.2" / V02["tri"] / "Triton-AICE.parquet",
                  [{"question_code": py_module("ia"), "answer_code": triton_kernel("ia")}])
    lab = root / "lab"
    wjson(lab / "hip_kernel_rldataset" / "rl_data_hard.json",
          [rl_rec("x", f"{AMD}/hip_opt/3301/a.hip", f"{AMD}/pytorch_code_module/py_3301.py",
                  f"{AMD}/pytorch_code_functional/py_3301_func.py")])
    wb(lab / "eval_run" / "staging" / "optimized" / "hip_k_gen0.hip", hip_ext("ik"))
    wjson(lab / "eval_run" / "optimized_eval" / "baseline_hip_results.json", [kit_row("hip_k_gen0.hip", "hip_k", 0)])
    return {
        "rationale": "`kvdata sources --inspect` on a tree holding the v0.1 gpumode folder, two v0.2 folders, the "
                     "lab's rl_data JSON and an eval-kit run names the right kind for each folder.",
        "certainty": "judgement",
        "notes": "The kinds of the lab's folders (hip_rl_data for the rl_data folder, hip2hip for the run) are "
                 "my reading of `kvdata sources`; v0.1/v0.2 are sure.",
        "builds": [],
        "inspect": [{"path": "tree", "expect": {GM: "hip_gpumode", f"v0.2/{V02['h2h']}": "v02_hip2hip",
                                                f"v0.2/{V02['tri']}": "v02_triton",
                                                "lab/hip_kernel_rldataset|lab": "hip_rl_data",
                                                "lab/eval_run|lab": "hip2hip"}, "exact": True}],
    }


# --------------------------------------------------------------------------------------------- main
def main() -> int:
    if CASES.exists():
        shutil.rmtree(CASES)
    CASES.mkdir(parents=True)
    for cid, fn in ALL.items():
        d = CASES / cid
        d.mkdir()
        spec = fn(d)
        # The tool looks for LICENSE at the source folder (or the release root): put one at every folder a
        # non-release build names, so license handling never hides what a case tests.
        for b in spec.get("builds", []):
            for s in b["sources"]:
                p = d / s["path"]
                if s["kind"] != "release" and not s["path"].startswith("tar://") and p.is_dir():
                    if not (p / "LICENSE").exists():
                        license_at(p)
        # Every folder a non-release build reads is also inspected: `kvdata sources --inspect` must name the
        # kind the build used for it (added after the first run; decided before running it).
        seen = {i["path"] for i in spec.get("inspect", [])}
        for b in spec.get("builds", []):
            for s in b["sources"]:
                if s["kind"] in ("release", "hip2hip") or s["path"].startswith("tar://") or s["path"] in seen:
                    continue
                seen.add(s["path"])
                spec.setdefault("inspect", []).append({"path": s["path"], "expect": {".": s["kind"]}})
        wb(d / "case.json", json.dumps(spec, indent=1, ensure_ascii=False, sort_keys=False) + "\n")
    print(f"wrote {len(ALL)} cases to {CASES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
