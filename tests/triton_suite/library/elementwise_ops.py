"""Pointwise kernels used across the model zoo.

Everything in here reads one or two flat (or row-strided) tensors and writes one
output of the same shape.  The launch helpers at the bottom of each section pick a
1-D grid of ``cdiv(numel, BLOCK)`` programs.
"""
import math

import torch
import triton
import triton.language as tl

_DEFAULT_BLOCK = 1024

# <<PLANT:top>>


# ----------------------------------------------------------------------------
# linear combinations
# ----------------------------------------------------------------------------

@triton.jit
def _axpby_kernel(a_ptr, b_ptr, dst_ptr, alpha, beta, numel, TILE: tl.constexpr):
    # dst = alpha * a + beta * b, computed in fp32 then cast back
    start = tl.program_id(axis=0) * TILE
    idx = start + tl.arange(0, TILE)
    inside = idx < numel
    lhs = tl.load(a_ptr + idx, mask=inside, other=0.0).to(tl.float32)
    rhs = tl.load(b_ptr + idx, mask=inside, other=0.0).to(tl.float32)
    res = alpha * lhs + beta * rhs
    tl.store(dst_ptr + idx, res.to(dst_ptr.dtype.element_ty), mask=inside)


def axpby(a: torch.Tensor, b: torch.Tensor, alpha: float = 1.0, beta: float = 1.0) -> torch.Tensor:
    assert a.shape == b.shape and a.is_contiguous() and b.is_contiguous()
    dst = torch.empty_like(a)
    numel = a.numel()
    grid = (triton.cdiv(numel, _DEFAULT_BLOCK),)
    _axpby_kernel[grid](a, b, dst, alpha, beta, numel, TILE=_DEFAULT_BLOCK)
    return dst


@triton.jit
def _residual_scale_add_kernel(
    hidden,
    residual,
    gate,
    out,
    n_rows,
    n_cols,
    stride_row,
    HAS_GATE: tl.constexpr,
    COLS_PER_PROG: tl.constexpr,
):
    """out[r, :] = residual[r, :] + gate[:] * hidden[r, :]  (gate optional)."""
    r = tl.program_id(0)
    cb = tl.program_id(1)
    cols = cb * COLS_PER_PROG + tl.arange(0, COLS_PER_PROG)
    keep = cols < n_cols
    base = r * stride_row
    h = tl.load(hidden + base + cols, mask=keep, other=0.0).to(tl.float32)
    res = tl.load(residual + base + cols, mask=keep, other=0.0).to(tl.float32)
    if HAS_GATE:
        g = tl.load(gate + cols, mask=keep, other=0.0).to(tl.float32)
        h = h * g
    tl.store(out + base + cols, (res + h).to(out.dtype.element_ty), mask=keep)


def residual_scale_add(hidden, residual, gate=None):
    n_rows, n_cols = hidden.shape
    out = torch.empty_like(hidden)
    cpp = min(1024, triton.next_power_of_2(n_cols))
    grid = (n_rows, triton.cdiv(n_cols, cpp))
    _residual_scale_add_kernel[grid](
        hidden, residual, gate if gate is not None else hidden, out,
        n_rows, n_cols, hidden.stride(0),
        HAS_GATE=gate is not None, COLS_PER_PROG=cpp,
    )
    return out


# ----------------------------------------------------------------------------
# activations
# ----------------------------------------------------------------------------

@triton.jit
def _gelu_erf(v):
    return 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))


