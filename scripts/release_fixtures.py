#!/usr/bin/env python3
"""Write trees shaped like AMD's release and the lab's files, from the evidence in docs/notes/layouts.md.

Nothing here is copied from the release or the lab: the layouts (folder and file names, JSON keys, array vs
JSONL, the tar) follow what AMD's code reads and writes; the contents are small kernels made up here. Each
writer returns a :class:`Manifest` saying which records it wrote and which of them must be kept, so a test
compares a build with what was written, never with numbers typed in.

    python scripts/release_fixtures.py --out /tmp/rel --tasks 50 --variants 4 [--pack tar|tar.gz]

writes ``/tmp/rel/AIG-Datasets/...`` (v0.1 and v0.2), an evaluation-kit run, rl_data lists and a veRL parquet.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

MIT = """MIT License

Copyright (c) 2025 kvdata fixture authors

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
GPUMODE = Path("v0.1/PyTorch_HIP_kernel_dataset/pytorch_hip_kernel_gpumode")
#: (op name, torch expression of x, HIP expression of v)
OPS = [("ReLU", "torch.relu(x)", "fmaxf(v, 0.0f)"), ("Sigmoid", "torch.sigmoid(x)", "1.0f / (1.0f + expf(-v))"),
       ("Tanh", "torch.tanh(x)", "tanhf(v)"), ("Square", "x * x", "v * v"), ("Negate", "-x", "-v"),
       ("Softplus", "torch.nn.functional.softplus(x)", "log1pf(expf(v))"), ("Abs", "torch.abs(x)", "fabsf(v)"),
       ("Exp", "torch.exp(x)", "expf(v)")]


@dataclass
class Manifest:
    """What a writer wrote: every input record's ref, and which must become rows (the rest: rejects)."""

    root: Path
    kept: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)      # ref -> the reject reason it must get
    tasks: dict[str, str] = field(default_factory=dict)         # kept ref -> task it must pair with

    @property
    def inputs(self) -> int:
        return len(self.kept) + len(self.rejected)


def sample_id(i: int) -> str:
    """GPU MODE-style sample ids, as in the kit's ``hip_8825_EDMLoss`` / ``py_8825_EDMLoss`` names."""
    return f"{1000 + i * 7}_{OPS[i % len(OPS)][0]}Op{i}"


def module_code(i: int) -> str:
    name, expr, _ = OPS[i % len(OPS)]
    return (f'import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    """{name} of sample {i}."""\n\n'
            f"    def forward(self, x):\n        return {expr}\n\n\ndef get_inputs():\n"
            f"    return [torch.randn({16 + i % 97}, {64 + 8 * (i % 89)})]\n\n\ndef get_init_inputs():\n    return []\n")


def functional_code(i: int) -> str:
    name, expr, _ = OPS[i % len(OPS)]
    return (f"import torch\nimport torch.nn as nn\n\n\ndef module_fn(x):\n    return {expr}\n\n\n"
            f"class Model(nn.Module):\n    def forward(self, x, fn=module_fn):\n        return fn(x)\n\n\n"
            f"def get_inputs():\n    return [torch.randn({16 + i % 97}, {64 + 8 * (i % 89)})]\n\n\n"
            f"def get_init_inputs():\n    return []\n")


