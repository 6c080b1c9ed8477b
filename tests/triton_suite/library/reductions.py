# -*- coding: utf-8 -*-
#
# reductions.py -- row / column / global reductions.
#
# Conventions: 2-D inputs are (rows, cols) with a unit column stride unless the
# kernel says otherwise.  Accumulation is always fp32.

import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(inp, out, n_cols, row_stride, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_C], dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        acc += tl.load(inp + row * row_stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out + row, tl.sum(acc, axis=0))


@triton.jit
def row_max_kernel(inp, out_val, out_idx, n_cols, row_stride, BLOCK_C: tl.constexpr):
    # running max + argmax over the row, chunk by chunk
    row = tl.program_id(0)
    best = tl.full([BLOCK_C], float("-inf"), dtype=tl.float32)
    where = tl.zeros([BLOCK_C], dtype=tl.int32)
    for c0 in range(0, n_cols, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        v = tl.load(inp + row * row_stride + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        better = v > best
        best = tl.where(better, v, best)
        where = tl.where(better, cols, where)
    m = tl.max(best, axis=0)
    # smallest column index that reaches the max
    cand = tl.where(best == m, where, 2147483647)
    tl.store(out_val + row, m)
    tl.store(out_idx + row, tl.min(cand, axis=0))


def row_sum(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=torch.float32)
    row_sum_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK_C=min(2048, triton.next_power_of_2(cols)))
    return out


def row_max(x: torch.Tensor):
    rows, cols = x.shape
    val = torch.empty(rows, device=x.device, dtype=torch.float32)
    idx = torch.empty(rows, device=x.device, dtype=torch.int32)
    row_max_kernel[(rows,)](x, val, idx, cols, x.stride(0), BLOCK_C=min(1024, triton.next_power_of_2(cols)))
    return val, idx


# <<PLANT:after_rowwise>>


@triton.jit
def col_mean_kernel(src, dst, n_rows, n_cols, stride_r, stride_c, TILE_R: tl.constexpr, TILE_C: tl.constexpr):
    """Average over the leading axis of a 2-D tensor.

    Each program owns TILE_C columns and walks all rows in steps of TILE_R,
    keeping a 2-D fp32 accumulator that is collapsed once at the end.
    """
    cblk = tl.program_id(0)
    cols = cblk * TILE_C + tl.arange(0, TILE_C)
    cmask = cols < n_cols
    acc = tl.zeros([TILE_R, TILE_C], dtype=tl.float32)
    for r0 in range(0, n_rows, TILE_R):
        rows = r0 + tl.arange(0, TILE_R)
        ptrs = src + rows[:, None] * stride_r + cols[None, :] * stride_c
        m = (rows[:, None] < n_rows) & cmask[None, :]
        acc += tl.load(ptrs, mask=m, other=0.0).to(tl.float32)
    total = tl.sum(acc, axis=0)
    tl.store(dst + cols, total / n_rows, mask=cmask)


@triton.jit
def last_dim_mean_kernel(src, dst, outer, inner, ROWS: tl.constexpr, COLS: tl.constexpr):
    # mean over the contiguous last axis, ROWS rows per program
    rb = tl.program_id(0)
    r = rb * ROWS + tl.arange(0, ROWS)
    rmask = r < outer
    acc = tl.zeros([ROWS, COLS], dtype=tl.float32)
    for c0 in range(0, inner, COLS):
        c = c0 + tl.arange(0, COLS)
        m = rmask[:, None] & (c[None, :] < inner)
        acc += tl.load(src + r[:, None] * inner + c[None, :], mask=m, other=0.0).to(tl.float32)
    tl.store(dst + r, tl.sum(acc, axis=1) / inner, mask=rmask)


def mean(x: torch.Tensor, dim: int) -> torch.Tensor:
    """Mean of a 2-D tensor along ``dim`` (0 or 1)."""
    assert x.dim() == 2
    n_rows, n_cols = x.shape
    if dim == 0:
        out = torch.empty(n_cols, device=x.device, dtype=torch.float32)
        grid = (triton.cdiv(n_cols, 64),)
        col_mean_kernel[grid](x, out, n_rows, n_cols, x.stride(0), x.stride(1), TILE_R=32, TILE_C=64)
        return out
    x = x.contiguous()
    out = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    last_dim_mean_kernel[(triton.cdiv(n_rows, 8),)](x, out, n_rows, n_cols, ROWS=8, COLS=128)
    return out


@triton.jit
def welford_row_kernel(x_ptr, mean_ptr, var_ptr, n_cols, stride, BLOCK: tl.constexpr):
    # one-pass mean / variance with Welford merging of per-lane partials
    row = tl.program_id(0)
    cnt = tl.zeros([BLOCK], dtype=tl.float32)
    mu = tl.zeros([BLOCK], dtype=tl.float32)
    m2 = tl.zeros([BLOCK], dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        ok = cols < n_cols
        v = tl.load(x_ptr + row * stride + cols, mask=ok, other=0.0).to(tl.float32)
        cnt_new = cnt + ok.to(tl.float32)
        delta = v - mu
        mu = tl.where(ok, mu + delta / tl.maximum(cnt_new, 1.0), mu)
        m2 = tl.where(ok, m2 + delta * (v - mu), m2)
        cnt = cnt_new
    n_total = tl.sum(cnt, axis=0)
    grand = tl.sum(mu * cnt, axis=0) / n_total
    spread = tl.sum(m2 + cnt * (mu - grand) * (mu - grand), axis=0)
    tl.store(mean_ptr + row, grand)
    tl.store(var_ptr + row, spread / n_total)


def row_mean_var(x):
    rows, cols = x.shape
    mu = torch.empty(rows, device=x.device, dtype=torch.float32)
    var = torch.empty_like(mu)
    welford_row_kernel[(rows,)](x, mu, var, cols, x.stride(0), BLOCK=256)
    return mu, var


@triton.jit
def partial_sum_stage1(x_ptr, part_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    o = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + o, mask=o < n, other=0.0).to(tl.float32)
    tl.store(part_ptr + pid, tl.sum(v, axis=0))


@triton.jit
def partial_sum_stage2(part_ptr, out_ptr, n_parts, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    v = tl.load(part_ptr + o, mask=o < n_parts, other=0.0)
    tl.store(out_ptr, tl.sum(v, axis=0))


def global_sum(x: torch.Tensor) -> torch.Tensor:
    flat = x.reshape(-1)
    n = flat.numel()
    block = 4096
    parts = triton.cdiv(n, block)
    part = torch.empty(parts, device=x.device, dtype=torch.float32)
    out = torch.empty((), device=x.device, dtype=torch.float32)
    partial_sum_stage1[(parts,)](flat, part, n, BLOCK=block)
    partial_sum_stage2[(1,)](part, out, parts, BLOCK=triton.next_power_of_2(parts))
    return out


@triton.jit
def atomic_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + o, mask=o < n, other=0.0).to(tl.float32)
    tl.atomic_add(out_ptr, tl.sum(v, axis=0))


@triton.jit
def l1_norm_rows_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        acc += tl.abs(tl.load(x_ptr + r * stride + c, mask=c < n_cols, other=0.0).to(tl.float32))
    tl.store(out_ptr + r, tl.sum(acc, axis=0))


@triton.jit
def count_nonzero_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + o, mask=o < n, other=0)
    hits = tl.sum((v != 0).to(tl.int32), axis=0)
    tl.atomic_add(out_ptr, hits)


def count_nonzero(x):
    flat = x.reshape(-1)
    out = torch.zeros((), device=x.device, dtype=torch.int32)
    count_nonzero_kernel[(triton.cdiv(flat.numel(), 2048),)](flat, out, flat.numel(), BLOCK=2048)
    return out


# <<PLANT:middle>>


@triton.jit
def any_all_kernel(x_ptr, any_ptr, all_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = o < n
    v = tl.load(x_ptr + o, mask=inside, other=0) != 0
    some = tl.max(v.to(tl.int32), axis=0)
    none_false = tl.min(tl.where(inside, v.to(tl.int32), 1), axis=0)
    tl.atomic_max(any_ptr, some)
    tl.atomic_min(all_ptr, none_false)


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, lo, hi, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = o < n
    v = tl.load(x_ptr + o, mask=inside, other=lo).to(tl.float32)
    b = ((v - lo) / (hi - lo) * NBINS).to(tl.int32)
    b = tl.minimum(tl.maximum(b, 0), NBINS - 1)
    tl.atomic_add(hist_ptr + b, 1, mask=inside & (v >= lo) & (v <= hi))


def histogram(x, bins=64, lo=-4.0, hi=4.0):
    flat = x.reshape(-1)
    hist = torch.zeros(bins, device=x.device, dtype=torch.int32)
    histogram_kernel[(triton.cdiv(flat.numel(), 1024),)](flat, hist, flat.numel(), lo, hi, NBINS=bins, BLOCK=1024)
    return hist


@triton.jit
def row_logsumexp_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    # streaming logsumexp: keep running max m and running sum s of exp(x - m)
    r = tl.program_id(0)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + r * stride + c, mask=c < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, v)
        s = s * tl.exp(m - m_new) + tl.exp(v - m_new)
        m = m_new
    top = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - top), axis=0)
    tl.store(out_ptr + r, top + tl.log(total))


