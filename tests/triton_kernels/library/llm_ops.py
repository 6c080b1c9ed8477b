"""Kernels an LLM serving stack needs: rotary embeddings, KV-cache writes, attention, embeddings, quantisation.

A fixture of tests/test_triton_kernels.py (written for kvdata's tests; parsed, never run).
"""
import torch
import triton
import triton.language as tl
from triton import jit


@triton.jit
def apply_rotary_kernel(Q, Cos, Sin, seq_len, heads, sq_tok, sq_head, sc_tok, HALF: tl.constexpr,
                        TOKENS: tl.constexpr, INTERLEAVED: tl.constexpr):
    tb = tl.program_id(0)
    h = tl.program_id(1)
    tok = tb * TOKENS + tl.arange(0, TOKENS)
    d = tl.arange(0, HALF)
    valid = tok[:, None] < seq_len
    cos = tl.load(Cos + tok[:, None] * sc_tok + d[None, :], mask=valid, other=1.0)
    sin = tl.load(Sin + tok[:, None] * sc_tok + d[None, :], mask=valid, other=0.0)
    base = Q + tok[:, None] * sq_tok + h * sq_head
    if INTERLEAVED:
        lo_ptr = base + 2 * d[None, :]
        hi_ptr = base + 2 * d[None, :] + 1
    else:
        lo_ptr = base + d[None, :]
        hi_ptr = base + HALF + d[None, :]
    lo = tl.load(lo_ptr, mask=valid, other=0.0).to(tl.float32)
    hi = tl.load(hi_ptr, mask=valid, other=0.0).to(tl.float32)
    tl.store(lo_ptr, (lo * cos - hi * sin).to(Q.dtype.element_ty), mask=valid)
    tl.store(hi_ptr, (hi * cos + lo * sin).to(Q.dtype.element_ty), mask=valid)


@triton.jit
def write_kv_cache_kernel(K_new, V_new, K_cache, V_cache, slots, n_tokens, s_new_tok, s_new_head, s_cache_slot,
                          s_cache_head, HEADS: tl.constexpr, DIM: tl.constexpr):
    t = tl.program_id(0)
    slot = tl.load(slots + t)
    if slot < 0:
        return
    h = tl.arange(0, HEADS)
    d = tl.arange(0, DIM)
    src = t * s_new_tok + h[:, None] * s_new_head + d[None, :]
    dst = slot * s_cache_slot + h[:, None] * s_cache_head + d[None, :]
    tl.store(K_cache + dst, tl.load(K_new + src))
    tl.store(V_cache + dst, tl.load(V_new + src))