_BODIES = [
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) {{ float v = x[i]; y[i] = {e}; }}\n",
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {{\n"
    "        float v = __ldg(x + i);\n        y[i] = {e};\n    }}\n",
    "    int base = (blockIdx.x * blockDim.x + threadIdx.x) * 4;\n    #pragma unroll\n"
    "    for (int k = 0; k < 4; ++k) {{\n        int i = base + k;\n        if (i < n) {{ float v = x[i]; y[i] = {e}; }}\n    }}\n",
    "    __shared__ float tile[256];\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    tile[threadIdx.x] = i < n ? x[i] : 0.0f;\n    __syncthreads();\n"
    "    if (i < n) {{ float v = tile[threadIdx.x]; y[i] = {e}; }}\n",
    "    const int lane = threadIdx.x & 63;\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float v = i < n ? x[i] : 0.0f;\n    float r = {e};\n    if (i < n && lane >= 0) y[i] = r;\n",
]


_HELPERS = [
    "__device__ __forceinline__ float clamp_{t}(float a, float lo, float hi) {{ return fminf(fmaxf(a, lo), hi); }}\n",
    "template <typename T>\n__device__ inline T madd_{t}(T a, T b, T c) {{\n    return a * b + c;\n}}\n",
    "__device__ float warp_sum_{t}(float v) {{\n    for (int off = 32; off > 0; off >>= 1) v += __shfl_down(v, off);\n"
    "    return v;\n}}\n",
    "struct Params_{t} {{\n    int n;\n    float alpha;\n    float beta;\n}};\n",
    "static inline int ceil_div_{t}(int a, int b) {{ return (a + b - 1) / b; }}\n",
]
_FORWARDS = [
    "torch::Tensor forward(torch::Tensor x) {{\n    auto y = torch::empty_like(x);\n    int n = x.numel();\n"
    "    int blocks = (n + {threads} - 1) / {threads};\n{launch}    return y;\n}}\n",
    "torch::Tensor forward(torch::Tensor input) {{\n    TORCH_CHECK(input.is_contiguous(), \"input must be contiguous\");\n"
    "    auto x = input.contiguous();\n    auto y = at::empty(x.sizes(), x.options());\n    const int n = static_cast<int>(x.numel());\n"
    "    const int blocks = std::min(65535, (n + {threads} - 1) / {threads});\n{launch}"
    "    TORCH_CHECK(hipGetLastError() == hipSuccess, \"launch failed\");\n    return y;\n}}\n",
    "at::Tensor forward(const at::Tensor& x) {{\n    at::Tensor y = at::empty_like(x);\n    int64_t total = x.numel();\n"
    "    int n = (int)total;\n    dim3 grid((n / 4 + {threads} - 1) / {threads} + 1);\n    int blocks = grid.x;\n{launch}"
    "    return y;\n}}\n",
    "torch::Tensor forward(torch::Tensor x) {{\n    auto opts = x.options();\n    auto y = torch::zeros(x.sizes(), opts);\n"
    "    int n = x.numel();\n    if (n == 0) return y;\n    int blocks = (n + {threads} - 1) / {threads};\n{launch}"
    "    hipDeviceSynchronize();\n    return y;\n}}\n",
]


def hip_code(i: int, k: int, name: str = "") -> str:
    """A HIP PyTorch extension for sample ``i``, in one of several styles (``k``: kernel body, helper and host
    wrapper all change) so that the variants of a task are not near duplicates of each other."""
    _, _, e = OPS[i % len(OPS)]
    body = _BODIES[k % len(_BODIES)].format(e=e)
    kernel = f"{name or 'op'}_kernel_{i}_{k}"
    threads = (128, 256, 512, 64)[k % 4]
    helper = _HELPERS[(i + k) % len(_HELPERS)].format(t=f"{i}_{k}")
    launch = (f"    hipLaunchKernelGGL({kernel}, dim3(blocks), dim3({threads}), 0, 0, x.data_ptr<float>(),\n"
              f"                       y.data_ptr<float>(), n);\n")
    forward = _FORWARDS[k % len(_FORWARDS)].format(threads=threads, launch=launch)
    return (f"#include <hip/hip_runtime.h>\n#include <torch/extension.h>\n\n{helper}\n"
            f"__global__ void {kernel}(const float* __restrict__ x, float* __restrict__ y, int n) {{\n{body}}}\n\n"
            f"{forward}\n"
            f'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{ m.def("forward", &forward, "sample {i} variant {k}"); }}\n')


def _write(path: Path, text) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


# ----------------------------------------------------------------- v0.1 gpumode
def write_v01(release: Path, tasks: int = 6, variants: int = 3, pack: str = "", info: bool = True,
              orphans: bool = True, leading: str = "") -> Manifest:
    """``<release>/v0.1/PyTorch_HIP_kernel_dataset/pytorch_hip_kernel_gpumode`` as AMD's converter reads it:
    ``py_<id>.py``, ``py_<id>_func.py``, ``hip_opt/<id>/*.hip`` and ``info.json``. ``pack`` ("tar", "tar.gz")
    writes ``hip_opt`` as an archive beside the module folders instead (members under ``<leading>hip_opt/``).
    The manifest's refs are relative to the gpumode folder."""
    root = release / GPUMODE
    _write(release / "LICENSE", MIT)
    man = Manifest(root)
    members: dict[str, bytes] = {}
    for i in range(tasks):
        sid = sample_id(i)
        _write(root / "pytorch_code_module" / f"py_{sid}.py", module_code(i))
        _write(root / "pytorch_code_functional" / f"py_{sid}_func.py", functional_code(i))
        entries = {}
        for k in range(variants):
            fname = f"hip_{sid}_v{k}.hip"
            members[f"hip_opt/{sid}/{fname}"] = hip_code(i, k).encode()
            man.kept.append(f"hip_opt/{sid}/{fname}")
            man.tasks[f"hip_opt/{sid}/{fname}"] = sid
            entries[fname[:-4]] = {"code": hip_code(i, k), "speedup": 1.0 + 0.1 * k, "correct": True,
                                   "compiled": True, "gpu": "MI300X", "iteration": k}
        if info and i % 3 == 0:       # an entry the converter would read for its code alone: a variant of its own
            entries["extra_candidate"] = {"code": hip_code(i, variants), "speedup": 1.3}
            man.kept.append(f"hip_opt/{sid}/info.json#extra_candidate")
            man.tasks[f"hip_opt/{sid}/info.json#extra_candidate"] = sid
        if info:
            members[f"hip_opt/{sid}/info.json"] = json.dumps(entries, indent=2).encode()
    if orphans:     # a task without any variant, and a variant folder without a module
        _write(root / "pytorch_code_module" / "py_9999_Lonely.py", module_code(1))
        man.rejected["pytorch_code_module/py_9999_Lonely.py"] = "no_kernel"
        members["hip_opt/8888_NoModule/hip_8888_NoModule.hip"] = hip_code(2, 0).encode()
        man.rejected["hip_opt/8888_NoModule/hip_8888_NoModule.hip"] = "missing_file"
    if pack:
        archive = root / f"hip_opt.{pack}"
        archive.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive, "w:gz" if pack.endswith("gz") else "w") as tar:
            for name in sorted(members):
                data = members[name]
                member = tarfile.TarInfo(leading + name)
                member.size = len(data)
                tar.addfile(member, io.BytesIO(data))
        prefix = f"hip_opt.{pack}!{leading}"
        man.kept = [f"{prefix}{r}" for r in man.kept]
        man.tasks = {f"{prefix}{r}": t for r, t in man.tasks.items()}
        man.rejected = {(f"{prefix}{r}" if r.startswith("hip_opt/") else r): v for r, v in man.rejected.items()}
    else:
        for name, data in members.items():
            _write(root / name, data)
    return man


