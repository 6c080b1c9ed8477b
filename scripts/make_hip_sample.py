"""Generate the bundled HIP sample trees (builders/sample/hip_gpumode, hip2hip, hip_cudaagent).

All code below is original, written for kvdata. Each op has a KernelBench-style module
reference, a functional reference (``module_fn`` + ``Model.forward(..., fn=module_fn)``)
and HIP PyTorch extensions whose ``forward`` takes ``module_fn``'s arguments. A few
kernels are deliberately wrong; every folder's ``expected.json`` maps a row's
``provenance.path`` to "correct" or "incorrect" so re-verification tests can use it.

    python scripts/make_hip_sample.py            # (re)write the three sample folders
    python scripts/make_hip_sample.py --check    # also compile every HIP file with hipcc (one batched unit)
    python scripts/make_hip_sample.py --check --separate   # ... each file on its own (slow)

The eval timings of the hip2hip sample are illustrative placeholders, not measurements.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "builders" / "sample"

LICENSE_TEXT = """\
Copyright 2025 The kvdata authors

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
"""

# ============================================================== PyTorch references
def unary_refs(torch_expr: str, doc: str):
    module = f'''import torch
import torch.nn as nn


class Model(nn.Module):
    """{doc}"""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return {torch_expr.format(x="x")}


batch_size = 16
dim = 1000


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''
    functional = f'''import torch
import torch.nn as nn
import torch.nn.functional as F


def module_fn(x: torch.Tensor) -> torch.Tensor:
    """{doc}"""
    return {torch_expr.format(x="x")}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, fn=module_fn):
        return fn(x)


batch_size = 16
dim = 1000


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''
    return module, functional


REFS: dict[str, tuple[str, str]] = {}
REFS["1_ReLU"] = unary_refs("torch.relu({x})", "Applies ReLU elementwise.")
REFS["2_GELU"] = unary_refs("torch.nn.functional.gelu({x})", "Applies exact (erf) GELU elementwise.")
REFS["10_Sigmoid"] = unary_refs("torch.sigmoid({x})", "Applies the logistic sigmoid elementwise.")
REFS["11_Tanh"] = unary_refs("torch.tanh({x})", "Applies tanh elementwise.")

REFS["3_Add"] = ('''import torch
import torch.nn as nn


class Model(nn.Module):
    """Adds two tensors of the same shape."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a + b


N = 4099


def get_inputs():
    return [torch.randn(N), torch.randn(N)]


def get_init_inputs():
    return []
''', '''import torch
import torch.nn as nn