@triton.jit
def flash_attention_fwd(Q, K, V, O, LSE, sm_scale, seq_q, seq_k, s_qb, s_qh, s_qm, s_kb, s_kh, s_kn, s_vb, s_vh,
                        s_vn, s_ob, s_oh, s_om, H: tl.constexpr, D: tl.constexpr, BM: tl.constexpr,
                        BN: tl.constexpr, CAUSAL: tl.constexpr):
    mb = tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // H
    h = bh % H
    rm = mb * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    q = tl.load(Q + b * s_qb + h * s_qh + rm[:, None] * s_qm + rd[None, :], mask=rm[:, None] < seq_q, other=0.0)
    m_i = tl.full([BM], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    hi = tl.minimum(seq_k, (mb + 1) * BM) if CAUSAL else seq_k
    for n0 in range(0, hi, BN):
        rn = n0 + tl.arange(0, BN)
        k = tl.load(K + b * s_kb + h * s_kh + rn[None, :] * s_kn + rd[:, None], mask=rn[None, :] < seq_k, other=0.0)
        s = tl.dot(q, k) * sm_scale
        s = tl.where(rn[None, :] < seq_k, s, -float("inf"))
        if CAUSAL:
            s = tl.where(rm[:, None] >= rn[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        v = tl.load(V + b * s_vb + h * s_vh + rn[:, None] * s_vn + rd[None, :], mask=rn[:, None] < seq_k, other=0.0)
        acc += tl.dot(p.to(v.dtype), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(LSE + bh * seq_q + rm, m_i + tl.log(l_i), mask=rm < seq_q)
    tl.store(O + b * s_ob + h * s_oh + rm[:, None] * s_om + rd[None, :], acc.to(O.dtype.element_ty),
             mask=rm[:, None] < seq_q)


@triton.jit
def paged_decode_attention(Q, K_cache, V_cache, BlockTable, SeqLens, Out, sm_scale, s_q_seq, s_q_head,
                           s_bt_seq, s_kc_block, s_kc_head, s_kc_tok, s_o_seq, s_o_head, KV_GROUP: tl.constexpr,
                           PAGE: tl.constexpr, D: tl.constexpr):
    seq = tl.program_id(0)
    head = tl.program_id(1)
    kv_head = head // KV_GROUP
    length = tl.load(SeqLens + seq)
    rd = tl.arange(0, D)
    q = tl.load(Q + seq * s_q_seq + head * s_q_head + rd).to(tl.float32)
    m = -float("inf")
    l = 0.0
    acc = tl.zeros([D], dtype=tl.float32)
    for page in range(0, tl.cdiv(length, PAGE)):
        block = tl.load(BlockTable + seq * s_bt_seq + page)
        tok = page * PAGE + tl.arange(0, PAGE)
        off = block * s_kc_block + kv_head * s_kc_head + tl.arange(0, PAGE)[:, None] * s_kc_tok + rd[None, :]
        k = tl.load(K_cache + off, mask=tok[:, None] < length, other=0.0).to(tl.float32)
        scores = tl.sum(k * q[None, :], axis=1) * sm_scale
        scores = tl.where(tok < length, scores, -float("inf"))
        m_new = tl.maximum(m, tl.max(scores, axis=0))
        p = tl.exp(scores - m_new)
        corr = tl.exp(m - m_new)
        v = tl.load(V_cache + off, mask=tok[:, None] < length, other=0.0).to(tl.float32)
        acc = acc * corr + tl.sum(p[:, None] * v, axis=0)
        l = l * corr + tl.sum(p, axis=0)
        m = m_new
    tl.store(Out + seq * s_o_seq + head * s_o_head + rd, (acc / l).to(Out.dtype.element_ty))


@triton.jit
def embedding_lookup_kernel(Ids, Table, Out, n_ids, dim, s_table, s_out, vocab_start, vocab_end,
                            DIM_BLOCK: tl.constexpr):
    i = tl.program_id(0)
    c = tl.program_id(1) * DIM_BLOCK + tl.arange(0, DIM_BLOCK)
    tok = tl.load(Ids + i)
    inside = (tok >= vocab_start) & (tok < vocab_end)
    row = tl.where(inside, tok - vocab_start, 0)
    vals = tl.load(Table + row * s_table + c, mask=(c < dim) & inside, other=0.0)
    tl.store(Out + i * s_out + c, vals, mask=c < dim)


@triton.jit
def gather_rows_kernel(Src, Index, Dst, n_cols, s_src, s_dst, COLS: tl.constexpr):
    r = tl.program_id(0)
    src_row = tl.load(Index + r).to(tl.int64)
    for c0 in range(0, n_cols, COLS):
        c = c0 + tl.arange(0, COLS)
        v = tl.load(Src + src_row * s_src + c, mask=c < n_cols)
        tl.store(Dst + r * s_dst + c, v, mask=c < n_cols)


@triton.jit
def scatter_add_rows_kernel(Src, Index, Dst, n_cols, s_src, s_dst, COLS: tl.constexpr):
    r = tl.program_id(0)
    dst_row = tl.load(Index + r).to(tl.int64)
    c = tl.program_id(1) * COLS + tl.arange(0, COLS)
    v = tl.load(Src + r * s_src + c, mask=c < n_cols, other=0.0)
    tl.atomic_add(Dst + dst_row * s_dst + c, v, mask=c < n_cols)


@triton.jit
def quantize_int8_rowwise(X, Q, Scale, n_cols, s_x, s_q, COLS: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, COLS)
    keep = c < n_cols
    x = tl.load(X + r * s_x + c, mask=keep, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=0)
    scale = tl.maximum(amax, 1e-8) / 127.0
    q = tl.extra.cuda.libdevice.round(x / scale)
    tl.store(Q + r * s_q + c, q.to(tl.int8), mask=keep)
    tl.store(Scale + r, scale)


@triton.jit
def dequantize_int8_rowwise(Q, Scale, Y, n_cols, s_q, s_y, COLS: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, COLS)
    keep = c < n_cols
    q = tl.load(Q + r * s_q + c, mask=keep, other=0)
    s = tl.load(Scale + r)
    tl.store(Y + r * s_y + c, (q.to(tl.float32) * s).to(Y.dtype.element_ty), mask=keep)


@jit
def fp8_cast_per_tensor(X, Y, amax_ptr, numel, FP8_MAX: tl.constexpr, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    keep = idx < numel
    scale = FP8_MAX / tl.maximum(tl.load(amax_ptr), 1e-12)
    x = tl.load(X + idx, mask=keep, other=0.0).to(tl.float32)
    y = tl.clamp(x * scale, -FP8_MAX, FP8_MAX)
    tl.store(Y + idx, y.to(Y.dtype.element_ty), mask=keep)


@triton.jit
def top1_router_kernel(Logits, Expert, Weight, n_experts, s_tok, E: tl.constexpr):
    t = tl.program_id(0)
    e = tl.arange(0, E)
    z = tl.load(Logits + t * s_tok + e, mask=e < n_experts, other=-float("inf")).to(tl.float32)
    z = z - tl.max(z, axis=0)
    p = tl.exp(z)
    p = p / tl.sum(p, axis=0)
    best = tl.argmax(p, axis=0)
    tl.store(Expert + t, best.to(tl.int32))
    tl.store(Weight + t, tl.max(p, axis=0))


@triton.jit
def causal_mask_fill_kernel(Scores, rows, cols, stride, offset, fill, TR: tl.constexpr, TC: tl.constexpr):
    r = tl.program_id(0) * TR + tl.arange(0, TR)
    c = tl.program_id(1) * TC + tl.arange(0, TC)
    ptr = Scores + r[:, None] * stride + c[None, :]
    inside = (r[:, None] < rows) & (c[None, :] < cols)
    s = tl.load(ptr, mask=inside, other=0.0)
    s = tl.where(c[None, :] > r[:, None] + offset, fill, s)
    tl.store(ptr, s, mask=inside)


def apply_rotary(q, cos, sin, interleaved=False):
    seq_len, heads, dim = q.shape
    grid = (triton.cdiv(seq_len, 16), heads)
    apply_rotary_kernel[grid](q, cos, sin, seq_len, heads, q.stride(0), q.stride(1), cos.stride(0), HALF=dim // 2,
                              TOKENS=16, INTERLEAVED=interleaved)
    return q


def attention(q, k, v, causal=False):
    batch, heads, seq_q, dim = q.shape
    seq_k = k.shape[2]
    o = torch.empty_like(q)
    lse = torch.empty((batch * heads, seq_q), device=q.device, dtype=torch.float32)
    grid = (triton.cdiv(seq_q, 64), batch * heads)
    flash_attention_fwd[grid](q, k, v, o, lse, dim ** -0.5, seq_q, seq_k, *q.stride()[:3], *k.stride()[:3],
                              *v.stride()[:3], *o.stride()[:3], H=heads, D=dim, BM=64, BN=64, CAUSAL=causal)
    return o


def quantize_rowwise(x):
    rows, cols = x.shape
    q = torch.empty_like(x, dtype=torch.int8)
    scale = torch.empty(rows, device=x.device, dtype=torch.float32)
    quantize_int8_rowwise[(rows,)](x, q, scale, cols, x.stride(0), q.stride(0), COLS=triton.next_power_of_2(cols))
    return q, scale