# ----------------------------------------------------------------- the evaluation kit's run
def write_kit_run(out: Path, tasks: int = 4, gens: int = 2) -> Manifest:
    """A HIP_benchmark_kit ``compare`` run: ``staging/{origin,optimized}/``, ``origin_eval/`` and
    ``optimized_eval/baseline_hip_results.json`` (indented arrays), ``comparison/origin_vs_optimized_results.json``,
    and the dataset it read (``data/level-1/{hip_code,pytorch_code_module,pytorch_code_functional}`` with the kit's
    ``hip_<x>.hip`` / ``py_<x>.py`` names, the same name in both Python folders)."""
    _write(out / "LICENSE", MIT)
    data = out / "data" / "level-1"
    run = out / "run" / "level-1" / "eval"
    man = Manifest(out)
    origin_rows, optimized_rows, pairs = [], [], []
    for i in range(tasks):
        base = f"hip_{sample_id(i)}"
        _write(data / "hip_code" / f"{base}.hip", hip_code(i, 0))
        _write(data / "pytorch_code_module" / f"py_{sample_id(i)}.py", module_code(i))
        _write(data / "pytorch_code_functional" / f"py_{sample_id(i)}.py", functional_code(i))
        _write(out / "run" / "level-1" / "eval" / "staging" / "origin" / f"{base}.hip", hip_code(i, 0))
        origin_ms = 0.20 + 0.01 * i
        origin_rows.append(_kit_row(f"{base}.hip", base, None, "origin", origin_ms, origin_ms))
        for g in range(gens):
            name = f"{base}_gen{g}.hip"
            _write(run / "staging" / "optimized" / name, hip_code(i, g + 1))
            ok = not (i == 1 and g == 1)
            faster = not (i == 2 and g == 0)
            opt_ms = origin_ms / (1.5 if faster else 0.8)
            optimized_rows.append(_kit_row(name, base, g, "optimized", origin_ms, opt_ms, match=ok))
            pair = {"base_name": base, "gen_idx": g, "origin_hip_file": f"{base}.hip", "optimized_hip_file": name,
                    "origin_compile_ok": True, "origin_run_ok": True, "origin_match_ok": True,
                    "optimized_compile_ok": True, "optimized_run_ok": True, "optimized_match_ok": ok,
                    "origin_hip_time_ms": origin_ms, "optimized_hip_time_ms": opt_ms if ok else None,
                    "speedup": round(origin_ms / opt_ms, 4) if ok else None, "perf_gpu_id": 0,
                    "perf_started_at": "2026-01-05T10:00:00", "perf_finished_at": "2026-01-05T10:00:03",
                    "pair_ok": ok, "compare_error": None if ok else "optimized_preflight_failed",
                    "origin_preflight_error_message": None,
                    "optimized_preflight_error_message": None if ok else "mismatch: max abs diff 0.5"}
            pairs.append(pair)
            ref = f"run/level-1/eval/comparison/origin_vs_optimized_results.json[{len(pairs) - 1}]"
            if not ok:
                man.rejected[ref] = "mismatch"
            elif not faster:
                man.rejected[ref] = "not_faster"
            else:
                man.kept.append(ref)
                man.tasks[ref] = base
    _write(run / "origin_eval" / "baseline_hip_results.json", json.dumps(origin_rows, indent=2))
    _write(run / "optimized_eval" / "baseline_hip_results.json", json.dumps(optimized_rows, indent=2))
    _write(run / "comparison" / "origin_vs_optimized_results.json", json.dumps(pairs, indent=2))
    return man


