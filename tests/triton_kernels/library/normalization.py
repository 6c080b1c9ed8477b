"""Normalisation layers: LayerNorm, RMSNorm, GroupNorm, BatchNorm (inference) with fused residual variants.

A fixture of tests/test_triton_kernels.py (written for kvdata's tests; parsed, never run).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_forward(X, Y, W, B, Mean, Rstd, row_stride, n_features, eps, BLOCK_N: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    valid = offs < n_features
    x = tl.load(X + r * row_stride + offs, mask=valid, other=0.0).to(tl.float32)
    mu = tl.sum(x, axis=0) / n_features
    centred = tl.where(valid, x - mu, 0.0)
    var = tl.sum(centred * centred, axis=0) / n_features
    inv = tl.math.rsqrt(var + eps)
    w = tl.load(W + offs, mask=valid, other=1.0)
    b = tl.load(B + offs, mask=valid, other=0.0)
    tl.store(Y + r * row_stride + offs, (centred * inv * w + b).to(Y.dtype.element_ty), mask=valid)
    tl.store(Mean + r, mu)
    tl.store(Rstd + r, inv)


@triton.jit
def layer_norm_backward_dx(DY, X, W, Mean, Rstd, DX, DW_partial, DB_partial, Locks, row_stride, n_features,
                           GROUPS: tl.constexpr, BLOCK_N: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    valid = offs < n_features
    x = tl.load(X + r * row_stride + offs, mask=valid, other=0.0).to(tl.float32)
    dy = tl.load(DY + r * row_stride + offs, mask=valid, other=0.0).to(tl.float32)
    w = tl.load(W + offs, mask=valid).to(tl.float32)
    mu = tl.load(Mean + r)
    inv = tl.load(Rstd + r)
    xhat = tl.where(valid, (x - mu) * inv, 0.0)
    wdy = tl.where(valid, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / n_features
    c2 = tl.sum(wdy, axis=0) / n_features
    dx = (wdy - (xhat * c1 + c2)) * inv
    tl.store(DX + r * row_stride + offs, dx, mask=valid)
    group = r % GROUPS
    lock = Locks + group
    counter = Locks + GROUPS + group
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    seen = tl.load(counter)
    part_w = dy * xhat
    part_b = dy
    if seen == 0:
        tl.atomic_xchg(counter, 1)
    else:
        part_w += tl.load(DW_partial + group * n_features + offs, mask=valid)
        part_b += tl.load(DB_partial + group * n_features + offs, mask=valid)
    tl.store(DW_partial + group * n_features + offs, part_w, mask=valid)
    tl.store(DB_partial + group * n_features + offs, part_b, mask=valid)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def layer_norm_backward_dwdb(DW_partial, DB_partial, DW, DB, groups, n_features, ROWS: tl.constexpr,
                             COLS: tl.constexpr):
    c = tl.program_id(0) * COLS + tl.arange(0, COLS)
    acc_w = tl.zeros([ROWS, COLS], dtype=tl.float32)
    acc_b = tl.zeros([ROWS, COLS], dtype=tl.float32)
    for g0 in range(0, groups, ROWS):
        g = g0 + tl.arange(0, ROWS)
        m = (g[:, None] < groups) & (c[None, :] < n_features)
        idx = g[:, None] * n_features + c[None, :]
        acc_w += tl.load(DW_partial + idx, mask=m, other=0.0)
        acc_b += tl.load(DB_partial + idx, mask=m, other=0.0)
    tl.store(DW + c, tl.sum(acc_w, axis=0), mask=c < n_features)
    tl.store(DB + c, tl.sum(acc_b, axis=0), mask=c < n_features)


@triton.jit
def rms_norm_forward(X, Y, W, Rstd, row_stride, n_features, eps, offset, BLOCK_N: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    valid = offs < n_features
    x = tl.load(X + r * row_stride + offs, mask=valid, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / n_features
    inv = 1.0 / tl.sqrt(ms + eps)
    w = tl.load(W + offs, mask=valid, other=0.0).to(tl.float32)
    tl.store(Y + r * row_stride + offs, (x * inv * (w + offset)).to(Y.dtype.element_ty), mask=valid)
    tl.store(Rstd + r, inv)


@triton.jit
def rms_norm_backward(DY, X, W, Rstd, DX, DW_rows, row_stride, n_features, offset, BLOCK_N: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    valid = offs < n_features
    x = tl.load(X + r * row_stride + offs, mask=valid, other=0.0).to(tl.float32)
    dy = tl.load(DY + r * row_stride + offs, mask=valid, other=0.0).to(tl.float32)
    w = tl.load(W + offs, mask=valid, other=0.0).to(tl.float32) + offset
    inv = tl.load(Rstd + r)
    xhat = x * inv
    proj = tl.sum(dy * w * xhat, axis=0) / n_features
    dx = inv * (dy * w - xhat * proj)
    tl.store(DX + r * row_stride + offs, dx.to(DX.dtype.element_ty), mask=valid)
    tl.store(DW_rows + r * n_features + offs, dy * xhat, mask=valid)


@triton.jit
def fused_add_rms_norm(X, Residual, W, Y, row_stride, n_features, eps, BLOCK_N: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    valid = offs < n_features
    x = tl.load(X + r * row_stride + offs, mask=valid, other=0.0).to(tl.float32)
    x += tl.load(Residual + r * row_stride + offs, mask=valid, other=0.0).to(tl.float32)
    tl.store(Residual + r * row_stride + offs, x.to(Residual.dtype.element_ty), mask=valid)
    inv = tl.math.rsqrt(tl.sum(x * x, axis=0) / n_features + eps)
    w = tl.load(W + offs, mask=valid, other=0.0)
    tl.store(Y + r * row_stride + offs, (x * inv * w).to(Y.dtype.element_ty), mask=valid)


@triton.jit
def group_norm_stats(X, Mean, Rstd, group_size, n_groups, eps, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    sample = tl.program_id(1)
    base = X + (sample * n_groups + g) * group_size
    s1 = tl.zeros([BLOCK], dtype=tl.float32)
    s2 = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, group_size, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        v = tl.load(base + idx, mask=idx < group_size, other=0.0).to(tl.float32)
        s1 += v
        s2 += v * v
    mean = tl.sum(s1, axis=0) / group_size
    var = tl.sum(s2, axis=0) / group_size - mean * mean
    tl.store(Mean + sample * n_groups + g, mean)
    tl.store(Rstd + sample * n_groups + g, tl.math.rsqrt(var + eps))


@triton.jit
def group_norm_apply(X, Y, W, B, Mean, Rstd, hw, channels, n_groups, BLOCK: tl.constexpr):
    c = tl.program_id(0)
    sample = tl.program_id(1)
    g = c // (channels // n_groups)
    mean = tl.load(Mean + sample * n_groups + g)
    rstd = tl.load(Rstd + sample * n_groups + g)
    w = tl.load(W + c)
    b = tl.load(B + c)
    base = (sample * channels + c) * hw
    for off in range(0, hw, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        v = tl.load(X + base + idx, mask=idx < hw, other=0.0).to(tl.float32)
        tl.store(Y + base + idx, ((v - mean) * rstd * w + b).to(Y.dtype.element_ty), mask=idx < hw)


@triton.jit
def batch_norm_infer(X, Y, RunMean, RunVar, W, B, hw, channels, eps, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    c = pid % channels
    base = pid * hw
    scale = tl.load(W + c) / tl.sqrt(tl.load(RunVar + c) + eps)
    shift = tl.load(B + c) - tl.load(RunMean + c) * scale
    for off in range(0, hw, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        v = tl.load(X + base + idx, mask=idx < hw, other=0.0)
        tl.store(Y + base + idx, v * scale + shift, mask=idx < hw)


@triton.heuristics({"EVEN_N": lambda args: args["n_features"] % args["BLOCK_N"] == 0})
@triton.jit
def layer_norm_no_affine(X, Y, row_stride, n_features, eps, BLOCK_N: tl.constexpr, EVEN_N: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    if EVEN_N:
        x = tl.load(X + r * row_stride + offs).to(tl.float32)
    else:
        x = tl.load(X + r * row_stride + offs, mask=offs < n_features, other=0.0).to(tl.float32)
    mu = tl.sum(x, axis=0) / n_features
    d = tl.where(offs < n_features, x - mu, 0.0)
    inv = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n_features + eps)
    tl.store(Y + r * row_stride + offs, d * inv, mask=offs < n_features)


class LayerNormFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        shape = x.shape
        x2 = x.reshape(-1, shape[-1])
        rows, n = x2.shape
        y = torch.empty_like(x2)
        mean = torch.empty(rows, device=x.device, dtype=torch.float32)
        rstd = torch.empty(rows, device=x.device, dtype=torch.float32)
        block = triton.next_power_of_2(n)
        layer_norm_forward[(rows,)](x2, y, weight, bias, mean, rstd, x2.stride(0), n, eps, BLOCK_N=block)
        ctx.save_for_backward(x2, weight, mean, rstd)
        ctx.block = block
        return y.reshape(shape)

    @staticmethod
    def backward(ctx, dy):
        x2, weight, mean, rstd = ctx.saved_tensors
        rows, n = x2.shape
        groups = 64 if n <= 8192 else 32
        locks = torch.zeros(2 * groups, dtype=torch.int32, device=x2.device)
        dwp = torch.zeros((groups, n), dtype=torch.float32, device=x2.device)
        dbp = torch.zeros_like(dwp)
        dx = torch.empty_like(x2)
        layer_norm_backward_dx[(rows,)](dy.reshape(rows, n), x2, weight, mean, rstd, dx, dwp, dbp, locks,
                                        x2.stride(0), n, GROUPS=groups, BLOCK_N=ctx.block)
        dw = torch.empty(n, dtype=weight.dtype, device=x2.device)
        db = torch.empty_like(dw)
        layer_norm_backward_dwdb[(triton.cdiv(n, 128),)](dwp, dbp, dw, db, groups, n, ROWS=32, COLS=128)
        return dx.reshape(dy.shape), dw, db, None


def rms_norm(x, weight, eps=1e-6, offset=0.0):
    x2 = x.reshape(-1, x.shape[-1])
    y = torch.empty_like(x2)
    rstd = torch.empty(x2.shape[0], device=x.device, dtype=torch.float32)
    rms_norm_forward[(x2.shape[0],)](x2, y, weight, rstd, x2.stride(0), x2.shape[1], eps, offset,
                                     BLOCK_N=triton.next_power_of_2(x2.shape[1]))
    return y.reshape(x.shape)
