"""
softmax_variants
================

A handful of softmax flavours that show up in transformer blocks:

* ``row_softmax``          -- whole row fits in one block
* ``chunked_softmax``      -- online (streaming) normaliser, any row length
* ``masked_softmax``       -- additive / boolean attention masks
* ``causal_scaled_softmax``-- upper triangle masked, scale folded in
* ``softmax_backward``     -- dX = Y * (dY - sum(dY * Y))
* ``column_softmax``       -- normalise over a non-contiguous axis

Notes
-----
All kernels upcast to fp32 and write the input dtype back.
"""
import torch
import triton
import triton.language as tl

# <<PLANT:head>>


@triton.jit
def _row_softmax_fwd(
    Y, X,
    x_stride, y_stride,
    width,
    COLS: tl.constexpr,
):
    r = tl.program_id(0)
    x_row = X + r.to(tl.int64) * x_stride
    k = tl.arange(0, COLS)
    inside = k < width
    logits = tl.load(x_row + k, mask=inside, other=-float("inf")).to(tl.float32)
    shifted = logits - tl.max(logits, axis=0)
    num = tl.exp(shifted)
    den = tl.sum(num, axis=0)
    y_row = Y + r.to(tl.int64) * y_stride
    tl.store(y_row + k, num / den, mask=inside)