def _kit_row(hip_file, base, gen, side, ref_ms, ms, match=True):
    return {"hip_file": hip_file, "base_name": base, "gen_idx": gen, "compile_ok": True, "run_ok": True,
            "match_ok": match, "pytorch_time_ms": ref_ms, "hip_time_ms": ms,
            "speedup": round(ref_ms / ms, 4) if match else None, "module_perf_enabled": False,
            "hip_perf_enabled": True, "artifact_side": side, "perf_gpu_id": 0,
            "error_message": None if match else "mismatch", "eval_backend": "server-inprocess",
            "sandbox_timing": {"reference_perf_ms": ref_ms, "candidate_perf_ms": ms}}


def write_kit_comprehensive(out: Path, tasks: int = 3) -> Manifest:
    """The kit's ``comprehensive`` mode: candidates ``<base>_gen<N>.hip`` beside their references ``<base>.hip`` in
    one ``hip_code`` folder, and ``baseline_hip_results.json`` (artifact_side ``single``) where every time is over
    the reference HIP."""
    _write(out / "LICENSE", MIT)
    man = Manifest(out)
    rows = []
    for i in range(tasks):
        base = f"hip_{sample_id(i)}"
        _write(out / "hip_code" / f"{base}.hip", hip_code(i, 0))
        _write(out / "hip_code" / f"{base}_gen0.hip", hip_code(i, 2))
        _write(out / "pytorch_code_module" / f"py_{sample_id(i)}.py", module_code(i))
        _write(out / "pytorch_code_functional" / f"py_{sample_id(i)}.py", functional_code(i))
        rows.append(_kit_row(f"{base}_gen0.hip", base, 0, "single", 0.3, 0.2))
        man.kept.append(f"eval/baseline_hip_results.json[{i}]")
        man.tasks[f"eval/baseline_hip_results.json[{i}]"] = base
    _write(out / "eval" / "baseline_hip_results.json", json.dumps(rows, indent=2))
    return man


# ----------------------------------------------------------------- the lab's RL data
def write_rl_data(lab: Path, release: Path, tasks: int = 6, amd_prefix: str = "/home/amd/work/dataset") -> Manifest:
    """``<lab>/hip_kernel_rldataset/rl_data_hard.json``: a JSON list of records whose ``data_info`` holds AMD's
    absolute paths into the v0.1 tree (``release`` must hold it, e.g. from :func:`write_v01`); one record whose
    paths do not remap, one kernel2kernel record, one without data_info."""
    man = Manifest(lab)
    records = []
    gp = f"{amd_prefix}/AIG-Datasets/{GPUMODE.as_posix()}"
    for i in range(tasks):
        sid = sample_id(i)
        records.append({"data_info": {
            "name": [f"op_kernel_{i}_0"], "hip_code_path": f"{gp}/hip_opt/{sid}/hip_{sid}_v0.hip",
            "pytorch_code_module": f"{gp}/pytorch_code_module/py_{sid}.py",
            "pytorch_code_functional": f"{gp}/pytorch_code_functional/py_{sid}_func.py",
            "original_code_body": f"__global__ void op_kernel_{i}_0(...)", "signature": ["const float*", "float*", "int"]},
            "difficulty": "hard"})
        man.kept.append(f"hip_kernel_rldataset/rl_data_hard.json[{i}]")
        man.tasks[f"hip_kernel_rldataset/rl_data_hard.json[{i}]"] = sid
    records.append({"data_info": {"name": "x", "hip_code_path": "/somewhere/else/k.hip",
                                  "pytorch_code_module": "/somewhere/else/m.py",
                                  "pytorch_code_functional": "/somewhere/else/f.py"}})
    man.rejected[f"hip_kernel_rldataset/rl_data_hard.json[{tasks}]"] = "missing_file"
    records.append({"kernel_name": "k", "input": "__global__ void k()", "hip_reference_cde": "..."})
    man.rejected[f"hip_kernel_rldataset/rl_data_hard.json[{tasks + 1}]"] = "missing_field"
    records.append({"difficulty": "normal"})
    man.rejected[f"hip_kernel_rldataset/rl_data_hard.json[{tasks + 2}]"] = "missing_field"
    _write(lab / "hip_kernel_rldataset" / "rl_data_hard.json", json.dumps(records, indent=2))
    return man


