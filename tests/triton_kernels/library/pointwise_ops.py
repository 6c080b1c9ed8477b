"""Pointwise activations and their gradients, one program per BLOCK of a flattened tensor.

A fixture of tests/test_triton_kernels.py: a multi-kernel library file in the style of the Triton packages on
PyPI (written for kvdata's tests). It is parsed, never run.
"""
import math

import torch
import triton
import triton.language as tl

SQRT_2_OVER_PI = 0.7978845608028654
INV_SQRT_2 = 0.7071067811865476


@triton.jit
def _relu_fwd(src, dst, numel, TILE: tl.constexpr):
    start = tl.program_id(axis=0) * TILE
    idx = start + tl.arange(0, TILE)
    inside = idx < numel
    v = tl.load(src + idx, mask=inside, other=0.0)
    tl.store(dst + idx, tl.maximum(v, 0.0), mask=inside)


@triton.jit
def _relu_bwd(grad_out, saved_in, grad_in, numel, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    g = tl.load(grad_out + idx, mask=inside, other=0.0)
    v = tl.load(saved_in + idx, mask=inside, other=0.0)
    tl.store(grad_in + idx, tl.where(v > 0, g, 0.0), mask=inside)


@triton.jit
def _gelu_erf_fwd(src, dst, numel, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    v = tl.load(src + idx, mask=inside, other=0.0).to(tl.float32)
    cdf = 0.5 * (1.0 + tl.math.erf(v * INV_SQRT_2))
    tl.store(dst + idx, (v * cdf).to(dst.dtype.element_ty), mask=inside)


@triton.jit
def _gelu_tanh_fwd(src, dst, numel, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    v = tl.load(src + idx, mask=inside, other=0.0).to(tl.float32)
    inner = SQRT_2_OVER_PI * (v + 0.044715 * v * v * v)
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    tl.store(dst + idx, (0.5 * v * (1.0 + t)).to(dst.dtype.element_ty), mask=inside)


@triton.jit
def _gelu_tanh_bwd(grad_out, saved_in, grad_in, numel, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    g = tl.load(grad_out + idx, mask=inside, other=0.0).to(tl.float32)
    v = tl.load(saved_in + idx, mask=inside, other=0.0).to(tl.float32)
    inner = SQRT_2_OVER_PI * (v + 0.044715 * v * v * v)
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    d_inner = SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * v * v)
    dv = 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * d_inner
    tl.store(grad_in + idx, (g * dv).to(grad_in.dtype.element_ty), mask=inside)


@triton.jit
def _swish(v):
    return v * tl.sigmoid(v)


@triton.jit
def _silu_and_mul(gate_up, out, rows, half, stride_in, stride_out, TILE: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.program_id(1) * TILE + tl.arange(0, TILE)
    keep = cols < half
    gate = tl.load(gate_up + r * stride_in + cols, mask=keep, other=0.0).to(tl.float32)
    up = tl.load(gate_up + r * stride_in + half + cols, mask=keep, other=0.0).to(tl.float32)
    res = _swish(gate) * up
    tl.store(out + r * stride_out + cols, res.to(out.dtype.element_ty), mask=keep)


@triton.jit
def _leaky_relu_fwd(src, dst, numel, slope, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    v = tl.load(src + idx, mask=inside)
    tl.store(dst + idx, tl.where(v >= 0, v, v * slope), mask=inside)


@triton.jit
def _elu_fwd(src, dst, numel, alpha, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    v = tl.load(src + idx, mask=inside, other=0.0).to(tl.float32)
    neg = alpha * (tl.exp(v) - 1.0)
    tl.store(dst + idx, tl.where(v > 0, v, neg).to(dst.dtype.element_ty), mask=inside)


@triton.jit
def _softplus_fwd(src, dst, numel, beta, threshold, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    v = tl.load(src + idx, mask=inside, other=0.0).to(tl.float32)
    scaled = v * beta
    soft = tl.log(1.0 + tl.exp(scaled)) / beta
    tl.store(dst + idx, tl.where(scaled > threshold, v, soft).to(dst.dtype.element_ty), mask=inside)


@triton.jit
def _hardswish_fwd(src, dst, numel, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    v = tl.load(src + idx, mask=inside, other=0.0)
    gate = tl.minimum(tl.maximum(v + 3.0, 0.0), 6.0) / 6.0
    tl.store(dst + idx, v * gate, mask=inside)


@triton.jit
def _clamp_fwd(src, dst, numel, lo, hi, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    v = tl.load(src + idx, mask=inside)
    tl.store(dst + idx, tl.minimum(tl.maximum(v, lo), hi), mask=inside)


@triton.autotune(
    configs=[triton.Config({"TILE": t}, num_warps=w) for t in (256, 1024, 4096) for w in (2, 4)],
    key=["numel"],
)
@triton.jit
def _axpby(x_ptr, y_ptr, out_ptr, alpha, beta, numel, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    xv = tl.load(x_ptr + idx, mask=inside)
    yv = tl.load(y_ptr + idx, mask=inside)
    tl.store(out_ptr + idx, alpha * xv + beta * yv, mask=inside)


@triton.jit
def _bias_act(src, bias, dst, rows, cols, stride_row, ACT: tl.constexpr, TILE: tl.constexpr):
    r = tl.program_id(0)
    c = tl.program_id(1) * TILE + tl.arange(0, TILE)
    keep = c < cols
    v = tl.load(src + r * stride_row + c, mask=keep, other=0.0).to(tl.float32)
    v += tl.load(bias + c, mask=keep, other=0.0).to(tl.float32)
    if ACT == "relu":
        v = tl.maximum(v, 0.0)
    elif ACT == "silu":
        v = v * tl.sigmoid(v)
    elif ACT == "tanh":
        v = 2.0 * tl.sigmoid(2.0 * v) - 1.0
    tl.store(dst + r * stride_row + c, v.to(dst.dtype.element_ty), mask=keep)


@triton.jit
def _masked_dropout(src, dst, keep_mask_out, numel, p_drop, seed, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    v = tl.load(src + idx, mask=inside, other=0.0)
    rnd = tl.rand(seed, idx)
    kept = rnd > p_drop
    tl.store(keep_mask_out + idx, kept.to(tl.int8), mask=inside)
    tl.store(dst + idx, tl.where(kept, v / (1.0 - p_drop), 0.0), mask=inside)


@triton.jit
def _cast_scale(src, dst, scale_ptr, numel, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    inside = idx < numel
    s = tl.load(scale_ptr)
    v = tl.load(src + idx, mask=inside, other=0.0).to(tl.float32) * s
    tl.store(dst + idx, v.to(dst.dtype.element_ty), mask=inside)


def _launch_1d(kernel, x, out, *extra, tile=1024):
    n = x.numel()
    kernel[(triton.cdiv(n, tile),)](x, out, n, *extra, TILE=tile)
    return out


def relu(x: torch.Tensor) -> torch.Tensor:
    return _launch_1d(_relu_fwd, x, torch.empty_like(x))


def gelu(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    kernel = _gelu_tanh_fwd if approximate == "tanh" else _gelu_erf_fwd
    return _launch_1d(kernel, x, torch.empty_like(x))


def leaky_relu(x: torch.Tensor, slope: float = 0.01) -> torch.Tensor:
    return _launch_1d(_leaky_relu_fwd, x, torch.empty_like(x), slope)


def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    rows, width = x.shape
    half = width // 2
    out = torch.empty((rows, half), device=x.device, dtype=x.dtype)
    tile = min(1024, triton.next_power_of_2(half))
    _silu_and_mul[(rows, triton.cdiv(half, tile))](x, out, rows, half, x.stride(0), out.stride(0), TILE=tile)
    return out


def axpby(x: torch.Tensor, y: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _axpby[lambda meta: (triton.cdiv(n, meta["TILE"]),)](x, y, out, alpha, beta, n)
    return out


def bias_act(x: torch.Tensor, bias: torch.Tensor, act: str = "relu") -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    tile = min(2048, triton.next_power_of_2(cols))
    _bias_act[(rows, triton.cdiv(cols, tile))](x, bias, out, rows, cols, x.stride(0), ACT=act, TILE=tile)
    return out


def dropout(x: torch.Tensor, p: float, seed: int = 0):
    out = torch.empty_like(x)
    keep = torch.empty(x.shape, dtype=torch.int8, device=x.device)
    n = x.numel()
    _masked_dropout[(triton.cdiv(n, 1024),)](x, out, keep, n, p, seed, TILE=1024)
    return out, keep


def softplus(x: torch.Tensor, beta: float = 1.0, threshold: float = 20.0) -> torch.Tensor:
    return _launch_1d(_softplus_fwd, x, torch.empty_like(x), beta, threshold)


def elu(x: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    return _launch_1d(_elu_fwd, x, torch.empty_like(x), alpha)


def _check(x):
    assert x.is_contiguous(), "pointwise kernels expect contiguous input"
    return math.prod(x.shape)
