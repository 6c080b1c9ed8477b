"""Attention building blocks.

Shapes follow the (batch, heads, seq, head_dim) convention unless a kernel
documents a packed ("varlen") layout.  ``sm_scale`` is applied in the log2
domain where the kernel uses ``exp2``.
"""
import math

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634

# <<PLANT:attn_top>>


@triton.jit
def _qk_scores(q, k, s, Lq, Lk, D, sq_bh, sq_l, sk_bh, sk_l, ss_bh, ss_l, scale,
               BQ: tl.constexpr, BK: tl.constexpr, BD: tl.constexpr):
    # S = scale * Q K^T for one (bh, q-tile, k-tile)
    bh = tl.program_id(2)
    iq = tl.program_id(0) * BQ + tl.arange(0, BQ)
    ik = tl.program_id(1) * BK + tl.arange(0, BK)
    d = tl.arange(0, BD)
    tq = tl.load(q + bh * sq_bh + iq[:, None] * sq_l + d[None, :], mask=(iq[:, None] < Lq) & (d[None, :] < D), other=0.)
    tk = tl.load(k + bh * sk_bh + ik[:, None] * sk_l + d[None, :], mask=(ik[:, None] < Lk) & (d[None, :] < D), other=0.)
    acc = tl.dot(tq, tl.trans(tk)) * scale
    tl.store(s + bh * ss_bh + iq[:, None] * ss_l + ik[None, :], acc, mask=(iq[:, None] < Lq) & (ik[None, :] < Lk))


def qk_scores(q, k, scale=None):
    B, H, Lq, D = q.shape
    Lk = k.shape[2]
    scale = scale or 1.0 / math.sqrt(D)
    q3, k3 = q.reshape(B * H, Lq, D), k.reshape(B * H, Lk, D)
    s = torch.empty(B * H, Lq, Lk, device=q.device, dtype=torch.float32)
    grid = (triton.cdiv(Lq, 64), triton.cdiv(Lk, 64), B * H)
    _qk_scores[grid](q3, k3, s, Lq, Lk, D, q3.stride(0), q3.stride(1), k3.stride(0), k3.stride(1),
                     s.stride(0), s.stride(1), scale, BQ=64, BK=64, BD=triton.next_power_of_2(D))
    return s.view(B, H, Lq, Lk)


@triton.jit
def _flash_fwd_tile(
    Qp, Kp, Vp, Op, LSEp,
    seq_q, seq_k,
    stride_bh, stride_tok,
    qk_scale,
    IS_CAUSAL: tl.constexpr,
    TQ: tl.constexpr,
    TKV: tl.constexpr,
    HEAD: tl.constexpr,
):
    """One query tile against all key/value tiles with an online softmax.

    The row max ``mx`` and row sum ``den`` are kept in base 2; ``qk_scale``
    already contains log2(e).
    """
    qt = tl.program_id(0)
    bh = tl.program_id(1)
    rq = qt * TQ + tl.arange(0, TQ)
    hd = tl.arange(0, HEAD)
    base = bh * stride_bh
    qblk = tl.load(Qp + base + rq[:, None] * stride_tok + hd[None, :], mask=rq[:, None] < seq_q, other=0.)
    mx = tl.full([TQ], -float("inf"), tl.float32)
    den = tl.zeros([TQ], tl.float32)
    o = tl.zeros([TQ, HEAD], tl.float32)
    hi = seq_k
    if IS_CAUSAL:
        hi = tl.minimum(seq_k, (qt + 1) * TQ + seq_k - seq_q)
    for s0 in range(0, hi, TKV):
        rk = s0 + tl.arange(0, TKV)
        kblk = tl.load(Kp + base + rk[:, None] * stride_tok + hd[None, :], mask=rk[:, None] < seq_k, other=0.)
        sc = tl.dot(qblk, tl.trans(kblk)) * qk_scale
        ok = rk[None, :] < seq_k
        if IS_CAUSAL:
            ok = ok & (rk[None, :] <= rq[:, None] + seq_k - seq_q)
        sc = tl.where(ok, sc, -float("inf"))
        mnew = tl.maximum(mx, tl.max(sc, axis=1))
        corr = tl.exp2(mx - mnew)
        pr = tl.exp2(sc - mnew[:, None])
        den = den * corr + tl.sum(pr, axis=1)
        vblk = tl.load(Vp + base + rk[:, None] * stride_tok + hd[None, :], mask=rk[:, None] < seq_k, other=0.)
        o = o * corr[:, None] + tl.dot(pr.to(vblk.dtype), vblk)
        mx = mnew
    o = o / den[:, None]
    tl.store(Op + base + rq[:, None] * stride_tok + hd[None, :], o.to(Op.dtype.element_ty), mask=rq[:, None] < seq_q)
    tl.store(LSEp + bh * seq_q + rq, mx + tl.log2(den), mask=rq < seq_q)