def write_verl(out: Path, tasks: int = 5) -> Manifest:
    """The converter's ``<name>_<gpu>_react_sample_json_v1_verl.parquet``, written as it writes it (pandas
    records with nested dicts), plus one row with an empty ground truth."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    _write(out / "LICENSE", MIT)
    man = Manifest(out)
    rows = []
    for i in range(tasks + 1):
        sid = sample_id(i)
        empty = i == tasks
        rows.append({
            "prompt": [{"role": "user", "content": f"Starter HIP File (reference)\n{hip_code(i, 0)}"}],
            "data_source": "hip2hip-train", "ability": "kernel_optimization",
            "reward_model": {"style": "sandbox_fusion", "ground_truth": {
                "atol": 0.0001, "rtol": 0.001, "compile_timeout_s": 10000, "run_timeout_s": 10000,
                "cuda_baseline_code": None, "cuda_baseline_path": None, "hip_code": "" if empty else hip_code(i, 0),
                "kernel_name": f"op_kernel_{i}_0", "pytorch_module_code": module_code(i),
                "pytorch_functional_code": functional_code(i)}},
            "extra_info": {"kernel_id_name": sid, "kernel_name": f"op_kernel_{i}_0", "target_gpu": "mi300x",
                           "output_contract": "sample_json_v1", "optimization_paradigm": "hip2hip_full_file",
                           "original_code_body": "", "signature": []}})
        ref = f"rl_data_hard_mi300x_react_sample_json_v1_verl.parquet[{i}]"
        if empty:
            man.rejected[ref] = "empty_code"
        else:
            man.kept.append(ref)
            man.tasks[ref] = sid
    pq.write_table(pa.Table.from_pylist(rows), out / "rl_data_hard_mi300x_react_sample_json_v1_verl.parquet")
    return man


# ----------------------------------------------------------------- v0.2
V02 = Path("v0.2")


def write_v02(release: Path, rows: int = 4) -> dict[str, Manifest]:
    """The five v0.2 folders, each with a table in the unified schema as far as it is known (``question_code``,
    ``answer_code``, ``provenance`` into the v0.1 tar) plus invented but plausible other keys; the Triton folder
    has one parquet per source (Stack, Bench, GPUMode, AICE), hip-to-hip is one JSON array, cudaagent JSONL in
    a ``.json`` file, and QA a JSON array."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    _write(release / "LICENSE", MIT)
    out: dict[str, Manifest] = {}
    folder = release / V02 / "hip-to-hip"
    man = out["hip-to-hip"] = Manifest(folder)
    records = []
    for i in range(rows):
        sid = sample_id(i)
        records.append({"id": f"h2h-{i}", "task_name": sid, "question_code": hip_code(i, 0), "answer_code": hip_code(i, 3),
                        "speedup": 1.2 + i / 10, "correct": True,
                        "provenance": {"archive": "v0.1/.../hip_opt.tar", "member": f"hip_opt/{sid}/hip_{sid}_v0.hip"},
                        "source_dataset": "hip-to-hip"})
        man.kept.append(f"hip_to_hip.json[{i}]")
    records.append({"id": "h2h-bad", "task_name": "x", "question_code": hip_code(0, 0), "answer_code": ""})
    man.rejected[f"hip_to_hip.json[{rows}]"] = "empty_code"
    _write(folder / "hip_to_hip.json", json.dumps(records, indent=2))

    for name in ("pytorch_hip_kernel_gpumode", "pytorch_hip_kernel_cuda_agent_ops_6k"):
        folder = release / V02 / name
        man = out[name] = Manifest(folder)
        lines = []
        for i in range(rows):
            lines.append(json.dumps({"task_name": f"{name[:8]}_{sample_id(i)}", "question_code": module_code(i),
                                     "answer_code": hip_code(i, 4), "pytorch_functional_code": functional_code(i),
                                     "provenance": f"v0.1/.../hip_opt.tar!hip_opt/{sample_id(i)}/x.hip",
                                     "license": "MIT"}))
            man.kept.append(f"data.json:{i + 1}")
        _write(folder / "data.json", "\n".join(lines) + "\n")      # JSON Lines despite the name

    folder = release / V02 / "rocm-libraries"
    man = out["rocm-libraries"] = Manifest(folder)
    qa = [{"question": f"What does rocblas_fixture_{i} compute?", "answer": f"It scales vector {i} by alpha.",
           "library": "rocblas", "symbol": f"rocblas_fixture_{i}", "type": "purpose"} for i in range(rows)]
    man.kept = [f"rocm_libraries_qa.json[{i}]" for i in range(rows)]
    _write(folder / "rocm_libraries_qa.json", json.dumps(qa, indent=2))

    folder = release / V02 / "PyTorch_triton_datasets"
    man = out["PyTorch_triton_datasets"] = Manifest(folder)
    for source in ("stack", "bench", "gpumode", "aice"):
        table = [{"task_name": f"{source}_{i}", "question_code": module_code(i), "answer_code": triton_code(i),
                  "source": f"Triton-{source}"} for i in range(rows)]
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(table), folder / f"triton_{source}.parquet")
        man.kept += [f"triton_{source}.parquet[{i}]" for i in range(rows)]
    return out


