"""Scans and recurrences over the time axis.

Used by linear-attention / SSM style layers.  Inputs are laid out
(batch, heads, time, dim) and contiguous unless noted.
"""
import torch
import triton
import triton.language as tl

__all__ = [
    "cumsum_last",
    "chunked_cumsum",
    "linear_recurrence",
    "gated_recurrence",
    "ema_scan",
    "local_cumsum",
    "chunk_state_passing",
    "linear_recurrence_backward",
    "causal_conv1d",
    "retention_state",
    "segment_cumsum",
    "chunk_local_then_global",
]


@triton.jit
def _scan_add(a, b):
    return a + b


@triton.jit
def cumsum_rows_kernel(x_ptr, y_ptr, T, stride, REVERSE: tl.constexpr, BT: tl.constexpr):
    # inclusive prefix sum along a row of length T <= BT
    r = tl.program_id(0)
    t = tl.arange(0, BT)
    if REVERSE:
        src = T - 1 - t
    else:
        src = t
    ok = t < T
    v = tl.load(x_ptr + r * stride + src, mask=ok, other=0.).to(tl.float32)
    c = tl.associative_scan(v, 0, _scan_add)
    tl.store(y_ptr + r * stride + src, c, mask=ok)


def cumsum_last(x, reverse=False):
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    y = torch.empty_like(x2, dtype=torch.float32)
    cumsum_rows_kernel[(x2.shape[0],)](x2, y, x2.shape[1], x2.stride(0), REVERSE=reverse,
                                       BT=triton.next_power_of_2(x2.shape[1]))
    return y.view(x.shape)


@triton.jit
def chunked_cumsum_kernel(x_ptr, y_ptr, T, D, CHUNK: tl.constexpr, BD: tl.constexpr):
    """Cumulative sum over time of a (BH, T, D) tensor, carrying a running total
    across chunks of CHUNK steps (no length limit)."""
    bh = tl.program_id(0)
    db = tl.program_id(1)
    d = db * BD + tl.arange(0, BD)
    dm = d < D
    carry = tl.zeros([BD], tl.float32)
    for t0 in range(0, T, CHUNK):
        t = t0 + tl.arange(0, CHUNK)
        m = (t[:, None] < T) & dm[None, :]
        blk = tl.load(x_ptr + (bh * T + t[:, None]) * D + d[None, :], mask=m, other=0.).to(tl.float32)
        pref = tl.cumsum(blk, axis=0) + carry[None, :]
        tl.store(y_ptr + (bh * T + t[:, None]) * D + d[None, :], pref, mask=m)
        carry = carry + tl.sum(blk, axis=0)


def chunked_cumsum(x):
    BH, T, D = x.shape
    y = torch.empty_like(x, dtype=torch.float32)
    chunked_cumsum_kernel[(BH, triton.cdiv(D, 32))](x.contiguous(), y, T, D, CHUNK=64, BD=32)
    return y


# <<PLANT:scan_top>>


@triton.jit
def _lin_rec_combine(a1, b1, a2, b2):
    # (a1, b1) then (a2, b2):  h -> a2 * (a1 * h + b1) + b2
    return a1 * a2, a2 * b1 + b2


@triton.jit
def linear_recurrence_kernel(a_ptr, b_ptr, h_ptr, T, D, BT: tl.constexpr, BD: tl.constexpr):
    """h_t = a_t * h_{t-1} + b_t with h_{-1} = 0, via an associative scan."""
    bh = tl.program_id(0)
    d = tl.program_id(1) * BD + tl.arange(0, BD)
    t = tl.arange(0, BT)
    m = (t[:, None] < T) & (d[None, :] < D)
    off = (bh * T + t[:, None]) * D + d[None, :]
    a = tl.load(a_ptr + off, mask=m, other=1.).to(tl.float32)
    b = tl.load(b_ptr + off, mask=m, other=0.).to(tl.float32)
    _, h = tl.associative_scan((a, b), 0, _lin_rec_combine)
    tl.store(h_ptr + off, h, mask=m)