def module_fn(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Adds two tensors of the same shape."""
    return a + b


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, fn=module_fn):
        return fn(a, b)


N = 4099


def get_inputs():
    return [torch.randn(N), torch.randn(N)]


def get_init_inputs():
    return []
''')

REFS["4_Scale"] = ('''import torch
import torch.nn as nn


class Model(nn.Module):
    """Multiplies a tensor by a constant factor."""

    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale


def get_inputs():
    return [torch.randn(8, 513)]


def get_init_inputs():
    return [0.5]
''', '''import torch
import torch.nn as nn


def module_fn(x: torch.Tensor, scale: float) -> torch.Tensor:
    """Multiplies a tensor by a constant factor."""
    return x * scale


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x, fn=module_fn):
        return fn(x, self.scale)


def get_inputs():
    return [torch.randn(8, 513)]


def get_init_inputs():
    return [0.5]
''')


def row_refs(doc: str, torch_body: str, shape=(32, 777)):
    rows, cols = shape
    module = f'''import torch
import torch.nn as nn


class Model(nn.Module):
    """{doc}"""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return {torch_body}


def get_inputs():
    return [torch.randn({rows}, {cols})]


def get_init_inputs():
    return []
'''
    functional = f'''import torch
import torch.nn as nn


def module_fn(x: torch.Tensor) -> torch.Tensor:
    """{doc}"""
    return {torch_body}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, fn=module_fn):
        return fn(x)


def get_inputs():
    return [torch.randn({rows}, {cols})]


def get_init_inputs():
    return []
'''
    return module, functional


REFS["5_Softmax"] = row_refs("Softmax over the last dimension of a 2-D tensor.", "torch.softmax(x, dim=1)")
REFS["6_Sum"] = row_refs("Sums a 2-D tensor over dimension 1.", "torch.sum(x, dim=1)")

REFS["7_LayerNorm"] = ('''import torch
import torch.nn as nn


class Model(nn.Module):
    """Layer normalisation over the last dimension, with affine weight and bias."""

    def __init__(self, features: int):
        super().__init__()
        self.ln = nn.LayerNorm(features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


features = 300


def get_inputs():
    return [torch.randn(24, features)]


def get_init_inputs():
    return [features]
''', '''import torch
import torch.nn as nn
import torch.nn.functional as F


def module_fn(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    """Layer normalisation over the last dimension, with affine weight and bias."""
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        ln = nn.LayerNorm(features)
        self.weight = nn.Parameter(ln.weight.detach().clone())
        self.bias = nn.Parameter(ln.bias.detach().clone())
        self.eps = ln.eps

    def forward(self, x, fn=module_fn):
        return fn(x, self.weight, self.bias, self.eps)


features = 300


def get_inputs():
    return [torch.randn(24, features)]


def get_init_inputs():
    return [features]
''')

REFS["8_Matmul"] = ('''import torch
import torch.nn as nn


class Model(nn.Module):
    """Matrix product of A (M, K) and B (K, N)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M, K, N = 70, 45, 33


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
''', '''import torch
import torch.nn as nn


def module_fn(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """Matrix product of A (M, K) and B (K, N)."""
    return torch.matmul(A, B)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B, fn=module_fn):
        return fn(A, B)


M, K, N = 70, 45, 33


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
''')

REFS["9_Add_Bias_ReLU"] = ('''import torch
import torch.nn as nn


class Model(nn.Module):
    """Adds a per-channel bias to a (batch, channels) tensor, then ReLU."""

    def __init__(self, channels: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.bias)


channels = 130


def get_inputs():
    return [torch.randn(40, channels)]


def get_init_inputs():
    return [channels]
''', '''import torch
import torch.nn as nn


def module_fn(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Adds a per-channel bias to a (batch, channels) tensor, then ReLU."""
    return torch.relu(x + bias)


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(channels))

    def forward(self, x, fn=module_fn):
        return fn(x, self.bias)


channels = 130


def get_inputs():
    return [torch.randn(40, channels)]


def get_init_inputs():
    return [channels]
''')


def gemm_refs(relu: bool):
    act = "torch.relu(" if relu else "("
    doc = "Linear layer (x @ W^T + b)" + (" followed by ReLU." if relu else ".")
    module = f'''import torch
import torch.nn as nn


class Model(nn.Module):
    """{doc}"""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return {act}self.linear(x))


batch_size, in_features, out_features = 37, 64, 48


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
'''
    functional = f'''import torch
import torch.nn as nn
import torch.nn.functional as F


def module_fn(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """{doc}"""
    return {act}F.linear(x, weight, bias))


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        linear = nn.Linear(in_features, out_features)
        self.weight = nn.Parameter(linear.weight.detach().clone())
        self.bias = nn.Parameter(linear.bias.detach().clone())

    def forward(self, x, fn=module_fn):
        return fn(x, self.weight, self.bias)


batch_size, in_features, out_features = 37, 64, 48


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
'''
    return module, functional


REFS["12_Gemm"] = gemm_refs(relu=False)
REFS["12_Gemm_ReLU"] = gemm_refs(relu=True)

# Malformed references (the sample's accounting must show them).
NO_GET_INPUTS_MODULE = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """Negates a tensor. (This reference forgot get_inputs.)"""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return -x


def get_init_inputs():
    return []
'''

# ============================================================== HIP kernels
HEADER = "#include <torch/extension.h>\n#include <hip/hip_runtime.h>\n"


def binding(doc: str) -> str:
    return f'\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{\n    m.def("forward", &forward, "{doc}");\n}}\n'


CHECK_F32 = '''static void check_input(const torch::Tensor& t, const char* name) {
    TORCH_CHECK(t.scalar_type() == torch::kFloat, name, " must be float32");
}
'''


def unary_basic(op: str, expr: str, index: str = "i", guard: bool = True) -> str:
    """One thread per element. ``index`` / ``guard`` let the sample plant bugs."""
    body = f"y[i] = {op}_op(x[{index}]);"
    body = f"if (i < n) {{\n        {body}\n    }}" if guard else body
    return HEADER + f'''
__device__ __forceinline__ float {op}_op(float v) {{
    return {expr};
}}

__global__ void {op}_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    {body}
}}

{CHECK_F32}
torch::Tensor forward(torch::Tensor x) {{
    check_input(x, "x");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    if (n == 0) return y;
    const int threads = 256;
    const int blocks = (int)((n + threads - 1) / threads);
    hipLaunchKernelGGL({op}_kernel, dim3(blocks), dim3(threads), 0, 0,
                       xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}}
''' + binding(f"{op} (one thread per element)")


def unary_vec(op: str, expr: str) -> str:
    """Grid-stride loop over float4 packs, scalar tail; falls back to scalars when unaligned."""
    return HEADER + f'''#include <cstdint>

__device__ __forceinline__ float {op}_op(float v) {{
    return {expr};
}}

__global__ void {op}_vec_kernel(const float* __restrict__ x, float* __restrict__ y,
                                int64_t n, int64_t n4) {{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t start = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int64_t i = start; i < n4; i += stride) {{
        float4 q = x4[i];
        q.x = {op}_op(q.x);
        q.y = {op}_op(q.y);
        q.z = {op}_op(q.z);
        q.w = {op}_op(q.w);
        y4[i] = q;
    }}
    for (int64_t i = n4 * 4 + start; i < n; i += stride) {{
        y[i] = {op}_op(x[i]);
    }}
}}

{CHECK_F32}
torch::Tensor forward(torch::Tensor x) {{
    check_input(x, "x");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    if (n == 0) return y;
    const float* xp = xc.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    const bool aligned = ((reinterpret_cast<std::uintptr_t>(xp) | reinterpret_cast<std::uintptr_t>(yp)) % 16) == 0;
    const int64_t n4 = aligned ? n / 4 : 0;
    const int threads = 256;
    const int64_t work = n4 > 0 ? n4 : n;
    const int blocks = (int)std::min<int64_t>((work + threads - 1) / threads, 4096);
    hipLaunchKernelGGL({op}_vec_kernel, dim3(blocks), dim3(threads), 0, 0, xp, yp, n, n4);
    return y;
}}
''' + binding(f"{op} (float4 grid-stride)")


UNARY = {
    "1_ReLU": ("relu", "fmaxf(v, 0.0f)"),
    "2_GELU": ("gelu", "0.5f * v * (1.0f + erff(v * 0.70710678118654752f))"),
    "10_Sigmoid": ("sigmoid", "1.0f / (1.0f + expf(-v))"),
    "11_Tanh": ("tanh", "tanhf(v)"),
}


def add_kernel(vec: bool = False) -> str:
    loop = ('''    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        c[i] = a[i] + b[i];
    }''' if vec else '''    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }''')
    blocks = ("(int)std::min<int64_t>((n + threads - 1) / threads, 1024)" if vec
              else "(int)((n + threads - 1) / threads)")
    return HEADER + f'''
__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ c, int64_t n) {{
{loop}
}}

{CHECK_F32}
torch::Tensor forward(torch::Tensor a, torch::Tensor b) {{
    check_input(a, "a");
    check_input(b, "b");
    TORCH_CHECK(a.sizes() == b.sizes(), "a and b must have the same shape");
    auto ac = a.contiguous();
    auto bc = b.contiguous();
    auto c = torch::empty_like(ac);
    const int64_t n = ac.numel();
    if (n == 0) return c;
    const int threads = 256;
    const int blocks = {blocks};
    hipLaunchKernelGGL(add_kernel, dim3(blocks), dim3(threads), 0, 0,
                       ac.data_ptr<float>(), bc.data_ptr<float>(), c.data_ptr<float>(), n);
    return c;
}}
''' + binding("elementwise add")


def scale_kernel(grid_stride: bool = False) -> str:
    loop = ('''    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = x[i] * s;
    }''' if grid_stride else '''    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] * s;
    }''')
    blocks = ("(int)std::min<int64_t>((n + threads - 1) / threads, 1024)" if grid_stride
              else "(int)((n + threads - 1) / threads)")
    return HEADER + f'''
__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, float s, int64_t n) {{
{loop}
}}

{CHECK_F32}
torch::Tensor forward(torch::Tensor x, double scale) {{
    check_input(x, "x");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    if (n == 0) return y;
    const int threads = 256;
    const int blocks = {blocks};
    hipLaunchKernelGGL(scale_kernel, dim3(blocks), dim3(threads), 0, 0,
                       xc.data_ptr<float>(), y.data_ptr<float>(), (float)scale, n);
    return y;
}}
''' + binding("multiply by a scalar")


BLOCK_REDUCE_SHARED = '''
// Tree reductions over a block of THREADS (a power of two) threads through shared memory.
__device__ float block_sum(float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    float r = buf[0];
    __syncthreads();
    return r;
}

__device__ float block_max(float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
        __syncthreads();
    }
    float r = buf[0];
    __syncthreads();
    return r;
}
'''

BLOCK_REDUCE_SHUFFLE = '''
// Reductions within a wavefront by lane shuffles, then across wavefronts through shared memory.
__device__ float wave_sum(float v) {
    for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor(v, o);
    return v;
}

__device__ float wave_max(float v) {
    for (int o = warpSize / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor(v, o));
    return v;
}

__device__ float block_sum(float v, float* buf) {
    const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
    const int waves = (blockDim.x + warpSize - 1) / warpSize;
    v = wave_sum(v);
    if (lane == 0) buf[wave] = v;
    __syncthreads();
    v = (threadIdx.x < waves) ? buf[threadIdx.x] : 0.0f;
    if (wave == 0) v = wave_sum(v);
    if (threadIdx.x == 0) buf[0] = v;
    __syncthreads();
    float r = buf[0];
    __syncthreads();
    return r;
}

__device__ float block_max(float v, float* buf) {
    const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
    const int waves = (blockDim.x + warpSize - 1) / warpSize;
    v = wave_max(v);
    if (lane == 0) buf[wave] = v;
    __syncthreads();
    v = (threadIdx.x < waves) ? buf[threadIdx.x] : -INFINITY;
    if (wave == 0) v = wave_max(v);
    if (threadIdx.x == 0) buf[0] = v;
    __syncthreads();
    float r = buf[0];
    __syncthreads();
    return r;
}
'''

ROW_HOST = '''
{check}
torch::Tensor forward(torch::Tensor x{extra_args}) {{
    check_input(x, "x");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    auto xc = x.contiguous();
    const int rows = (int)xc.size(0), cols = (int)xc.size(1);
    auto y = {alloc};
    if (rows == 0) return y;
    const int threads = 256;
    hipLaunchKernelGGL({kernel}, dim3(rows), dim3(threads), threads * sizeof(float), 0,
                       {launch_args});
    return y;
}}
'''


def softmax_kernel(shuffle: bool = False, bad_sum: bool = False) -> str:
    total = "partial" if bad_sum else "block_sum(partial, buf)"
    return HEADER + "#include <cmath>\n" + (BLOCK_REDUCE_SHUFFLE if shuffle else BLOCK_REDUCE_SHARED) + f'''
// One block per row: max, then sum of exp(x - max), then normalise.
__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {{
    extern __shared__ float buf[];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = block_max(m, buf);
    float partial = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) partial += expf(xr[c] - m);
    const float total = {total};
    const float inv = 1.0f / total;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}}
''' + ROW_HOST.format(check=CHECK_F32, extra_args="", alloc="torch::empty_like(xc)", kernel="softmax_rows",
                      launch_args="xc.data_ptr<float>(), y.data_ptr<float>(), cols") + binding("row softmax")


def sum_kernel(shuffle: bool = False, skip_first: bool = False) -> str:
    first = "threadIdx.x + (threadIdx.x == 0 ? 1 : 0)" if skip_first else "threadIdx.x"
    return HEADER + "#include <cmath>\n" + (BLOCK_REDUCE_SHUFFLE if shuffle else BLOCK_REDUCE_SHARED) + f'''
// One block per row; each thread sums a strided slice, then the block reduces.
__global__ void sum_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {{
    extern __shared__ float buf[];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float acc = 0.0f;
    for (int c = {first}; c < cols; c += blockDim.x) acc += xr[c];
    acc = block_sum(acc, buf);
    if (threadIdx.x == 0) y[blockIdx.x] = acc;
}}
''' + ROW_HOST.format(check=CHECK_F32, extra_args="", alloc="torch::empty({rows}, xc.options())",
                      kernel="sum_rows", launch_args="xc.data_ptr<float>(), y.data_ptr<float>(), cols") + binding(
        "sum over dim 1")


def layernorm_kernel(shuffle: bool = False) -> str:
    return HEADER + "#include <cmath>\n" + (BLOCK_REDUCE_SHUFFLE if shuffle else BLOCK_REDUCE_SHARED) + f'''
// One block per row: mean, then biased variance, then the affine normalisation.
__global__ void layernorm_rows(const float* __restrict__ x, const float* __restrict__ w,
                               const float* __restrict__ b, float* __restrict__ y, int cols, float eps) {{
    extern __shared__ float buf[];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
    const float mean = block_sum(s, buf) / cols;
    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {{
        const float d = xr[c] - mean;
        q += d * d;
    }}
    const float rstd = rsqrtf(block_sum(q, buf) / cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = (xr[c] - mean) * rstd * w[c] + b[c];
}}
''' + ROW_HOST.format(
        check=CHECK_F32,
        extra_args=", torch::Tensor weight, torch::Tensor bias, double eps",
        alloc="torch::empty_like(xc)", kernel="layernorm_rows",
        launch_args=("xc.data_ptr<float>(), weight.contiguous().data_ptr<float>(),\n"
                     "                       bias.contiguous().data_ptr<float>(), y.data_ptr<float>(), cols, (float)eps"),
    ).replace('TORCH_CHECK(x.dim() == 2, "x must be 2-D");',
              'TORCH_CHECK(x.dim() == 2, "x must be 2-D");\n    check_input(weight, "weight");\n'
              '    check_input(bias, "bias");\n'
              '    TORCH_CHECK(weight.numel() == x.size(1) && bias.numel() == x.size(1), "weight/bias size");'
              ) + binding("layer norm over the last dimension")


def matmul_kernel(transposed_b_bug: bool = False) -> str:
    b_index = "(int64_t)col * K + bk" if transposed_b_bug else "(int64_t)bk * N + col"
    return HEADER + f'''
#define TILE 16

// C = A @ B with TILE x TILE shared-memory tiles; out-of-range tile cells load zeros.
__global__ void matmul_tiled(const float* __restrict__ A, const float* __restrict__ B,
                             float* __restrict__ C, int M, int K, int N) {{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {{
        const int ak = t + threadIdx.x, bk = t + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[(int64_t)row * K + ak] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[{b_index}] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }}
    if (row < M && col < N) C[(int64_t)row * N + col] = acc;
}}

{CHECK_F32}
torch::Tensor forward(torch::Tensor A, torch::Tensor B) {{
    check_input(A, "A");
    check_input(B, "B");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2 && A.size(1) == B.size(0), "shapes must be (M,K) and (K,N)");
    auto Ac = A.contiguous();
    auto Bc = B.contiguous();
    const int M = (int)Ac.size(0), K = (int)Ac.size(1), N = (int)Bc.size(1);
    auto C = torch::empty({{M, N}}, Ac.options());
    if (M == 0 || N == 0) return C;
    dim3 threads(TILE, TILE);
    dim3 blocks((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    hipLaunchKernelGGL(matmul_tiled, blocks, threads, 0, 0,
                       Ac.data_ptr<float>(), Bc.data_ptr<float>(), C.data_ptr<float>(), M, K, N);
    return C;
}}
''' + binding("tiled matmul")


def matmul_naive() -> str:
    return HEADER + f'''
// C = A @ B, one thread per output element.
__global__ void matmul_naive(const float* __restrict__ A, const float* __restrict__ B,
                             float* __restrict__ C, int M, int K, int N) {{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(int64_t)row * K + k] * B[(int64_t)k * N + col];
    C[(int64_t)row * N + col] = acc;
}}

{CHECK_F32}
torch::Tensor forward(torch::Tensor A, torch::Tensor B) {{
    check_input(A, "A");
    check_input(B, "B");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2 && A.size(1) == B.size(0), "shapes must be (M,K) and (K,N)");
    auto Ac = A.contiguous();
    auto Bc = B.contiguous();
    const int M = (int)Ac.size(0), K = (int)Ac.size(1), N = (int)Bc.size(1);
    auto C = torch::empty({{M, N}}, Ac.options());
    if (M == 0 || N == 0) return C;
    dim3 threads(16, 16);
    dim3 blocks((N + 15) / 16, (M + 15) / 16);
    hipLaunchKernelGGL(matmul_naive, blocks, threads, 0, 0,
                       Ac.data_ptr<float>(), Bc.data_ptr<float>(), C.data_ptr<float>(), M, K, N);
    return C;
}}
''' + binding("naive matmul")


def bias_relu_kernel(two_d: bool = False) -> str:
    if two_d:
        kernel = '''// 2-D grid: blockIdx.y walks rows, so the channel index needs no division.
__global__ void bias_relu(const float* __restrict__ x, const float* __restrict__ bias,
                          float* __restrict__ y, int rows, int channels) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= channels) return;
    const float b = bias[c];
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const int64_t i = (int64_t)r * channels + c;
        y[i] = fmaxf(x[i] + b, 0.0f);
    }
}'''
        launch = '''    dim3 threads(128);
    dim3 blocks((channels + 127) / 128, std::min(rows, 1024));'''
    else:
        kernel = '''// Fused bias add + ReLU, one thread per element.
__global__ void bias_relu(const float* __restrict__ x, const float* __restrict__ bias,
                          float* __restrict__ y, int rows, int channels) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (int64_t)rows * channels) y[i] = fmaxf(x[i] + bias[i % channels], 0.0f);
}'''
        launch = '''    dim3 threads(256);
    dim3 blocks((unsigned)(((int64_t)rows * channels + 255) / 256));'''
    return HEADER + f'''
{kernel}

{CHECK_F32}
torch::Tensor forward(torch::Tensor x, torch::Tensor bias) {{
    check_input(x, "x");
    check_input(bias, "bias");
    TORCH_CHECK(x.dim() == 2 && bias.numel() == x.size(1), "x must be (batch, channels), bias (channels)");
    auto xc = x.contiguous();
    auto bc = bias.contiguous();
    auto y = torch::empty_like(xc);
    const int rows = (int)xc.size(0), channels = (int)xc.size(1);
    if (rows == 0 || channels == 0) return y;
{launch}
    hipLaunchKernelGGL(bias_relu, blocks, threads, 0, 0,
                       xc.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<float>(), rows, channels);
    return y;
}}
''' + binding("bias add + relu")


def gemm_kernel(relu: bool, tiled: bool) -> str:
    act = "fmaxf(acc, 0.0f)" if relu else "acc"
    if tiled:
        kernel = f'''#define TILE 16

// y = x @ W^T + b: tiles of x rows and W rows (W is (out, in)) staged in shared memory.
__global__ void linear_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y,
                              int batch, int in_f, int out_f) {{
    __shared__ float xs[TILE][TILE];
    __shared__ float ws[TILE][TILE + 1];
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    const int wrow = blockIdx.x * TILE + threadIdx.y;
    float acc = 0.0f;
    for (int t = 0; t < in_f; t += TILE) {{
        const int k = t + threadIdx.x;
        xs[threadIdx.y][threadIdx.x] = (row < batch && k < in_f) ? x[(int64_t)row * in_f + k] : 0.0f;
        ws[threadIdx.y][threadIdx.x] = (wrow < out_f && k < in_f) ? w[(int64_t)wrow * in_f + k] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < TILE; ++kk) acc += xs[threadIdx.y][kk] * ws[threadIdx.x][kk];
        __syncthreads();
    }}
    if (row < batch && col < out_f) {{
        acc += b[col];
        y[(int64_t)row * out_f + col] = {act};
    }}
}}'''
        launch = "dim3 threads(TILE, TILE);\n    dim3 blocks((out_f + TILE - 1) / TILE, (batch + TILE - 1) / TILE);"
    else:
        kernel = f'''// y = x @ W^T + b, one thread per output element (W is (out, in)).
__global__ void linear_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y,
                              int batch, int in_f, int out_f) {{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= batch || col >= out_f) return;
    float acc = b[col];
    for (int k = 0; k < in_f; ++k) acc += x[(int64_t)row * in_f + k] * w[(int64_t)col * in_f + k];
    y[(int64_t)row * out_f + col] = {act};
}}'''
        launch = "dim3 threads(16, 16);\n    dim3 blocks((out_f + 15) / 16, (batch + 15) / 16);"
    return HEADER + f'''
{kernel}

{CHECK_F32}
torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {{
    check_input(x, "x");
    check_input(weight, "weight");
    check_input(bias, "bias");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && x.size(1) == weight.size(1) &&
                bias.numel() == weight.size(0), "x (B,in), weight (out,in), bias (out)");
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    auto bc = bias.contiguous();
    const int batch = (int)xc.size(0), in_f = (int)xc.size(1), out_f = (int)wc.size(0);
    auto y = torch::empty({{batch, out_f}}, xc.options());
    if (batch == 0 || out_f == 0) return y;
    {launch}
    hipLaunchKernelGGL(linear_kernel, blocks, threads, 0, 0, xc.data_ptr<float>(), wc.data_ptr<float>(),
                       bc.data_ptr<float>(), y.data_ptr<float>(), batch, in_f, out_f);
    return y;
}}
''' + binding("linear" + (" + relu" if relu else ""))


def basic_and_opt(task: str) -> tuple[str, str]:
    """(straightforward kernel, optimised kernel) of a task; both correct."""
    if task in UNARY:
        op, expr = UNARY[task]
        return unary_basic(op, expr), unary_vec(op, expr)
    return {
        "3_Add": (add_kernel(), add_kernel(vec=True)),
        "4_Scale": (scale_kernel(), scale_kernel(grid_stride=True)),
        "5_Softmax": (softmax_kernel(), softmax_kernel(shuffle=True)),
        "6_Sum": (sum_kernel(), sum_kernel(shuffle=True)),
        "7_LayerNorm": (layernorm_kernel(), layernorm_kernel(shuffle=True)),
        "8_Matmul": (matmul_naive(), matmul_kernel()),
        "9_Add_Bias_ReLU": (bias_relu_kernel(), bias_relu_kernel(two_d=True)),
        "12_Gemm": (gemm_kernel(False, False), gemm_kernel(False, True)),
        "12_Gemm_ReLU": (gemm_kernel(True, False), gemm_kernel(True, True)),
    }[task]


# Deliberately wrong kernels: (task, tag, code, what is wrong)
def wrong_kernels() -> list[tuple[str, str, str]]:
    return [
        ("1_ReLU", "wrong_index", unary_basic("relu", "fmaxf(v, 0.0f)", index="i + 1")),   # reads x[i+1]
        ("2_GELU", "no_bound_check", unary_basic("gelu", UNARY["2_GELU"][1], guard=False)),  # writes past n
        ("5_Softmax", "partial_sum", softmax_kernel(bad_sum=True)),                          # per-thread sum
        ("8_Matmul", "transposed_b", matmul_kernel(transposed_b_bug=True)),                  # indexes B^T
        ("6_Sum", "skips_first", sum_kernel(skip_first=True)),                               # drops x[:,0]
    ]


def to_cuda(hip: str) -> str:
    """A CUDA spelling of a sample HIP kernel (the cudaagent source side)."""
    import re

    cuda = hip.replace("#include <hip/hip_runtime.h>", "#include <cuda_runtime.h>")
    cuda = cuda.replace("__shfl_xor(", "__shfl_xor_sync(0xffffffff, ")
    return re.sub(r"hipLaunchKernelGGL\((\w+),\s*([^,]+),\s*([^,]+),\s*([^,]+),\s*0,\s*",
                  r"\1<<<\2, \3, \4>>>(", cuda)


# ============================================================== writers
def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def reset(folder: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    write(folder / "LICENSE", LICENSE_TEXT)


def make_gpumode(root: Path) -> dict[str, str]:
    reset(root)
    expected: dict[str, str] = {}
    for task, (module, functional) in REFS.items():
        write(root / "pytorch_code_module" / f"{task}.py", module)
        write(root / "pytorch_code_functional" / f"{task}.py", functional)
        basic, opt = basic_and_opt(task)
        write(root / "hip_code" / f"{task}.hip", basic)
        write(root / "hip_opt" / f"{task}_1.hip", opt)
        expected[f"hip_code/{task}.hip"] = "correct"
        expected[f"hip_opt/{task}_1.hip"] = "correct"
    for task, tag, code in wrong_kernels():
        write(root / "hip_code" / f"{task}__{tag}.hip", code)
        expected[f"hip_code/{task}__{tag}.hip"] = "incorrect"
    # Malformed inputs, each a reject in the accounting:
    write(root / "pytorch_code_module" / "13_Negate.py", NO_GET_INPUTS_MODULE)      # no get_inputs
    write(root / "hip_code" / "13_Negate.hip", unary_basic("neg", "-v"))
    write(root / "pytorch_code_module" / "14_Unported.py", REFS["1_ReLU"][0])          # no variant at all
    write(root / "hip_code" / "1_ReLU_2.hip", "")                                      # empty kernel file
    write(root / "hip_code" / "99_Orphan.hip", unary_basic("relu", "fmaxf(v, 0.0f)"))  # no reference
    write(root / "sources.yaml", "- kind: hip_gpumode\n  path: .\n  options:\n"
          "    generator: kvdata-sample-templates\n    commit: sample\n")
    write(root / "expected.json", json.dumps(expected, indent=2, sort_keys=True) + "\n")
    return expected


HIP2HIP_TASKS = ["1_ReLU", "2_GELU", "3_Add", "4_Scale", "5_Softmax", "6_Sum", "7_LayerNorm", "8_Matmul",
                 "9_Add_Bias_ReLU", "10_Sigmoid", "11_Tanh", "12_Gemm_ReLU"]


def make_hip2hip(root: Path) -> dict[str, str]:
    reset(root)
    expected: dict[str, str] = {}
    results: list[str] = []

    def record(base, gen_idx, hip_file, ok=(True, True, True), times=(1.0, 0.5), error=""):
        ref_ms, kernel_ms = round(times[0], 4), round(times[1], 4)
        results.append(json.dumps({
            "hip_file": hip_file, "base_name": base, "gen_idx": gen_idx,
            "compile_ok": ok[0], "run_ok": ok[1], "match_ok": ok[2],
            "pytorch_time_ms": ref_ms if ok[1] else None, "hip_time_ms": kernel_ms if ok[1] else None,
            "speedup": round(ref_ms / kernel_ms, 4) if all(ok) else None, "error_message": error,
        }))

    for i, task in enumerate(HIP2HIP_TASKS):
        module, functional = REFS[task]
        write(root / "pytorch_code_module" / f"{task}.py", module)
        write(root / "pytorch_code_functional" / f"{task}.py", functional)
        basic, opt = basic_and_opt(task)
        write(root / "reference" / f"{task}.hip", basic)
        hip_file = f"generated/{task}/gen_0.hip"
        write(root / hip_file, opt)
        expected[hip_file] = "correct"
        record(task, 0, hip_file, times=(0.050 + 0.004 * i, 0.030 + 0.002 * i))
    # Failed generations, one of each kind (their files exist, as upstream keeps them):
    write(root / "generated/1_ReLU/gen_1.hip", basic_and_opt("1_ReLU")[1].replace("q.w = relu_op(q.w);", "q.w = relu_op(q.w)"))
    record("1_ReLU", 1, "generated/1_ReLU/gen_1.hip", ok=(False, False, False),
           error="gen_1.hip:20:27: error: expected ';' after expression")
    write(root / "generated/2_GELU/gen_1.hip", wrong_kernels()[1][2])
    record("2_GELU", 1, "generated/2_GELU/gen_1.hip", ok=(True, False, False),
           error="HIP error: an illegal memory access was encountered")
    write(root / "generated/5_Softmax/gen_1.hip", wrong_kernels()[2][2])
    record("5_Softmax", 1, "generated/5_Softmax/gen_1.hip", ok=(True, True, False),
           error="max abs diff 0.93 > atol 1e-4")
    write(root / "generated/3_Add/gen_1.hip", add_kernel())
    record("3_Add", 1, "generated/3_Add/gen_1.hip", times=(0.020, 0.025))
    # Malformed records:
    results.append('{"hip_file": "generated/6_Sum/gen_1.hip", "base_name": "6_Sum", "gen_idx": 1, ')  # cut off
    record("7_LayerNorm", 1, "generated/7_LayerNorm/gen_1.hip", times=(0.08, 0.05))  # file never written
    results.append(json.dumps({"hip_file": "generated/8_Matmul/gen_0.hip", "gen_idx": 2, "compile_ok": True,
                               "run_ok": True, "match_ok": True, "speedup": 1.3}))  # no base_name
    write(root / "eval_results.jsonl", "\n".join(results) + "\n")
    write(root / "sources.yaml", "- kind: hip2hip\n  path: .\n  options:\n"
          "    generator: kvdata-sample-templates\n    commit: sample\n")
    write(root / "expected.json", json.dumps(expected, indent=2, sort_keys=True) + "\n")
    write(root / "README.md", "Sample HIP2HIP evaluation output. The timings in eval_results.jsonl are\n"
          "illustrative placeholders written by scripts/make_hip_sample.py, not measurements.\n")
    return expected


CUDAAGENT_TASKS = ["1_ReLU", "10_Sigmoid", "11_Tanh", "3_Add", "4_Scale", "5_Softmax", "6_Sum", "7_LayerNorm"]


def make_cudaagent(root: Path) -> dict[str, str]:
    reset(root)
    expected: dict[str, str] = {}
    lines: list[str] = []
    for task in CUDAAGENT_TASKS:
        module, functional = REFS[task]
        hip = basic_and_opt(task)[0]
        verdict = "correct"
        if task == "11_Tanh":  # a translation that got the formula wrong
            hip = hip.replace("return tanhf(v);", "return 2.0f / (1.0f + expf(-v)) - 1.0f;")
            verdict = "incorrect"
        path = f"cuda_agent_ops/{task}.json"
        expected[path] = verdict
        lines.append(json.dumps({
            "task_name": task, "pytorch_code": module, "pytorch_functional_code": functional,
            "cuda_code": to_cuda(basic_and_opt(task)[0]), "hip_code": hip,
            "repo": "kvdata/sample-cuda-agent-ops", "path": path, "generator": "kvdata-sample-templates",
        }))
    relu_module, relu_functional = REFS["1_ReLU"]
    relu_hip = basic_and_opt("1_ReLU")[0]
    lines.append('{"task_name": "broken", "pytorch_code": ')                                    # bad JSON
    lines.append(json.dumps({"task_name": "13_Negate", "pytorch_code": NO_GET_INPUTS_MODULE,   # no get_inputs
                             "hip_code": unary_basic("neg", "-v"), "path": "cuda_agent_ops/13_Negate.json"}))
    lines.append(json.dumps({"task_name": "15_Empty", "pytorch_code": relu_module,            # empty hip_code
                             "hip_code": "  \n", "path": "cuda_agent_ops/15_Empty.json"}))
    expected["cuda_agent_ops/16_Copyleft.json"] = "correct"
    lines.append(json.dumps({"task_name": "16_Copyleft", "pytorch_code": relu_module,         # GPL: not allowed
                             "hip_code": relu_hip, "license": "GPL-3.0-only",
                             "repo": "kvdata/sample-cuda-agent-ops", "path": "cuda_agent_ops/16_Copyleft.json"}))
    lines.append(json.dumps({"task_name": "17_Unknown", "pytorch_code": relu_module,          # unknown license
                             "hip_code": relu_hip, "license": "Proprietary-EULA",
                             "path": "cuda_agent_ops/17_Unknown.json"}))
    write(root / "cudaagent.jsonl", "\n".join(lines) + "\n")
    write(root / "sources.yaml", "- kind: hip_cudaagent\n  path: .\n  options:\n    commit: sample\n")
    write(root / "expected.json", json.dumps(expected, indent=2, sort_keys=True) + "\n")
    return expected


# ============================================================== compile check
def hipcc_command(src: Path, obj: Path) -> list[str]:
    """hipcc flags that compile a torch extension against the CPU wheel's headers (see docs/notes)."""
    import torch

    torch_inc = Path(torch.__file__).parent / "include"
    return ["hipcc", "--offload-arch=gfx90a", "-std=c++17", "-fPIC", "-c",
            "-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP", f"-DTORCH_EXTENSION_NAME={src.stem.replace('-', '_')}",
            f"-I{torch_inc}", f"-I{torch_inc / 'torch/csrc/api/include'}",
            f"-I{sysconfig.get_paths()['include']}", str(src), "-o", str(obj)]


def batched_unit(files: list[Path]) -> str:
    """One translation unit that compiles every file once, each in its own namespace.

    The torch and HIP headers are included first at global scope; their include guards then
    make a file's own ``#include`` lines no-ops inside its namespace. Each file gets its own
    TORCH_EXTENSION_NAME, so the PyInit_ symbols differ. This compiles the headers once
    instead of once per file (30 s each on a 2-core box).
    """
    parts = ["#include <torch/extension.h>", "#include <hip/hip_runtime.h>", "#include <cmath>", "#include <cstdint>"]
    for i, src in enumerate(files):
        parts += [f"// ---- {src.relative_to(REPO)}", "#undef TORCH_EXTENSION_NAME", "#undef TILE",
                  f"#define TORCH_EXTENSION_NAME ext{i}", f"namespace sample_{i} {{", f'#include "{src}"', "}"]
    return "\n".join(parts) + "\n"


def compile_batched(files: list[Path]) -> int:
    """Compile all files in one unit; on failure, name the files the errors point at."""
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    with tempfile.TemporaryDirectory() as tmp:
        unit = Path(tmp) / "all_samples.hip"
        unit.write_text(batched_unit(files))
        cmd = hipcc_command(unit, Path(tmp) / "all.o")
        cmd = [c for c in cmd if not c.startswith("-DTORCH_EXTENSION_NAME=")]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    errors = [line for line in proc.stderr.splitlines() if "error" in line]
    bad = sorted({str(f.relative_to(REPO)) for f in files for line in errors if str(f) in line})
    for f in files:
        print(f"{'FAILED' if str(f.relative_to(REPO)) in bad else 'ok':6s} {f.relative_to(REPO)}")
    if proc.returncode:
        print("\n".join(errors)[:4000])
    return max(len(bad), 1 if proc.returncode else 0)


def compile_all(files: list[Path], jobs: int) -> int:
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        def one(i_src):
            i, src = i_src
            cmd = hipcc_command(src, Path(tmp) / f"{i}.o")
            cmd[cmd.index(f"-DTORCH_EXTENSION_NAME={src.stem.replace('-', '_')}")] = f"-DTORCH_EXTENSION_NAME=ext{i}"
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
            return src, proc.returncode, proc.stderr
        with ThreadPoolExecutor(jobs) as pool:
            for src, rc, err in pool.map(one, enumerate(files)):
                status = "ok" if rc == 0 else "FAILED"
                print(f"{status:6s} {src.relative_to(REPO)}", flush=True)
                if rc:
                    failures += 1
                    print("\n".join(line for line in err.splitlines() if "error" in line)[:2000])
    return failures


def cudaagent_hip_files(folder: Path) -> list[Path]:
    """The hip_code of every cudaagent record that has a non-empty one, as files to compile."""
    files = []
    for i, line in enumerate((SAMPLE / "hip_cudaagent" / "cudaagent.jsonl").read_text().splitlines()):
        try:
            code = json.loads(line).get("hip_code")
        except json.JSONDecodeError:
            continue
        if isinstance(code, str) and code.strip():
            files.append(folder / f"cudaagent_line{i + 1}.hip")
            files[-1].write_text(code)
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compile every HIP file meant to compile")
    parser.add_argument("--separate", action="store_true",
                        help="compile each file on its own (slow) instead of one batched unit")
    parser.add_argument("--jobs", type=int, default=2, help="parallel compiles with --separate")
    args = parser.parse_args()
    make_gpumode(SAMPLE / "hip_gpumode")
    make_hip2hip(SAMPLE / "hip2hip")
    make_cudaagent(SAMPLE / "hip_cudaagent")
    if not args.check:
        return 0
    files = [p for p in sorted((SAMPLE / "hip_gpumode").rglob("*.hip")) if p.name != "1_ReLU_2.hip"]  # empty
    files += [p for p in sorted((SAMPLE / "hip2hip").rglob("*.hip"))   # gen_1 of 1_ReLU: planted syntax error
              if not (p.name == "gen_1.hip" and p.parent.name == "1_ReLU")]
    with tempfile.TemporaryDirectory(dir=REPO / "builders" / "sample") as tmp:
        files += cudaagent_hip_files(Path(tmp))
        failures = compile_all(files, args.jobs) if args.separate else compile_batched(files)
    print(f"{len(files) - failures}/{len(files)} compiled")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