def row_softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last axis when the whole row fits in registers."""
    x2 = x.reshape(-1, x.shape[-1])
    rows, width = x2.shape
    y = torch.empty_like(x2)
    cols = triton.next_power_of_2(width)
    warps = 4 if cols <= 2048 else (8 if cols <= 8192 else 16)
    _row_softmax_fwd[(rows,)](y, x2, x2.stride(0), y.stride(0), width, COLS=cols, num_warps=warps)
    return y.view_as(x)


@triton.jit
def _chunked_softmax_fwd(src, dst, width, stride, CHUNK: tl.constexpr):
    # pass 1: running max / running denominator
    r = tl.program_id(0).to(tl.int64)
    m_run = tl.full([CHUNK], -float("inf"), tl.float32)
    d_run = tl.zeros([CHUNK], tl.float32)
    for start in range(0, width, CHUNK):
        k = start + tl.arange(0, CHUNK)
        v = tl.load(src + r * stride + k, mask=k < width, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m_run, v)
        alpha = tl.where(m_new == -float("inf"), 0.0, tl.exp(m_run - m_new))
        d_run = d_run * alpha + tl.where(v == -float("inf"), 0.0, tl.exp(v - m_new))
        m_run = m_new
    m_row = tl.max(m_run, axis=0)
    d_row = tl.sum(d_run * tl.exp(m_run - m_row), axis=0)
    inv = 1.0 / d_row
    # pass 2: normalise
    for start in range(0, width, CHUNK):
        k = start + tl.arange(0, CHUNK)
        v = tl.load(src + r * stride + k, mask=k < width, other=-float("inf")).to(tl.float32)
        tl.store(dst + r * stride + k, tl.exp(v - m_row) * inv, mask=k < width)


def chunked_softmax(x: torch.Tensor, chunk: int = 1024) -> torch.Tensor:
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    y = torch.empty_like(x2)
    _chunked_softmax_fwd[(x2.shape[0],)](x2, y, x2.shape[1], x2.stride(0), CHUNK=chunk)
    return y.view_as(x)


@triton.jit
def _masked_softmax_fwd(
    scores_ptr, mask_ptr, out_ptr,
    n_cols, heads,
    stride_sb, stride_sh, stride_sr,
    stride_mb, stride_mr,
    scale,
    BOOL_MASK: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    """softmax(scale * s + mask) with a mask broadcast over heads."""
    row = tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // heads
    h = bh % heads
    n = tl.arange(0, BLOCK_N)
    ok = n < n_cols
    s_off = b * stride_sb + h * stride_sh + row * stride_sr
    s = tl.load(scores_ptr + s_off + n, mask=ok, other=0.0).to(tl.float32) * scale
    mv = tl.load(mask_ptr + b * stride_mb + row * stride_mr + n, mask=ok, other=0)
    if BOOL_MASK:
        s = tl.where(mv != 0, s, -float("inf"))
    else:
        s = s + mv.to(tl.float32)
    s = tl.where(ok, s, -float("inf"))
    mx = tl.max(s, axis=0)
    mx = tl.where(mx == -float("inf"), 0.0, mx)
    e = tl.exp(s - mx)
    tot = tl.sum(e, axis=0)
    tl.store(out_ptr + s_off + n, e / tl.maximum(tot, 1e-30), mask=ok)


def masked_softmax(scores, mask, scale=1.0):
    b, h, q, k = scores.shape
    out = torch.empty_like(scores)
    grid = (q, b * h)
    _masked_softmax_fwd[grid](
        scores, mask, out, k, h,
        scores.stride(0), scores.stride(1), scores.stride(2),
        mask.stride(0), mask.stride(1),
        scale, BOOL_MASK=mask.dtype == torch.bool, BLOCK_N=triton.next_power_of_2(k),
    )
    return out


@triton.jit
def _causal_scaled_softmax_fwd(x_ptr, y_ptr, seq_q, seq_k, scale, BLOCK_K: tl.constexpr):
    # rows of a (batch*heads*seq_q, seq_k) score matrix; key j allowed iff j <= i + (seq_k - seq_q)
    gid = tl.program_id(0)
    i = gid % seq_q
    k = tl.arange(0, BLOCK_K)
    visible = (k < seq_k) & (k <= i + (seq_k - seq_q))
    v = tl.load(x_ptr + gid * seq_k + k, mask=visible, other=-float("inf")).to(tl.float32) * scale
    v = v - tl.max(v, axis=0)
    p = tl.exp(v)
    p = p / tl.sum(p, axis=0)
    tl.store(y_ptr + gid * seq_k + k, p, mask=k < seq_k)


def causal_scaled_softmax(x, scale):
    *lead, sq, sk = x.shape
    y = torch.empty_like(x)
    rows = x.numel() // sk
    _causal_scaled_softmax_fwd[(rows,)](x, y, sq, sk, scale, BLOCK_K=triton.next_power_of_2(sk))
    return y


# <<PLANT:mid>>


@triton.jit
def _softmax_bwd(dy_ptr, y_ptr, dx_ptr, width, stride, COLS: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    k = tl.arange(0, COLS)
    ok = k < width
    dy = tl.load(dy_ptr + r * stride + k, mask=ok, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + r * stride + k, mask=ok, other=0.0).to(tl.float32)
    dot = tl.sum(dy * y, axis=0)
    tl.store(dx_ptr + r * stride + k, y * (dy - dot), mask=ok)


class RowSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = row_softmax(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensors
        y2 = y.reshape(-1, y.shape[-1])
        dy2 = dy.reshape(-1, y.shape[-1]).contiguous()
        dx = torch.empty_like(y2)
        _softmax_bwd[(y2.shape[0],)](dy2, y2, dx, y2.shape[1], y2.stride(0),
                                     COLS=triton.next_power_of_2(y2.shape[1]))
        return dx.view_as(y)


@triton.jit
def _log_softmax_rows(x_ptr, out_ptr, width, stride, COLS: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    k = tl.arange(0, COLS)
    ok = k < width
    v = tl.load(x_ptr + r * stride + k, mask=ok, other=-float("inf")).to(tl.float32)
    mx = tl.max(v, axis=0)
    lse = mx + tl.log(tl.sum(tl.exp(v - mx), axis=0))
    tl.store(out_ptr + r * stride + k, v - lse, mask=ok)


@triton.jit
def _column_softmax(x_ptr, y_ptr, n_rows, n_cols, TILE_R: tl.constexpr, TILE_C: tl.constexpr):
    # normalise each column of a row-major (n_rows, n_cols) matrix.  Columns are
    # strided, so we read TILE_C of them at once to keep the loads coalesced.
    cb = tl.program_id(0)
    c = cb * TILE_C + tl.arange(0, TILE_C)
    cm = c < n_cols
    mx = tl.full([TILE_C], -float("inf"), tl.float32)
    for r0 in range(0, n_rows, TILE_R):
        r = r0 + tl.arange(0, TILE_R)
        m = (r[:, None] < n_rows) & cm[None, :]
        v = tl.load(x_ptr + r[:, None] * n_cols + c[None, :], mask=m, other=-float("inf"))
        mx = tl.maximum(mx, tl.max(v.to(tl.float32), axis=0))
    den = tl.zeros([TILE_C], tl.float32)
    for r0 in range(0, n_rows, TILE_R):
        r = r0 + tl.arange(0, TILE_R)
        m = (r[:, None] < n_rows) & cm[None, :]
        v = tl.load(x_ptr + r[:, None] * n_cols + c[None, :], mask=m, other=-float("inf"))
        den += tl.sum(tl.exp(v.to(tl.float32) - mx[None, :]), axis=0)
    for r0 in range(0, n_rows, TILE_R):
        r = r0 + tl.arange(0, TILE_R)
        m = (r[:, None] < n_rows) & cm[None, :]
        v = tl.load(x_ptr + r[:, None] * n_cols + c[None, :], mask=m, other=-float("inf"))
        tl.store(y_ptr + r[:, None] * n_cols + c[None, :], tl.exp(v.to(tl.float32) - mx[None, :]) / den[None, :], mask=m)


def log_softmax(x):
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    y = torch.empty_like(x2)
    _log_softmax_rows[(x2.shape[0],)](x2, y, x2.shape[1], x2.stride(0), COLS=triton.next_power_of_2(x2.shape[1]))
    return y.view_as(x)


def column_softmax(x):
    assert x.dim() == 2 and x.is_contiguous()
    y = torch.empty_like(x)
    _column_softmax[(triton.cdiv(x.shape[1], 32),)](x, y, x.shape[0], x.shape[1], TILE_R=64, TILE_C=32)
    return y


@triton.jit
def _temperature_topk_mask(logits_ptr, out_ptr, kth_ptr, width, stride, inv_temp, COLS: tl.constexpr):
    """Scale by 1/T, drop everything below the per-row k-th value, then softmax."""
    r = tl.program_id(0).to(tl.int64)
    k = tl.arange(0, COLS)
    ok = k < width
    v = tl.load(logits_ptr + r * stride + k, mask=ok, other=-float("inf")).to(tl.float32) * inv_temp
    kth = tl.load(kth_ptr + r).to(tl.float32) * inv_temp
    v = tl.where(v >= kth, v, -float("inf"))
    v = v - tl.max(v, axis=0)
    p = tl.exp(v)
    tl.store(out_ptr + r * stride + k, p / tl.sum(p, axis=0), mask=ok)


def topk_softmax(logits, k, temperature=1.0):
    kth = torch.topk(logits, k, dim=-1).values[..., -1].contiguous()
    out = torch.empty_like(logits, dtype=torch.float32)
    _temperature_topk_mask[(logits.shape[0],)](logits, out, kth, logits.shape[1], logits.stride(0),
                                               1.0 / temperature, COLS=triton.next_power_of_2(logits.shape[1]))
    return out


@triton.jit
def _gumbel_softmax(logits_ptr, out_ptr, seed, width, stride, tau, COLS: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    k = tl.arange(0, COLS)
    ok = k < width
    v = tl.load(logits_ptr + r * stride + k, mask=ok, other=-float("inf")).to(tl.float32)
    u = tl.rand(seed, r * stride + k)
    g = -tl.log(-tl.log(u + 1e-10) + 1e-10)
    z = (v + g) / tau
    z = z - tl.max(z, axis=0)
    e = tl.exp(z)
    tl.store(out_ptr + r * stride + k, e / tl.sum(e, axis=0), mask=ok)


def gumbel_softmax(logits, tau=1.0, seed=0):
    out = torch.empty_like(logits, dtype=torch.float32)
    _gumbel_softmax[(logits.shape[0],)](logits, out, seed, logits.shape[1], logits.stride(0), tau,
                                        COLS=triton.next_power_of_2(logits.shape[1]))
    return out

@triton.jit
def _softmax_dropout_fwd(x_ptr, y_ptr, width, stride, p_drop, seed, COLS: tl.constexpr):
    # attention-probability dropout fused into the normaliser
    r = tl.program_id(0).to(tl.int64)
    k = tl.arange(0, COLS)
    ok = k < width
    v = tl.load(x_ptr + r * stride + k, mask=ok, other=-float("inf")).to(tl.float32)
    e = tl.exp(v - tl.max(v, axis=0))
    prob = e / tl.sum(e, axis=0)
    keep = tl.rand(seed, r * stride + k) >= p_drop
    tl.store(y_ptr + r * stride + k, tl.where(keep, prob / (1.0 - p_drop), 0.0), mask=ok)


def softmax_dropout(x, p=0.1, seed=1234):
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    y = torch.empty_like(x2)
    _softmax_dropout_fwd[(x2.shape[0],)](x2, y, x2.shape[1], x2.stride(0), p, seed,
                                         COLS=triton.next_power_of_2(x2.shape[1]))
    return y.view_as(x)


@triton.jit
def _row_stats(x_ptr, max_ptr, den_ptr, width, stride, CHUNK: tl.constexpr):
    """Write (row max, sum exp(x - max)) so a later pass can normalise lazily."""
    r = tl.program_id(0).to(tl.int64)
    m = tl.full([CHUNK], -float("inf"), tl.float32)
    d = tl.zeros([CHUNK], tl.float32)
    for start in range(0, width, CHUNK):
        k = start + tl.arange(0, CHUNK)
        v = tl.load(x_ptr + r * stride + k, mask=k < width, other=-float("inf")).to(tl.float32)
        nm = tl.maximum(m, v)
        d = d * tl.exp(m - nm) + tl.exp(v - nm)
        m = nm
    mr = tl.max(m, axis=0)
    tl.store(max_ptr + r, mr)
    tl.store(den_ptr + r, tl.sum(d * tl.exp(m - mr), axis=0))


def softmax_stats(x, chunk=2048):
    rows, width = x.shape
    mx = torch.empty(rows, device=x.device, dtype=torch.float32)
    den = torch.empty_like(mx)
    _row_stats[(rows,)](x, mx, den, width, x.stride(0), CHUNK=chunk)
    return mx, den


# <<PLANT:end>>