def linear_recurrence(a, b):
    BH, T, D = a.shape
    h = torch.empty_like(a, dtype=torch.float32)
    linear_recurrence_kernel[(BH, triton.cdiv(D, 16))](a, b, h, T, D, BT=triton.next_power_of_2(T), BD=16)
    return h


@triton.jit
def gated_recurrence_seq_kernel(x_ptr, g_ptr, h0_ptr, out_ptr, hT_ptr, T, D,
                                HAS_H0: tl.constexpr, BD: tl.constexpr):
    # sequential version: h = sigmoid(g) * h + (1 - sigmoid(g)) * x
    bh = tl.program_id(0)
    d = tl.program_id(1) * BD + tl.arange(0, BD)
    dm = d < D
    h = tl.zeros([BD], tl.float32)
    if HAS_H0:
        h = tl.load(h0_ptr + bh * D + d, mask=dm, other=0.).to(tl.float32)
    for t in range(T):
        off = (bh * T + t) * D + d
        xv = tl.load(x_ptr + off, mask=dm, other=0.).to(tl.float32)
        gv = tl.sigmoid(tl.load(g_ptr + off, mask=dm, other=0.).to(tl.float32))
        h = gv * h + (1.0 - gv) * xv
        tl.store(out_ptr + off, h, mask=dm)
    tl.store(hT_ptr + bh * D + d, h, mask=dm)


def gated_recurrence(x, g, h0=None):
    BH, T, D = x.shape
    out = torch.empty_like(x, dtype=torch.float32)
    hT = torch.empty(BH, D, device=x.device, dtype=torch.float32)
    gated_recurrence_seq_kernel[(BH, triton.cdiv(D, 64))](x, g, h0 if h0 is not None else x, out, hT, T, D,
                                                          HAS_H0=h0 is not None, BD=64)
    return out, hT


@triton.jit
def decay_state_kernel(k_ptr, v_ptr, decay_ptr, s_ptr, T, DK, DV,
                       BK: tl.constexpr, BV: tl.constexpr, CHUNK: tl.constexpr):
    """Final state S = sum_t gamma^(T-1-t) k_t v_t^T of a retention-style layer."""
    bh = tl.program_id(0)
    ik = tl.program_id(1) * BK + tl.arange(0, BK)
    iv = tl.program_id(2) * BV + tl.arange(0, BV)
    gamma = tl.load(decay_ptr + bh % tl.num_programs(0))
    S = tl.zeros([BK, BV], tl.float32)
    for t0 in range(0, T, CHUNK):
        t = t0 + tl.arange(0, CHUNK)
        tm = t < T
        kk = tl.load(k_ptr + (bh * T + t[:, None]) * DK + ik[None, :], mask=tm[:, None] & (ik[None, :] < DK), other=0.)
        vv = tl.load(v_ptr + (bh * T + t[:, None]) * DV + iv[None, :], mask=tm[:, None] & (iv[None, :] < DV), other=0.)
        w = tl.exp(tl.log(gamma) * (T - 1 - t).to(tl.float32))
        w = tl.where(tm, w, 0.0)
        S += tl.dot(tl.trans(kk * w[:, None].to(kk.dtype)), vv)
    tl.store(s_ptr + bh * DK * DV + ik[:, None] * DV + iv[None, :], S, mask=(ik[:, None] < DK) & (iv[None, :] < DV))


# <<PLANT:scan_mid>>