def flash_forward(q, k, v, causal=False, sm_scale=None):
    B, H, Lq, D = q.shape
    Lk = k.shape[2]
    assert D in (16, 32, 64, 128)
    sm_scale = sm_scale or D ** -0.5
    q, k, v = (t.contiguous() for t in (q, k, v))
    o = torch.empty_like(q)
    lse = torch.empty(B * H, Lq, device=q.device, dtype=torch.float32)
    grid = (triton.cdiv(Lq, 64), B * H)
    _flash_fwd_tile[grid](q, k, v, o, lse, Lq, Lk, Lq * D, D, sm_scale * LOG2E,
                          IS_CAUSAL=causal, TQ=64, TKV=64, HEAD=D, num_warps=4, num_stages=2)
    return o, lse


@triton.jit
def _decode_one_query(q_ptr, k_ptr, v_ptr, o_ptr, lens_ptr,
                      stride_qb, stride_kb, stride_kt, scale,
                      HD: tl.constexpr, CHUNK: tl.constexpr):
    # single-token decode: q is (B*H, HD); caches are (B*H, T, HD); length per row in lens
    bh = tl.program_id(0)
    n = tl.load(lens_ptr + bh)
    d = tl.arange(0, HD)
    qv = tl.load(q_ptr + bh * stride_qb + d).to(tl.float32) * scale
    m = -float("inf")
    l = 0.0
    acc = tl.zeros([HD], tl.float32)
    for t0 in range(0, n, CHUNK):
        t = t0 + tl.arange(0, CHUNK)
        tm = t < n
        kk = tl.load(k_ptr + bh * stride_kb + t[:, None] * stride_kt + d[None, :], mask=tm[:, None], other=0.).to(tl.float32)
        s = tl.sum(kk * qv[None, :], axis=1)
        s = tl.where(tm, s, -float("inf"))
        m2 = tl.maximum(m, tl.max(s, axis=0))
        p = tl.exp(s - m2)
        a = tl.exp(m - m2)
        vv = tl.load(v_ptr + bh * stride_kb + t[:, None] * stride_kt + d[None, :], mask=tm[:, None], other=0.).to(tl.float32)
        acc = acc * a + tl.sum(p[:, None] * vv, axis=0)
        l = l * a + tl.sum(p, axis=0)
        m = m2
    tl.store(o_ptr + bh * stride_qb + d, acc / l)


def decode_attention(q, k_cache, v_cache, lengths):
    BH, HD = q.shape
    o = torch.empty_like(q, dtype=torch.float32)
    _decode_one_query[(BH,)](q, k_cache, v_cache, o, lengths, q.stride(0), k_cache.stride(0),
                             k_cache.stride(1), HD ** -0.5, HD=HD, CHUNK=64)
    return o


# <<PLANT:attn_mid>>


@triton.jit
def _alibi_bias(slopes, out, Lq, Lk, BQ: tl.constexpr, BK: tl.constexpr):
    h = tl.program_id(2)
    iq = tl.program_id(0) * BQ + tl.arange(0, BQ)
    ik = tl.program_id(1) * BK + tl.arange(0, BK)
    slope = tl.load(slopes + h)
    dist = (ik[None, :] - iq[:, None]).to(tl.float32)
    bias = slope * tl.where(dist > 0, -float("inf"), dist)
    tl.store(out + h * Lq * Lk + iq[:, None] * Lk + ik[None, :], bias, mask=(iq[:, None] < Lq) & (ik[None, :] < Lk))


def alibi_slopes(n_heads: int) -> torch.Tensor:
    p = 2 ** math.floor(math.log2(n_heads))
    base = [2 ** (-8.0 * (i + 1) / p) for i in range(p)]
    extra = [2 ** (-4.0 * (2 * i + 1) / p) for i in range(n_heads - p)]
    return torch.tensor(base + extra)