def triton_code(i: int) -> str:
    _, expr, _ = OPS[i % len(OPS)]
    return (f"import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
            f"def kernel_{i}(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n    pid = tl.program_id(0)\n"
            f"    offs = pid * BLOCK + tl.arange(0, BLOCK)\n    mask = offs < n\n"
            f"    x = tl.load(x_ptr + offs, mask=mask)\n    tl.store(y_ptr + offs, x * {i + 1}.0, mask=mask)\n\n\n"
            f"class ModelNew(torch.nn.Module):\n    def forward(self, x):\n        y = torch.empty_like(x)\n"
            f"        n = x.numel()\n        kernel_{i}[(triton.cdiv(n, 128),)](x, y, n, BLOCK=128)\n        return y\n")


def write_all(out: Path, tasks: int, variants: int, pack: str = "") -> dict[str, Manifest]:
    release = out / "AIG-Datasets"
    manifests = {"v0.1": write_v01(release, tasks, variants, pack)}
    manifests.update(write_v02(release))
    manifests["kit_run"] = write_kit_run(out / "kit")
    manifests["rl_data"] = write_rl_data(out / "lab", release)
    manifests["verl"] = write_verl(out / "verl")
    return manifests


SAMPLE_YAML = """# The v0.1 release's naming (py_<id>.py, py_<id>_func.py, hip_opt/<id>/*.hip, info.json), written by
# scripts/release_fixtures.py --sample; read through `release`, which finds the gpumode tree below the release root.
- kind: release
  path: AIG-Datasets
  options:
    generator: kvdata-sample-templates
    commit: sample
"""


def write_sample(folder: Path) -> Manifest:
    """The bundled sample's v0.1 layout (builders/sample/hip_gpumode_v01): a small release root."""
    man = write_v01(folder / "AIG-Datasets", tasks=4, variants=2, orphans=False)
    _write(folder / "sources.yaml", SAMPLE_YAML)
    return man


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--variants", type=int, default=3)
    ap.add_argument("--pack", choices=["", "tar", "tar.gz"], default="")
    ap.add_argument("--sample", action="store_true", help="write the bundled sample's v0.1 folder into --out")
    args = ap.parse_args()
    if args.sample:
        man = write_sample(args.out)
        print(f"sample: {man.inputs} records, {len(man.kept)} to keep ({man.root})")
        return
    if args.out.exists() and any(args.out.iterdir()):
        raise SystemExit(f"{args.out} is not empty; give a new folder")
    os.makedirs(args.out, exist_ok=True)
    manifests = write_all(args.out, args.tasks, args.variants, args.pack)
    for name, man in manifests.items():
        print(f"{name:<40} {man.inputs:>6} records, {len(man.kept):>6} to keep  ({man.root})")


if __name__ == "__main__":
    main()