def row_logsumexp(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=torch.float32)
    row_logsumexp_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=512)
    return out


@triton.jit
def prod_rows_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + r * stride + c, mask=c < n_cols, other=1.0).to(tl.float32)
    # log-domain product keeps the reduction associative; sign tracked separately
    neg = tl.sum((v < 0).to(tl.int32), axis=0)
    mag = tl.exp(tl.sum(tl.log(tl.abs(v)), axis=0))
    tl.store(out_ptr + r, tl.where(neg % 2 == 1, -mag, mag))

def any_all(x):
    flat = x.reshape(-1)
    a = torch.zeros((), device=x.device, dtype=torch.int32)
    b = torch.ones((), device=x.device, dtype=torch.int32)
    any_all_kernel[(triton.cdiv(flat.numel(), 1024),)](flat, a, b, flat.numel(), BLOCK=1024)
    return a.bool(), b.bool()


def row_prod(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=torch.float32)
    prod_rows_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols))
    return out


def row_l1(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=torch.float32)
    l1_norm_rows_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=1024)
    return out


@triton.jit
def segment_sum_kernel(vals_ptr, seg_start_ptr, out_ptr, width, BLOCK_W: tl.constexpr, MAX_LEN: tl.constexpr):
    """Sum ragged segments of rows: out[s] = sum(vals[start[s]:start[s+1]])."""
    seg = tl.program_id(0)
    lo = tl.load(seg_start_ptr + seg)
    hi = tl.load(seg_start_ptr + seg + 1)
    w = tl.arange(0, BLOCK_W)
    wm = w < width
    acc = tl.zeros([BLOCK_W], dtype=tl.float32)
    for i in range(0, MAX_LEN):
        r = lo + i
        acc += tl.load(vals_ptr + r * width + w, mask=wm & (r < hi), other=0.0).to(tl.float32)
    tl.store(out_ptr + seg * width + w, acc, mask=wm)


def segment_sum(vals, seg_start, max_len):
    n_seg = seg_start.numel() - 1
    width = vals.shape[1]
    out = torch.empty(n_seg, width, device=vals.device, dtype=torch.float32)
    segment_sum_kernel[(n_seg,)](vals, seg_start, out, width,
                                 BLOCK_W=triton.next_power_of_2(width), MAX_LEN=max_len)
    return out


# <<PLANT:tail>>