@triton.jit
def segment_cumsum_kernel(x_ptr, seg_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # cumulative sum that restarts wherever seg[i] != seg[i-1]; whole array in one block
    i = tl.arange(0, BLOCK)
    ok = i < n
    v = tl.load(x_ptr + i, mask=ok, other=0.).to(tl.float32)
    s = tl.load(seg_ptr + i, mask=ok, other=-1)
    total = tl.cumsum(v, axis=0)
    prev = tl.load(seg_ptr + i - 1, mask=ok & (i > 0), other=-2)
    start = (s != prev).to(tl.int32)
    # value of the running total just before each segment start, propagated forward with a max-scan
    before = tl.where(start == 1, total - v, 0.0)
    idx = tl.where(start == 1, i, 0)
    last_start = tl.cummax(idx, axis=0)
    base = tl.sum(tl.where(i[None, :] == last_start[:, None], before[None, :], 0.0), axis=1)
    tl.store(y_ptr + i, total - base, mask=ok)


@triton.jit
def ema_scan_kernel(x_ptr, y_ptr, T, stride, alpha, BT: tl.constexpr):
    """y_t = alpha * x_t + (1 - alpha) * y_{t-1} along each row."""
    r = tl.program_id(0)
    t = tl.arange(0, BT)
    ok = t < T
    x = tl.load(x_ptr + r * stride + t, mask=ok, other=0.).to(tl.float32)
    a = tl.where(ok, 1.0 - alpha, 1.0)
    b = alpha * x
    _, y = tl.associative_scan((a, b), 0, _lin_rec_combine)
    tl.store(y_ptr + r * stride + t, y, mask=ok)


def ema_scan(x, alpha):
    rows, T = x.shape
    y = torch.empty_like(x, dtype=torch.float32)
    ema_scan_kernel[(rows,)](x, y, T, x.stride(0), alpha, BT=triton.next_power_of_2(T))
    return y


@triton.jit
def local_cumsum_chunks_kernel(g_ptr, out_ptr, T, CHUNK: tl.constexpr, BD: tl.constexpr, D):
    # within-chunk cumulative sum of log-decays (gated linear attention preprocessing)
    bh = tl.program_id(0)
    c = tl.program_id(1)
    t = c * CHUNK + tl.arange(0, CHUNK)
    d = tl.arange(0, BD)
    m = (t[:, None] < T) & (d[None, :] < D)
    off = (bh * T + t[:, None]) * D + d[None, :]
    g = tl.load(g_ptr + off, mask=m, other=0.).to(tl.float32)
    tl.store(out_ptr + off, tl.cumsum(g, axis=0), mask=m)


def local_cumsum(g, chunk=64):
    BH, T, D = g.shape
    out = torch.empty_like(g, dtype=torch.float32)
    local_cumsum_chunks_kernel[(BH, triton.cdiv(T, chunk))](g, out, T, CHUNK=chunk, BD=triton.next_power_of_2(D), D=D)
    return out

@triton.jit
def chunk_state_passing_kernel(states_ptr, decay_ptr, out_ptr, n_chunks, D, BD: tl.constexpr):
    """Inter-chunk recurrence: S_c = exp(decay_c) * S_{c-1} + states_c (Mamba-2 style)."""
    bh = tl.program_id(0)
    d = tl.program_id(1) * BD + tl.arange(0, BD)
    dm = d < D
    run = tl.zeros([BD], tl.float32)
    for c in range(n_chunks):
        a = tl.exp(tl.load(decay_ptr + bh * n_chunks + c))
        run = a * run + tl.load(states_ptr + (bh * n_chunks + c) * D + d, mask=dm, other=0.).to(tl.float32)
        tl.store(out_ptr + (bh * n_chunks + c) * D + d, run, mask=dm)


def chunk_state_passing(states, decay):
    BH, C, D = states.shape
    out = torch.empty_like(states, dtype=torch.float32)
    chunk_state_passing_kernel[(BH, triton.cdiv(D, 128))](states, decay, out, C, D, BD=128)
    return out


@triton.jit
def reverse_linear_recurrence_kernel(a_ptr, g_ptr, dh_ptr, T, D, BD: tl.constexpr):
    # backward of h_t = a_t h_{t-1} + b_t: dh_t = g_t + a_{t+1} dh_{t+1}, walked from the end
    bh = tl.program_id(0)
    d = tl.program_id(1) * BD + tl.arange(0, BD)
    dm = d < D
    carry = tl.zeros([BD], tl.float32)
    for i in range(T):
        t = T - 1 - i
        g = tl.load(g_ptr + (bh * T + t) * D + d, mask=dm, other=0.).to(tl.float32)
        carry = g + carry
        tl.store(dh_ptr + (bh * T + t) * D + d, carry, mask=dm)
        a = tl.load(a_ptr + (bh * T + t) * D + d, mask=dm, other=0.).to(tl.float32)
        carry = carry * a


def linear_recurrence_backward(a, grad_h):
    BH, T, D = a.shape
    dh = torch.empty_like(a, dtype=torch.float32)
    reverse_linear_recurrence_kernel[(BH, triton.cdiv(D, 64))](a, grad_h, dh, T, D, BD=64)
    return dh


@triton.jit
def causal_conv1d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, T, D, WIDTH: tl.constexpr, BT: tl.constexpr, BD: tl.constexpr,
                         SILU: tl.constexpr):
    """Depthwise causal conv over time (the short conv in front of SSM layers)."""
    b = tl.program_id(0)
    t = tl.program_id(1) * BT + tl.arange(0, BT)
    d = tl.program_id(2) * BD + tl.arange(0, BD)
    dm = d < D
    acc = tl.zeros([BT, BD], tl.float32) + tl.load(b_ptr + d, mask=dm, other=0.)[None, :]
    for k in tl.static_range(WIDTH):
        src_t = t - (WIDTH - 1 - k)
        m = (src_t[:, None] >= 0) & (src_t[:, None] < T) & dm[None, :]
        xv = tl.load(x_ptr + (b * T + src_t[:, None]) * D + d[None, :], mask=m, other=0.).to(tl.float32)
        acc += xv * tl.load(w_ptr + d * WIDTH + k, mask=dm, other=0.)[None, :]
    if SILU:
        acc = acc * tl.sigmoid(acc)
    tl.store(y_ptr + (b * T + t[:, None]) * D + d[None, :], acc, mask=(t[:, None] < T) & dm[None, :])