def alibi_bias(n_heads, Lq, Lk, device="cuda"):
    sl = alibi_slopes(n_heads).to(device)
    out = torch.empty(n_heads, Lq, Lk, device=device, dtype=torch.float32)
    _alibi_bias[(triton.cdiv(Lq, 32), triton.cdiv(Lk, 32), n_heads)](sl, out, Lq, Lk, BQ=32, BK=32)
    return out


@triton.jit
def _merge_partials(o_a, lse_a, o_b, lse_b, o_out, lse_out, HD: tl.constexpr):
    """Combine two partial attention results computed over disjoint key sets."""
    r = tl.program_id(0)
    d = tl.arange(0, HD)
    la = tl.load(lse_a + r)
    lb = tl.load(lse_b + r)
    mx = tl.maximum(la, lb)
    wa = tl.exp(la - mx)
    wb = tl.exp(lb - mx)
    tot = wa + wb
    va = tl.load(o_a + r * HD + d).to(tl.float32)
    vb = tl.load(o_b + r * HD + d).to(tl.float32)
    tl.store(o_out + r * HD + d, (va * wa + vb * wb) / tot)
    tl.store(lse_out + r, mx + tl.log(tot))


def merge_attention(o_a, lse_a, o_b, lse_b):
    rows, hd = o_a.shape
    o = torch.empty_like(o_a, dtype=torch.float32)
    lse = torch.empty_like(lse_a)
    _merge_partials[(rows,)](o_a, lse_a, o_b, lse_b, o, lse, HD=hd)
    return o, lse


@triton.jit
def _sliding_window_mask(out, L, window, BQ: tl.constexpr, BK: tl.constexpr):
    iq = tl.program_id(0) * BQ + tl.arange(0, BQ)
    ik = tl.program_id(1) * BK + tl.arange(0, BK)
    diff = iq[:, None] - ik[None, :]
    allowed = (diff >= 0) & (diff < window)
    tl.store(out + iq[:, None] * L + ik[None, :], tl.where(allowed, 0.0, -float("inf")),
             mask=(iq[:, None] < L) & (ik[None, :] < L))


@triton.jit
def _attn_probs_times_v(p_ptr, v_ptr, o_ptr, Lq, Lk, D, sp, sv, so,
                        BQ: tl.constexpr, BK: tl.constexpr, BD: tl.constexpr):
    # O = P V for precomputed probabilities, used in the reference (non-fused) path
    bh = tl.program_id(1)
    iq = tl.program_id(0) * BQ + tl.arange(0, BQ)
    d = tl.arange(0, BD)
    acc = tl.zeros([BQ, BD], tl.float32)
    for k0 in range(0, Lk, BK):
        ik = k0 + tl.arange(0, BK)
        p = tl.load(p_ptr + bh * sp + iq[:, None] * Lk + ik[None, :], mask=(iq[:, None] < Lq) & (ik[None, :] < Lk), other=0.)
        v = tl.load(v_ptr + bh * sv + ik[:, None] * D + d[None, :], mask=(ik[:, None] < Lk) & (d[None, :] < D), other=0.)
        acc += tl.dot(p.to(v.dtype), v)
    tl.store(o_ptr + bh * so + iq[:, None] * D + d[None, :], acc, mask=(iq[:, None] < Lq) & (d[None, :] < D))


def reference_attention(q, k, v, window=None):
    B, H, L, D = q.shape
    s = qk_scores(q, k)
    if window is not None:
        m = torch.empty(L, L, device=q.device, dtype=torch.float32)
        _sliding_window_mask[(triton.cdiv(L, 32), triton.cdiv(L, 32))](m, L, window, BQ=32, BK=32)
        s = s + m
    p = torch.softmax(s, dim=-1).reshape(B * H, L, L).contiguous()
    v3 = v.reshape(B * H, L, D).contiguous()
    o = torch.empty(B * H, L, D, device=q.device, dtype=torch.float32)
    _attn_probs_times_v[(triton.cdiv(L, 64), B * H)](p, v3, o, L, L, D, L * L, L * D, L * D,
                                                     BQ=64, BK=32, BD=triton.next_power_of_2(D))
    return o.view(B, H, L, D)


