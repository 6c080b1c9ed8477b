"""Structural v2, model discovery: the tracer traces every torch reference :mod:`kvdata.audit.discover` finds.

Real sandboxed traces of codes shaped like the training rows the v1 tracer missed: a Triton row whose torch
reference is a helper function next to a kernel-launching ``ModelNew``, a file with several unrelated modules,
a constructor whose arguments come from module-level constants (no ``get_init_inputs``). Each is compared with
the real KernelBench v0.1 problem it implements.
"""
from __future__ import annotations

import json

import pytest

from kvdata.audit import structural as S

TRITON_ROW = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y


def torch_reference(x):
    return torch.nn.functional.gelu(x)


def get_inputs():
    return [torch.randn(64, 256)]
'''
SEVERAL_MODULES = '''
import torch
import torch.nn as nn


class Projector(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)

    def forward(self, x):
        return torch.tanh(self.lin(x))


class Rectified(nn.Module):
    def __init__(self, cin=3, cout=8, k=3):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k)
        self.bias = nn.Parameter(torch.zeros(cout, 1, 1))

    def forward(self, x):
        return torch.relu(self.conv(x)) + self.bias


def get_inputs():
    return [torch.rand(2, 3, 16, 16)]
'''
CONSTANTS_ONLY = '''
import torch
import torch.nn as nn

in_channels = 4
out_channels = 12
kernel_size = 5
bias_shape = (out_channels, 1, 1)


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return torch.relu(self.conv(x)) + self.bias


def get_inputs():
    return [torch.rand(2, in_channels, 20, 20)]
'''


TRITON_HELPER_WITH_WEIGHTS = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def relu_div_kernel(h_ptr, out_ptr, n, divisor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    h = tl.load(h_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(h, 0.0) / divisor, mask=mask)


def reference(x, weight, bias, divisor):
    return torch.relu(F.linear(x, weight, bias)) / divisor


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, divisor):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.divisor = divisor

    def forward(self, x):
        h = self.fc(x).contiguous()
        out = torch.empty_like(h)
        relu_div_kernel[(triton.cdiv(h.numel(), 256),)](h, out, h.numel(), self.divisor, BLOCK=256)
        return out


def get_inputs():
    return [torch.rand(16, 48)]


def get_init_inputs():
    return [48, 24, 2.0]
'''


@pytest.fixture(scope="module")
def traced(shared_data):
    path = shared_data / "kernelbench" / "kernelbench_v0.1.jsonl"
    rows = {(r["level"], r["name"]): r["code"] for r in map(json.loads, path.read_text().splitlines())}
    codes = {"kb/gelu": rows[(1, "26_GELU_")], "kb/conv_relu_bias": rows[(2, "1_Conv2D_ReLU_BiasAdd")],
             "kb/gemm_relu_divide": rows[(2, "63_Gemm_ReLU_Divide")], "triton_weights": TRITON_HELPER_WITH_WEIGHTS,
             "triton_row": TRITON_ROW, "several": SEVERAL_MODULES, "constants": CONSTANTS_ONLY}
    failures: dict = {}
    fps = S.fingerprint_many(codes, timeout_s=120, failures=failures)
    missing = {k: failures[k].message for k, v in fps.items() if v is None}
    assert not missing, missing
    return fps


def test_triton_row_is_traced_through_its_torch_reference(traced):
    fp = traced["triton_row"]
    assert [(g.cls, g.kind) for g in fp.graphs] == [("torch_reference", "function")]   # not the kernel launcher
    assert S.structural_similarity(traced["kb/gelu"], fp) == 1.0


def test_every_module_of_a_file_is_traced_and_the_best_counts(traced):
    fp = traced["several"]
    assert sorted(g.cls for g in fp.graphs) == ["Projector", "Rectified"]
    assert S.structural_similarity(traced["kb/conv_relu_bias"], fp) == 1.0


def test_constructor_arguments_from_module_constants(traced):
    assert traced["constants"].canonical == traced["kb/conv_relu_bias"].canonical


def test_triton_helper_takes_the_weights_of_the_rows_module(traced):
    """``reference(x, weight, bias, divisor)``: get_inputs gives x; the rest is ModelNew's state, by name."""
    fp = traced["triton_weights"]
    assert [(g.cls, g.kind) for g in fp.graphs] == [("reference", "function")]
    assert fp.canonical == traced["kb/gemm_relu_divide"].canonical