def causal_conv1d(x, weight, bias, silu=True):
    B, T, D = x.shape
    y = torch.empty_like(x, dtype=torch.float32)
    grid = (B, triton.cdiv(T, 32), triton.cdiv(D, 64))
    causal_conv1d_kernel[grid](x, weight, bias, y, T, D, WIDTH=weight.shape[1], BT=32, BD=64, SILU=silu)
    return y


def retention_state(k, v, gamma):
    BH, T, DK = k.shape
    DV = v.shape[2]
    S = torch.empty(BH, DK, DV, device=k.device, dtype=torch.float32)
    decay_state_kernel[(BH, triton.cdiv(DK, 32), triton.cdiv(DV, 32))](k, v, gamma, S, T, DK, DV, BK=32, BV=32, CHUNK=64)
    return S


def segment_cumsum(x, seg):
    n = x.numel()
    y = torch.empty_like(x, dtype=torch.float32)
    segment_cumsum_kernel[(1,)](x, seg, y, n, BLOCK=triton.next_power_of_2(n))
    return y

def chunk_local_then_global(g, chunk=64):
    """Two-level cumsum: within chunks, then carry chunk totals (cheap check of chunked_cumsum)."""
    local = local_cumsum(g, chunk)
    BH, T, D = g.shape
    n_chunks = triton.cdiv(T, chunk)
    totals = torch.zeros(BH, n_chunks, D, device=g.device, dtype=torch.float32)
    for c in range(n_chunks - 1):
        totals[:, c + 1] = totals[:, c] + local[:, min((c + 1) * chunk, T) - 1]
    return local + totals.repeat_interleave(chunk, dim=1)[:, :T]

# <<PLANT:scan_end>>