@triton.jit
def _bias_gelu_kernel(x_ptr, bias_ptr, y_ptr, n_cols, total, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    col = offs % n_cols
    v = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    v += tl.load(bias_ptr + col, mask=m, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, _gelu_erf(v), mask=m)


def bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Fused ``gelu(x + bias)`` with the exact (erf) form."""
    y = torch.empty_like(x)
    total = x.numel()
    _bias_gelu_kernel[(triton.cdiv(total, 2048),)](x, bias, y, x.shape[-1], total, BLOCK=2048)
    return y


@triton.jit
def _gated_silu_rows_kernel(
    gate_ptr, up_ptr, out_ptr,
    gate_row_stride, up_row_stride, out_row_stride,
    width,
    CHUNK: tl.constexpr,
):
    # one program per (row, chunk of columns):  out = silu(gate) * up
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    c = chunk * CHUNK + tl.arange(0, CHUNK)
    ok = c < width
    g = tl.load(gate_ptr + row * gate_row_stride + c, mask=ok, other=0.0).to(tl.float32)
    u = tl.load(up_ptr + row * up_row_stride + c, mask=ok, other=0.0).to(tl.float32)
    swish = g / (1.0 + tl.exp(-g))
    tl.store(out_ptr + row * out_row_stride + c, swish * u, mask=ok)


def gated_silu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    """SwiGLU forward on 2-D inputs: ``silu(gate) * up``."""
    rows, width = gate.shape
    out = torch.empty_like(gate)
    chunk = min(triton.next_power_of_2(width), 4096)
    grid = (rows, triton.cdiv(width, chunk))
    _gated_silu_rows_kernel[grid](
        gate, up, out, gate.stride(0), up.stride(0), out.stride(0), width, CHUNK=chunk
    )
    return out


@triton.jit
def _tanh_approx(z):
    # tanh written through exp so it also works on old triton builds
    e2 = tl.exp(2.0 * z)
    return (e2 - 1.0) / (e2 + 1.0)


@triton.jit
def _geglu_tanh_fwd(lhs_ptr, rhs_ptr, res_ptr, row_stride, ncols, BLOCK_COLS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_COLS)
    ok = cols < ncols
    p = tl.load(lhs_ptr + row * row_stride + cols, mask=ok, other=0.0).to(tl.float32)
    q = tl.load(rhs_ptr + row * row_stride + cols, mask=ok, other=0.0)
    k0 = 0.7978845608028654  # sqrt(2/pi)
    inner = k0 * (p + 0.044715 * p * p * p)
    act = 0.5 * p * (1.0 + _tanh_approx(inner))
    tl.store(res_ptr + row * row_stride + cols, act.to(q.dtype) * q, mask=ok)


@triton.jit
def _geglu_tanh_bwd(grad_ptr, lhs_ptr, rhs_ptr, row_stride, ncols, BLOCK_COLS: tl.constexpr):
    # in-place: lhs <- d/dlhs, rhs <- d/drhs
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_COLS)
    ok = cols < ncols
    go = tl.load(grad_ptr + row * row_stride + cols, mask=ok, other=0.0).to(tl.float32)
    p = tl.load(lhs_ptr + row * row_stride + cols, mask=ok, other=0.0).to(tl.float32)
    q = tl.load(rhs_ptr + row * row_stride + cols, mask=ok, other=0.0).to(tl.float32)
    k0 = 0.7978845608028654
    inner = k0 * (p + 0.044715 * p * p * p)
    th = _tanh_approx(inner)
    act = 0.5 * p * (1.0 + th)
    d_rhs = go * act
    d_inner = k0 * (1.0 + 3.0 * 0.044715 * p * p)
    d_act = 0.5 * (1.0 + th) + 0.5 * p * (1.0 - th * th) * d_inner
    d_lhs = go * q * d_act
    tl.store(lhs_ptr + row * row_stride + cols, d_lhs, mask=ok)
    tl.store(rhs_ptr + row * row_stride + cols, d_rhs, mask=ok)


class GegluTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, lhs, rhs):
        shape = lhs.shape
        lhs2 = lhs.reshape(-1, shape[-1]).contiguous()
        rhs2 = rhs.reshape(-1, shape[-1]).contiguous()
        res = torch.empty_like(lhs2)
        bc = triton.next_power_of_2(shape[-1])
        _geglu_tanh_fwd[(lhs2.shape[0],)](lhs2, rhs2, res, lhs2.stride(0), shape[-1], BLOCK_COLS=bc)
        ctx.save_for_backward(lhs2, rhs2)
        ctx.shape = shape
        return res.view(shape)

    @staticmethod
    def backward(ctx, grad):
        lhs2, rhs2 = ctx.saved_tensors
        g2 = grad.reshape(-1, ctx.shape[-1]).contiguous()
        bc = triton.next_power_of_2(ctx.shape[-1])
        _geglu_tanh_bwd[(g2.shape[0],)](g2, lhs2, rhs2, g2.stride(0), ctx.shape[-1], BLOCK_COLS=bc)
        return lhs2.view(ctx.shape), rhs2.view(ctx.shape)


@triton.jit
def _leaky_relu_kernel(src, dst, slope, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    v = tl.load(src + o, mask=m)
    tl.store(dst + o, tl.where(v >= 0, v, v * slope), mask=m)


@triton.jit
def _hardswish_kernel(src, dst, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    v = tl.load(src + o, mask=m).to(tl.float32)
    r6 = tl.minimum(tl.maximum(v + 3.0, 0.0), 6.0)
    tl.store(dst + o, v * r6 / 6.0, mask=m)


@triton.jit
def _softplus_kernel(src, dst, n, beta, threshold, BLOCK: tl.constexpr):
    """Numerically safe softplus: x when beta*x > threshold, else log1p(exp(beta*x))/beta."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    v = tl.load(src + o, mask=m).to(tl.float32)
    bx = v * beta
    soft = tl.log(1.0 + tl.exp(bx)) / beta
    tl.store(dst + o, tl.where(bx > threshold, v, soft), mask=m)


@triton.jit
def _mish_kernel(src, dst, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    v = tl.load(src + o, mask=m).to(tl.float32)
    sp = tl.log(1.0 + tl.exp(v))
    e = tl.exp(2.0 * sp)
    tl.store(dst + o, v * (e - 1.0) / (e + 1.0), mask=m)


_UNARY = {
    "hardswish": _hardswish_kernel,
    "mish": _mish_kernel,
}


def unary(name: str, x: torch.Tensor, block: int = _DEFAULT_BLOCK) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    _UNARY[name][(triton.cdiv(n, block),)](x, y, n, BLOCK=block)
    return y


def leaky_relu(x, slope=0.01):
    y = torch.empty_like(x)
    n = x.numel()
    _leaky_relu_kernel[(triton.cdiv(n, 1024),)](x, y, slope, n, BLOCK=1024)
    return y


def softplus(x, beta=1.0, threshold=20.0):
    y = torch.empty_like(x)
    n = x.numel()
    _softplus_kernel[(triton.cdiv(n, 512),)](x, y, n, beta, threshold, BLOCK=512, num_warps=4)
    return y

# <<PLANT:middle>>


# ----------------------------------------------------------------------------
# selection / clamping
# ----------------------------------------------------------------------------

@triton.jit
def _clamp_kernel(src, dst, lo, hi, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    v = tl.load(src + o, mask=m)
    v = tl.minimum(tl.maximum(v, lo), hi)
    tl.store(dst + o, v, mask=m)


@triton.jit
def _select_kernel(cond_ptr, a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    c = tl.load(cond_ptr + o, mask=m, other=0).to(tl.int1)
    a = tl.load(a_ptr + o, mask=m & c)
    b = tl.load(b_ptr + o, mask=m & (c == 0))
    tl.store(out_ptr + o, tl.where(c, a, b), mask=m)


@triton.jit
def _nan_to_num_kernel(src, dst, nan_val, posinf, neginf, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    v = tl.load(src + o, mask=m).to(tl.float32)
    v = tl.where(v != v, nan_val, v)
    v = tl.where(v == float("inf"), posinf, v)
    v = tl.where(v == float("-inf"), neginf, v)
    tl.store(dst + o, v, mask=m)


def clamp(x, lo, hi):
    y = torch.empty_like(x)
    n = x.numel()
    _clamp_kernel[(triton.cdiv(n, 1024),)](x, y, lo, hi, n, BLOCK=1024)
    return y


def select(cond, a, b):
    out = torch.empty_like(a)
    n = a.numel()
    _select_kernel[(triton.cdiv(n, 1024),)](cond, a, b, out, n, BLOCK=1024)
    return out


def nan_to_num(x, nan=0.0, posinf=1e4, neginf=-1e4):
    y = torch.empty_like(x, dtype=torch.float32)
    n = x.numel()
    _nan_to_num_kernel[(triton.cdiv(n, 1024),)](x, y, nan, posinf, neginf, n, BLOCK=1024)
    return y


@triton.jit
def _lerp_kernel(start, end, weight, out, n, SCALAR_W: tl.constexpr, w_scalar, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    s = tl.load(start + o, mask=m).to(tl.float32)
    e = tl.load(end + o, mask=m).to(tl.float32)
    if SCALAR_W:
        w = w_scalar
    else:
        w = tl.load(weight + o, mask=m).to(tl.float32)
    tl.store(out + o, s + w * (e - s), mask=m)


def lerp(start, end, weight):
    out = torch.empty_like(start)
    n = start.numel()
    scalar = not torch.is_tensor(weight)
    _lerp_kernel[(triton.cdiv(n, 1024),)](
        start, end, start if scalar else weight, out, n, scalar, float(weight) if scalar else 0.0, BLOCK=1024
    )
    return out


def _self_test():
    x = torch.randn(4096, device="cuda")
    torch.testing.assert_close(leaky_relu(x), torch.nn.functional.leaky_relu(x))
    torch.testing.assert_close(clamp(x, -0.5, 0.5), x.clamp(-0.5, 0.5))
    g, u = torch.randn(2, 64, 256, device="cuda").unbind(0)
    torch.testing.assert_close(gated_silu(g, u), torch.nn.functional.silu(g) * u, atol=1e-4, rtol=1e-4)
    print("elementwise ok", math.pi)

# <<PLANT:bottom>>