@triton.jit
def _gqa_expand(kv_in, kv_out, n_kv, group, T, D, BT: tl.constexpr, BD: tl.constexpr):
    # repeat each kv head `group` times: (B, n_kv, T, D) -> (B, n_kv*group, T, D)
    bo = tl.program_id(1)
    b = bo // (n_kv * group)
    ho = bo % (n_kv * group)
    hi = ho // group
    t = tl.program_id(0) * BT + tl.arange(0, BT)
    d = tl.arange(0, BD)
    m = (t[:, None] < T) & (d[None, :] < D)
    src = kv_in + ((b * n_kv + hi) * T + t[:, None]) * D + d[None, :]
    dst = kv_out + (bo * T + t[:, None]) * D + d[None, :]
    tl.store(dst, tl.load(src, mask=m), mask=m)


def repeat_kv(kv, group):
    B, n_kv, T, D = kv.shape
    out = torch.empty(B, n_kv * group, T, D, device=kv.device, dtype=kv.dtype)
    _gqa_expand[(triton.cdiv(T, 64), B * n_kv * group)](kv.contiguous(), out, n_kv, group, T, D,
                                                         BT=64, BD=triton.next_power_of_2(D))
    return out

@triton.jit
def _varlen_cu_to_batch(cu_seqlens, batch_of_token, n_seqs, BLOCK: tl.constexpr):
    """Expand cumulative sequence lengths into a per-token sequence id (packed layout)."""
    s = tl.program_id(0)
    lo = tl.load(cu_seqlens + s)
    hi = tl.load(cu_seqlens + s + 1)
    for t0 in range(lo, hi, BLOCK):
        t = t0 + tl.arange(0, BLOCK)
        tl.store(batch_of_token + t, tl.full([BLOCK], s, tl.int32), mask=t < hi)


def seq_ids_from_cu(cu_seqlens, total):
    out = torch.empty(total, device=cu_seqlens.device, dtype=torch.int32)
    n = cu_seqlens.numel() - 1
    _varlen_cu_to_batch[(n,)](cu_seqlens, out, n, BLOCK=256)
    return out


@triton.jit
def _attn_bwd_delta(o_ptr, do_ptr, delta_ptr, n_rows, HEAD: tl.constexpr, ROWS: tl.constexpr):
    # delta_i = sum_d O[i, d] * dO[i, d], the first step of the flash backward pass
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    d = tl.arange(0, HEAD)
    m = r[:, None] < n_rows
    o = tl.load(o_ptr + r[:, None] * HEAD + d[None, :], mask=m, other=0.).to(tl.float32)
    do = tl.load(do_ptr + r[:, None] * HEAD + d[None, :], mask=m, other=0.).to(tl.float32)
    tl.store(delta_ptr + r, tl.sum(o * do, axis=1), mask=r < n_rows)


def attn_bwd_delta(o, do):
    rows = o.numel() // o.shape[-1]
    delta = torch.empty(rows, device=o.device, dtype=torch.float32)
    _attn_bwd_delta[(triton.cdiv(rows, 64),)](o, do, delta, rows, HEAD=o.shape[-1], ROWS=64)
    return delta


@triton.jit
def _softcap_scores(s_ptr, n, cap, BLOCK: tl.constexpr):
    # Gemma-2 style logit soft-capping, in place: s = cap * tanh(s / cap)
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    s = tl.load(s_ptr + o, mask=m).to(tl.float32) / cap
    e = tl.exp(-2.0 * tl.abs(s))
    th = (1.0 - e) / (1.0 + e)
    th = tl.where(s < 0, -th, th)
    tl.store(s_ptr + o, cap * th, mask=m)


def softcap_(scores, cap=50.0):
    n = scores.numel()
    _softcap_scores[(triton.cdiv(n, 2048),)](scores, n, cap, BLOCK=2048)
    return scores


@triton.jit
def _split_kv_reduce(o_parts, lse_parts, o_out, n_splits, HD: tl.constexpr, MAX_SPLITS: tl.constexpr):
    """Reduce split-KV decode partials: o = sum_s w_s o_s with w_s = softmax(lse)_s."""
    r = tl.program_id(0)
    sp = tl.arange(0, MAX_SPLITS)
    sm = sp < n_splits
    lse = tl.load(lse_parts + r * MAX_SPLITS + sp, mask=sm, other=-float("inf"))
    w = tl.exp(lse - tl.max(lse, axis=0))
    w = w / tl.sum(w, axis=0)
    d = tl.arange(0, HD)
    parts = tl.load(o_parts + (r * MAX_SPLITS + sp[:, None]) * HD + d[None, :], mask=sm[:, None], other=0.)
    tl.store(o_out + r * HD + d, tl.sum(parts * w[:, None], axis=0))

# <<PLANT:attn_end>>
