"""Normalisation layers (LayerNorm, RMSNorm, GroupNorm, L2) as Triton kernels.

Each ``*_fwd`` kernel handles one row per program.  Row statistics are written to
side buffers so the backward pass does not have to recompute them.
"""
from typing import Optional, Tuple

import torch
import triton
import triton.language as tl


def _row_block(n: int) -> int:
    b = triton.next_power_of_2(n)
    if b > 65536:
        raise RuntimeError(f"row of {n} features does not fit in one program")
    return b


def _warps_for(block: int) -> int:
    return min(max(block // 256, 1), 16)


# ---------------------------------------------------------------- LayerNorm ---

@triton.jit
def _ln_fwd_rows(
    inp, out, gamma, beta, mu_buf, rs_buf,
    row_stride, feat, epsilon,
    HAS_BIAS: tl.constexpr,
    BLOCK_F: tl.constexpr,
):
    rid = tl.program_id(0)
    f = tl.arange(0, BLOCK_F)
    live = f < feat
    xv = tl.load(inp + rid * row_stride + f, mask=live, other=0.0).to(tl.float32)
    avg = tl.sum(xv, axis=0) / feat
    cen = tl.where(live, xv - avg, 0.0)
    variance = tl.sum(cen * cen, axis=0) / feat
    inv_std = 1.0 / tl.sqrt(variance + epsilon)
    tl.store(mu_buf + rid, avg)
    tl.store(rs_buf + rid, inv_std)
    g = tl.load(gamma + f, mask=live, other=1.0).to(tl.float32)
    normed = cen * inv_std * g
    if HAS_BIAS:
        normed += tl.load(beta + f, mask=live, other=0.0).to(tl.float32)
    tl.store(out + rid * row_stride + f, normed, mask=live)


@triton.jit
def _ln_bwd_input(
    dout, inp, gamma, mu_buf, rs_buf, dinp,
    dgamma_part, dbeta_part,
    row_stride, feat, n_rows,
    ROWS_PER_PROG: tl.constexpr,
    BLOCK_F: tl.constexpr,
):
    # Each program handles ROWS_PER_PROG consecutive rows, writes dx for each of
    # them and one partial (dgamma, dbeta) row; the partials are summed later.
    pid = tl.program_id(0)
    f = tl.arange(0, BLOCK_F)
    live = f < feat
    g = tl.load(gamma + f, mask=live, other=0.0).to(tl.float32)
    dg_acc = tl.zeros([BLOCK_F], dtype=tl.float32)
    db_acc = tl.zeros([BLOCK_F], dtype=tl.float32)
    for i in range(ROWS_PER_PROG):
        rid = pid * ROWS_PER_PROG + i
        if rid < n_rows:
            xv = tl.load(inp + rid * row_stride + f, mask=live, other=0.0).to(tl.float32)
            go = tl.load(dout + rid * row_stride + f, mask=live, other=0.0).to(tl.float32)
            avg = tl.load(mu_buf + rid)
            inv_std = tl.load(rs_buf + rid)
            xhat = tl.where(live, (xv - avg) * inv_std, 0.0)
            gy = go * g
            c1 = tl.sum(xhat * gy, axis=0) / feat
            c2 = tl.sum(gy, axis=0) / feat
            dx = (gy - (xhat * c1 + c2)) * inv_std
            tl.store(dinp + rid * row_stride + f, dx, mask=live)
            dg_acc += go * xhat
            db_acc += go
    tl.store(dgamma_part + pid * feat + f, dg_acc, mask=live)
    tl.store(dbeta_part + pid * feat + f, db_acc, mask=live)


@triton.jit
def _sum_partials(part, total, n_parts, feat, TILE_P: tl.constexpr, TILE_F: tl.constexpr):
    fb = tl.program_id(0)
    f = fb * TILE_F + tl.arange(0, TILE_F)
    acc = tl.zeros([TILE_P, TILE_F], dtype=tl.float32)
    for p0 in range(0, n_parts, TILE_P):
        p = p0 + tl.arange(0, TILE_P)
        m = (p[:, None] < n_parts) & (f[None, :] < feat)
        acc += tl.load(part + p[:, None] * feat + f[None, :], mask=m, other=0.0)
    tl.store(total + f, tl.sum(acc, axis=0), mask=f < feat)


class TritonLayerNorm(torch.autograd.Function):
    """LayerNorm over the last axis with a two-stage weight-gradient reduction."""

    @staticmethod
    def forward(ctx, x, weight, bias, eps=1e-5):
        shape = x.shape
        x2 = x.reshape(-1, shape[-1]).contiguous()
        rows, feat = x2.shape
        y = torch.empty_like(x2)
        mu = torch.empty(rows, device=x.device, dtype=torch.float32)
        rs = torch.empty(rows, device=x.device, dtype=torch.float32)
        bf = _row_block(feat)
        _ln_fwd_rows[(rows,)](x2, y, weight, bias if bias is not None else weight, mu, rs,
                              x2.stride(0), feat, eps, HAS_BIAS=bias is not None,
                              BLOCK_F=bf, num_warps=_warps_for(bf))
        ctx.save_for_backward(x2, weight, mu, rs)
        ctx.has_bias = bias is not None
        ctx.shape = shape
        return y.view(shape)

    @staticmethod
    def backward(ctx, dy):
        x2, weight, mu, rs = ctx.saved_tensors
        rows, feat = x2.shape
        dy2 = dy.reshape(-1, feat).contiguous()
        dx = torch.empty_like(x2)
        rpp = 8
        n_parts = triton.cdiv(rows, rpp)
        dg_part = torch.empty(n_parts, feat, device=x2.device, dtype=torch.float32)
        db_part = torch.empty_like(dg_part)
        bf = _row_block(feat)
        _ln_bwd_input[(n_parts,)](dy2, x2, weight, mu, rs, dx, dg_part, db_part,
                                  x2.stride(0), feat, rows, ROWS_PER_PROG=rpp, BLOCK_F=bf,
                                  num_warps=_warps_for(bf))
        dg = torch.empty(feat, device=x2.device, dtype=torch.float32)
        db = torch.empty_like(dg)
        grid = (triton.cdiv(feat, 64),)
        _sum_partials[grid](dg_part, dg, n_parts, feat, TILE_P=32, TILE_F=64)
        _sum_partials[grid](db_part, db, n_parts, feat, TILE_P=32, TILE_F=64)
        return dx.view(ctx.shape), dg.to(weight.dtype), (db.to(weight.dtype) if ctx.has_bias else None), None


# <<PLANT:norm_a>>


# ------------------------------------------------------------------ RMSNorm ---

@triton.jit
def _rms_3d_fwd(
    src, w, dst,
    s_b, s_m, s_k,
    w_s,
    d_b, d_m, d_k,
    K,
    eps,
    KB: tl.constexpr,
):
    """RMS-normalise the last axis of a (B, M, K) tensor, then scale by ``w``.

    grid = (B, M).  Two sweeps over K: first the mean square, then the output.
    """
    bi = tl.program_id(0)
    mi = tl.program_id(1)
    src_row = src + bi * s_b + mi * s_m
    dst_row = dst + bi * d_b + mi * d_m
    sq = tl.zeros([KB], dtype=tl.float32)
    for k0 in range(0, K, KB):
        kk = k0 + tl.arange(0, KB)
        v = tl.load(src_row + kk * s_k, mask=kk < K, other=0.0).to(tl.float32)
        sq += v * v
    scale = tl.math.rsqrt(tl.sum(sq, axis=0) / K + eps)
    for k0 in range(0, K, KB):
        kk = k0 + tl.arange(0, KB)
        ok = kk < K
        v = tl.load(src_row + kk * s_k, mask=ok, other=0.0).to(tl.float32)
        wt = tl.load(w + kk * w_s, mask=ok, other=0.0).to(tl.float32)
        tl.store(dst_row + kk * d_k, (v * scale * wt).to(dst.dtype.element_ty), mask=ok)


def rms_norm_3d(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    B, M, K = x.shape
    y = torch.empty_like(x)
    _rms_3d_fwd[(B, M)](x, weight, y, *x.stride(), weight.stride(0), *y.stride(), K, eps,
                        KB=min(1024, triton.next_power_of_2(K)))
    return y


@triton.jit
def _add_rms_fwd(x_ptr, res_ptr, w_ptr, y_ptr, res_out_ptr, n, stride, eps, BLOCK: tl.constexpr):
    # fused: h = x + residual ; y = rmsnorm(h) * w ; residual_out = h
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    ok = c < n
    h = tl.load(x_ptr + r * stride + c, mask=ok, other=0.0).to(tl.float32)
    h += tl.load(res_ptr + r * stride + c, mask=ok, other=0.0).to(tl.float32)
    tl.store(res_out_ptr + r * stride + c, h, mask=ok)
    ms = tl.sum(h * h, axis=0) / n
    w = tl.load(w_ptr + c, mask=ok, other=0.0).to(tl.float32)
    tl.store(y_ptr + r * stride + c, h / tl.sqrt(ms + eps) * w, mask=ok)


def add_rms_norm(x, residual, weight, eps=1e-6):
    rows, n = x.shape
    y = torch.empty_like(x)
    res_out = torch.empty_like(x)
    blk = _row_block(n)
    _add_rms_fwd[(rows,)](x, residual, weight, y, res_out, n, x.stride(0), eps, BLOCK=blk, num_warps=_warps_for(blk))
    return y, res_out


@triton.jit
def _rms_bwd(dy_ptr, x_ptr, w_ptr, dx_ptr, dw_part_ptr, n, stride, eps, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    ok = c < n
    x = tl.load(x_ptr + r * stride + c, mask=ok, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + r * stride + c, mask=ok, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + c, mask=ok, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n + eps)
    xn = x * inv
    gw = dy * w
    dx = inv * (gw - xn * tl.sum(gw * xn, axis=0) / n)
    tl.store(dx_ptr + r * stride + c, dx, mask=ok)
    tl.store(dw_part_ptr + r * n + c, dy * xn, mask=ok)


# ---------------------------------------------------------------- GroupNorm ---

@triton.jit
def _group_norm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, C, HW, G, eps,
                    CPG: tl.constexpr, BLOCK_HW: tl.constexpr):
    # x is (N, C, HW) contiguous; one program per (n, group)
    n = tl.program_id(0)
    g = tl.program_id(1)
    ch = g * CPG + tl.arange(0, CPG)
    base = n * C * HW
    s1 = tl.zeros([CPG, BLOCK_HW], tl.float32)
    s2 = tl.zeros([CPG, BLOCK_HW], tl.float32)
    for p0 in range(0, HW, BLOCK_HW):
        p = p0 + tl.arange(0, BLOCK_HW)
        m = p[None, :] < HW
        v = tl.load(x_ptr + base + ch[:, None] * HW + p[None, :], mask=m, other=0.0).to(tl.float32)
        s1 += v
        s2 += v * v
    cnt = CPG * HW
    mu = tl.sum(tl.sum(s1, axis=1), axis=0) / cnt
    var = tl.sum(tl.sum(s2, axis=1), axis=0) / cnt - mu * mu
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + ch).to(tl.float32)
    b = tl.load(b_ptr + ch).to(tl.float32)
    for p0 in range(0, HW, BLOCK_HW):
        p = p0 + tl.arange(0, BLOCK_HW)
        m = p[None, :] < HW
        off = base + ch[:, None] * HW + p[None, :]
        v = tl.load(x_ptr + off, mask=m, other=0.0).to(tl.float32)
        tl.store(y_ptr + off, (v - mu) * rstd * w[:, None] + b[:, None], mask=m)


def group_norm(x, num_groups, weight, bias, eps=1e-5):
    N, C = x.shape[:2]
    hw = x[0, 0].numel()
    y = torch.empty_like(x)
    _group_norm_fwd[(N, num_groups)](x, y, weight, bias, C, hw, num_groups, eps,
                                     CPG=C // num_groups, BLOCK_HW=256)
    return y


# <<PLANT:norm_b>>


# --------------------------------------------------------------- misc norms ---

@triton.jit
def _l2_normalize_rows(x_ptr, y_ptr, n, stride, eps, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    ok = c < n
    v = tl.load(x_ptr + r * stride + c, mask=ok, other=0.0).to(tl.float32)
    nrm = tl.sqrt(tl.sum(v * v, axis=0))
    tl.store(y_ptr + r * stride + c, v / tl.maximum(nrm, eps), mask=ok)


@triton.jit
def _ada_ln_modulate(x_ptr, shift_ptr, scale_ptr, y_ptr, seq, n, eps, BLOCK: tl.constexpr):
    # DiT-style: y = LN(x) * (1 + scale[b]) + shift[b], no affine params in LN
    r = tl.program_id(0)
    b = r // seq
    c = tl.arange(0, BLOCK)
    ok = c < n
    v = tl.load(x_ptr + r * n + c, mask=ok, other=0.0).to(tl.float32)
    mu = tl.sum(v, axis=0) / n
    d = tl.where(ok, v - mu, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n + eps)
    sc = tl.load(scale_ptr + b * n + c, mask=ok, other=0.0).to(tl.float32)
    sh = tl.load(shift_ptr + b * n + c, mask=ok, other=0.0).to(tl.float32)
    tl.store(y_ptr + r * n + c, d * rstd * (1.0 + sc) + sh, mask=ok)


def l2_normalize(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    rows, n = x.shape
    y = torch.empty_like(x)
    _l2_normalize_rows[(rows,)](x, y, n, x.stride(0), eps, BLOCK=_row_block(n))
    return y


def ada_layer_norm(x, shift, scale, eps=1e-6):
    """x: (B, S, N); shift/scale: (B, N)."""
    B, S, N = x.shape
    x = x.contiguous()
    y = torch.empty_like(x)
    _ada_ln_modulate[(B * S,)](x, shift.contiguous(), scale.contiguous(), y, S, N, eps, BLOCK=_row_block(N))
    return y


@triton.jit
def _batch_stats(x_ptr, mean_ptr, var_ptr, N, C, HW, BLOCK: tl.constexpr):
    """Per-channel mean/var over (N, HW) for BatchNorm training mode."""
    c = tl.program_id(0)
    s1 = tl.zeros([BLOCK], tl.float32)
    s2 = tl.zeros([BLOCK], tl.float32)
    total = N * HW
    for i0 in range(0, total, BLOCK):
        i = i0 + tl.arange(0, BLOCK)
        n = i // HW
        p = i % HW
        v = tl.load(x_ptr + n * C * HW + c * HW + p, mask=i < total, other=0.0).to(tl.float32)
        s1 += v
        s2 += v * v
    mu = tl.sum(s1, axis=0) / total
    tl.store(mean_ptr + c, mu)
    tl.store(var_ptr + c, tl.sum(s2, axis=0) / total - mu * mu)


def batch_stats(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    N, C = x.shape[:2]
    hw = x[0, 0].numel()
    mu = torch.empty(C, device=x.device, dtype=torch.float32)
    var = torch.empty_like(mu)
    _batch_stats[(C,)](x.contiguous(), mu, var, N, C, hw, BLOCK=1024)
    return mu, var


def layer_norm(x, weight, bias: Optional[torch.Tensor] = None, eps=1e-5):
    return TritonLayerNorm.apply(x, weight, bias, eps)
