"""
Rotary position embeddings (RoPE) and friends.

Layouts
-------
``x``   : (tokens, heads, head_dim)  -- packed, no padding
``cos`` : (max_pos, rot_dim // 2)
``sin`` : (max_pos, rot_dim // 2)
``pos`` : (tokens,) int32/int64 position of each token

Two pairing conventions exist in the wild:

* "half"        -- element i pairs with i + rot_dim/2   (GPT-NeoX / Llama)
* "interleaved" -- element 2i pairs with 2i + 1         (GPT-J)
"""
from typing import Optional

import torch
import triton
import triton.language as tl


@triton.jit
def rope_cache_kernel(cos_out, sin_out, inv_freq, max_pos, HALF: tl.constexpr, BP: tl.constexpr):
    """Precompute cos/sin tables for positions [0, max_pos)."""
    p = tl.program_id(0) * BP + tl.arange(0, BP)
    f = tl.arange(0, HALF)
    fr = tl.load(inv_freq + f)
    ang = p[:, None].to(tl.float32) * fr[None, :]
    m = p[:, None] < max_pos
    tl.store(cos_out + p[:, None] * HALF + f[None, :], tl.cos(ang), mask=m)
    tl.store(sin_out + p[:, None] * HALF + f[None, :], tl.sin(ang), mask=m)


def rope_cache(rot_dim: int, max_pos: int, base: float = 10000.0, scaling: float = 1.0, device="cuda"):
    inv_freq = 1.0 / (base ** (torch.arange(0, rot_dim, 2, device=device, dtype=torch.float32) / rot_dim))
    inv_freq = inv_freq / scaling
    half = rot_dim // 2
    cos = torch.empty(max_pos, half, device=device, dtype=torch.float32)
    sin = torch.empty_like(cos)
    rope_cache_kernel[(triton.cdiv(max_pos, 32),)](cos, sin, inv_freq, max_pos, HALF=half, BP=32)
    return cos, sin


# <<PLANT:rope_top>>


@triton.jit
def rope_half_kernel(
    x, cos, sin, pos,
    stride_tok, stride_head,
    n_heads,
    HALF: tl.constexpr,
    HEADS_PER_PROG: tl.constexpr,
    BACKWARD: tl.constexpr,
):
    # in-place rotation of the first 2*HALF channels, NeoX pairing
    t = tl.program_id(0)
    hb = tl.program_id(1)
    h = hb * HEADS_PER_PROG + tl.arange(0, HEADS_PER_PROG)
    hm = h < n_heads
    j = tl.arange(0, HALF)
    p = tl.load(pos + t)
    c = tl.load(cos + p * HALF + j)
    s = tl.load(sin + p * HALF + j)
    if BACKWARD:
        s = -s
    base = x + t * stride_tok + h[:, None] * stride_head
    a = tl.load(base + j[None, :], mask=hm[:, None], other=0.).to(tl.float32)
    b = tl.load(base + HALF + j[None, :], mask=hm[:, None], other=0.).to(tl.float32)
    ra = a * c[None, :] - b * s[None, :]
    rb = b * c[None, :] + a * s[None, :]
    tl.store(base + j[None, :], ra.to(x.dtype.element_ty), mask=hm[:, None])
    tl.store(base + HALF + j[None, :], rb.to(x.dtype.element_ty), mask=hm[:, None])


def apply_rope_(x: torch.Tensor, cos, sin, pos, backward: bool = False):
    T, H, D = x.shape
    half = cos.shape[1]
    hpp = min(triton.next_power_of_2(H), 8)
    rope_half_kernel[(T, triton.cdiv(H, hpp))](x, cos, sin, pos, x.stride(0), x.stride(1), H,
                                               HALF=half, HEADS_PER_PROG=hpp, BACKWARD=backward)
    return x


@triton.jit
def rope_interleaved_kernel(x_ptr, out_ptr, cos_ptr, sin_ptr, pos_ptr, n_heads, head_dim,
                            HALF: tl.constexpr):
    """GPT-J style: (x[2i], x[2i+1]) rotated by angle_i; out-of-place."""
    t = tl.program_id(0)
    h = tl.program_id(1)
    i = tl.arange(0, HALF)
    p = tl.load(pos_ptr + t)
    c = tl.load(cos_ptr + p * HALF + i)
    s = tl.load(sin_ptr + p * HALF + i)
    row = (t * n_heads + h) * head_dim
    ev = tl.load(x_ptr + row + 2 * i).to(tl.float32)
    od = tl.load(x_ptr + row + 2 * i + 1).to(tl.float32)
    tl.store(out_ptr + row + 2 * i, ev * c - od * s)
    tl.store(out_ptr + row + 2 * i + 1, od * c + ev * s)
    # pass through channels beyond the rotary part
    rest = 2 * HALF + tl.arange(0, HALF * 2)
    tail = tl.load(x_ptr + row + rest, mask=rest < head_dim, other=0.)
    tl.store(out_ptr + row + rest, tail, mask=rest < head_dim)


def rope_interleaved(x, cos, sin, pos):
    T, H, D = x.shape
    out = torch.empty_like(x, dtype=torch.float32)
    rope_interleaved_kernel[(T, H)](x.contiguous(), out, cos, sin, pos, H, D, HALF=cos.shape[1])
    return out


@triton.jit
def rope_qk_fused_kernel(q, k, cos, sin, pos, sq_t, sq_h, sk_t, sk_h, HQ, HK,
                         HALF: tl.constexpr, BHQ: tl.constexpr, BHK: tl.constexpr):
    # rotate q (HQ heads) and k (HK heads, GQA) for one token in a single launch
    t = tl.program_id(0)
    j = tl.arange(0, HALF)
    p = tl.load(pos + t)
    c = tl.load(cos + p * HALF + j)[None, :]
    s = tl.load(sin + p * HALF + j)[None, :]
    hq = tl.arange(0, BHQ)
    qb = q + t * sq_t + hq[:, None] * sq_h
    mq = hq[:, None] < HQ
    q1 = tl.load(qb + j[None, :], mask=mq, other=0.).to(tl.float32)
    q2 = tl.load(qb + HALF + j[None, :], mask=mq, other=0.).to(tl.float32)
    tl.store(qb + j[None, :], (q1 * c - q2 * s).to(q.dtype.element_ty), mask=mq)
    tl.store(qb + HALF + j[None, :], (q2 * c + q1 * s).to(q.dtype.element_ty), mask=mq)
    hk = tl.arange(0, BHK)
    kb = k + t * sk_t + hk[:, None] * sk_h
    mk = hk[:, None] < HK
    k1 = tl.load(kb + j[None, :], mask=mk, other=0.).to(tl.float32)
    k2 = tl.load(kb + HALF + j[None, :], mask=mk, other=0.).to(tl.float32)
    tl.store(kb + j[None, :], (k1 * c - k2 * s).to(k.dtype.element_ty), mask=mk)
    tl.store(kb + HALF + j[None, :], (k2 * c + k1 * s).to(k.dtype.element_ty), mask=mk)


def rope_qk_(q, k, cos, sin, pos):
    T, HQ, _ = q.shape
    HK = k.shape[1]
    rope_qk_fused_kernel[(T,)](q, k, cos, sin, pos, q.stride(0), q.stride(1), k.stride(0), k.stride(1),
                               HQ, HK, HALF=cos.shape[1], BHQ=triton.next_power_of_2(HQ),
                               BHK=triton.next_power_of_2(HK))
    return q, k


# <<PLANT:rope_mid>>


@triton.jit
def ntk_inv_freq_kernel(out, rot_dim, base, alpha, HALF: tl.constexpr):
    """NTK-aware scaled inverse frequencies: base' = base * alpha^(d/(d-2))."""
    i = tl.arange(0, HALF)
    d = rot_dim.to(tl.float32)
    new_base = base * tl.exp(tl.log(alpha) * d / (d - 2.0))
    expo = (2 * i).to(tl.float32) / d
    tl.store(out + i, tl.exp(-expo * tl.log(new_base)))


@triton.jit
def yarn_ramp_kernel(inv_freq, out, low, high, extrap, HALF: tl.constexpr):
    # blend interpolated / extrapolated frequencies with a linear ramp between low and high
    i = tl.arange(0, HALF)
    f = tl.load(inv_freq + i)
    r = (i.to(tl.float32) - low) / tl.maximum(high - low, 1e-3)
    r = tl.minimum(tl.maximum(r, 0.0), 1.0)
    tl.store(out + i, f / extrap * r + f * (1.0 - r))


def ntk_inv_freq(rot_dim, base=10000.0, alpha=2.0, device="cuda"):
    out = torch.empty(rot_dim // 2, device=device, dtype=torch.float32)
    ntk_inv_freq_kernel[(1,)](out, rot_dim, base, alpha, HALF=rot_dim // 2)
    return out


def yarn_inv_freq(inv_freq, low, high, factor):
    out = torch.empty_like(inv_freq)
    yarn_ramp_kernel[(1,)](inv_freq, out, float(low), float(high), float(factor), HALF=inv_freq.numel())
    return out


@triton.jit
def rope_2d_kernel(x_ptr, out_ptr, h_pos, w_pos, freq_ptr, n_heads, QUARTER: tl.constexpr):
    """Axial 2-D RoPE for image patches: first half of the channels rotated by the
    row index, second half by the column index."""
    t = tl.program_id(0)
    h = tl.program_id(1)
    i = tl.arange(0, QUARTER)
    fr = tl.load(freq_ptr + i)
    ph = tl.load(h_pos + t).to(tl.float32)
    pw = tl.load(w_pos + t).to(tl.float32)
    D = 4 * QUARTER
    row = (t * n_heads + h) * D
    for part in tl.static_range(2):
        ang = fr * (ph if part == 0 else pw)
        c = tl.cos(ang)
        s = tl.sin(ang)
        off = row + part * 2 * QUARTER
        a = tl.load(x_ptr + off + i).to(tl.float32)
        b = tl.load(x_ptr + off + QUARTER + i).to(tl.float32)
        tl.store(out_ptr + off + i, a * c - b * s)
        tl.store(out_ptr + off + QUARTER + i, b * c + a * s)


def rope_2d(x, h_pos, w_pos, base=100.0):
    T, H, D = x.shape
    q = D // 4
    freq = 1.0 / (base ** (torch.arange(q, device=x.device, dtype=torch.float32) / q))
    out = torch.empty_like(x, dtype=torch.float32)
    rope_2d_kernel[(T, H)](x.contiguous(), out, h_pos, w_pos, freq, H, QUARTER=q)
    return out


@triton.jit
def partial_rope_kernel(x_ptr, cos_ptr, sin_ptr, pos_ptr, stride_t, head_dim, n_heads,
                        ROT_HALF: tl.constexpr, BH: tl.constexpr):
    # rotate only the first 2*ROT_HALF of each head (e.g. 25% rotary in some GPT variants)
    t = tl.program_id(0)
    h = tl.arange(0, BH)
    hm = (h < n_heads)[:, None]
    j = tl.arange(0, ROT_HALF)[None, :]
    p = tl.load(pos_ptr + t)
    c = tl.load(cos_ptr + p * ROT_HALF + j)
    s = tl.load(sin_ptr + p * ROT_HALF + j)
    base = x_ptr + t * stride_t + h[:, None] * head_dim
    u = tl.load(base + j, mask=hm, other=0.).to(tl.float32)
    w = tl.load(base + ROT_HALF + j, mask=hm, other=0.).to(tl.float32)
    tl.store(base + j, (u * c - w * s).to(x_ptr.dtype.element_ty), mask=hm)
    tl.store(base + ROT_HALF + j, (w * c + u * s).to(x_ptr.dtype.element_ty), mask=hm)


def partial_rope_(x, cos, sin, pos, rot_fraction: Optional[float] = None):
    T, H, D = x.shape
    partial_rope_kernel[(T,)](x, cos, sin, pos, x.stride(0), D, H, ROT_HALF=cos.shape[1],
                              BH=triton.next_power_of_2(H))
    return x

@triton.jit
def rope_cos_sin_gather_kernel(cos_tab, sin_tab, pos, cos_out, sin_out, n_tok, HALF: tl.constexpr, BT: tl.constexpr):
    """Gather per-token cos/sin rows once so several rotary launches can share them."""
    t = tl.program_id(0) * BT + tl.arange(0, BT)
    tm = (t < n_tok)[:, None]
    j = tl.arange(0, HALF)[None, :]
    p = tl.load(pos + t, mask=t < n_tok, other=0)[:, None]
    tl.store(cos_out + t[:, None] * HALF + j, tl.load(cos_tab + p * HALF + j, mask=tm), mask=tm)
    tl.store(sin_out + t[:, None] * HALF + j, tl.load(sin_tab + p * HALF + j, mask=tm), mask=tm)


def gather_cos_sin(cos, sin, pos):
    n, half = pos.numel(), cos.shape[1]
    c = torch.empty(n, half, device=cos.device, dtype=cos.dtype)
    s = torch.empty_like(c)
    rope_cos_sin_gather_kernel[(triton.cdiv(n, 16),)](cos, sin, pos, c, s, n, HALF=half, BT=16)
    return c, s


@triton.jit
def rope_bshd_kernel(x_ptr, cos_ptr, sin_ptr, S, H, stride_b, stride_s, stride_h,
                     HALF: tl.constexpr, BH: tl.constexpr, CONJ: tl.constexpr):
    # padded (batch, seq, heads, dim) layout; position = sequence index
    b = tl.program_id(0)
    s_idx = tl.program_id(1)
    h = tl.arange(0, BH)
    j = tl.arange(0, HALF)
    hm = (h < H)[:, None]
    c = tl.load(cos_ptr + s_idx * HALF + j)[None, :]
    sn = tl.load(sin_ptr + s_idx * HALF + j)[None, :]
    if CONJ:
        sn = -sn
    base = x_ptr + b * stride_b + s_idx * stride_s + h[:, None] * stride_h
    lo = tl.load(base + j[None, :], mask=hm, other=0.).to(tl.float32)
    hi = tl.load(base + HALF + j[None, :], mask=hm, other=0.).to(tl.float32)
    tl.store(base + j[None, :], (lo * c - hi * sn).to(x_ptr.dtype.element_ty), mask=hm)
    tl.store(base + HALF + j[None, :], (hi * c + lo * sn).to(x_ptr.dtype.element_ty), mask=hm)


def rope_bshd_(x, cos, sin, inverse=False):
    B, S, H, D = x.shape
    rope_bshd_kernel[(B, S)](x, cos, sin, S, H, x.stride(0), x.stride(1), x.stride(2),
                             HALF=cos.shape[1], BH=triton.next_power_of_2(H), CONJ=inverse)
    return x


def linear_scaled_cache(rot_dim, max_pos, factor, base=10000.0, device="cuda"):
    """Position-interpolation variant: positions are divided by ``factor``."""
    return rope_cache(rot_dim, max_pos, base=base, scaling=factor, device=device)

@triton.jit
def mrope_section_select_kernel(pos3, pos_out, n_tok, S0: tl.constexpr, S1: tl.constexpr, HALF: tl.constexpr):
    # multimodal RoPE: frequency slot j uses the temporal/height/width position by section
    t = tl.program_id(0)
    j = tl.arange(0, HALF)
    which = tl.where(j < S0, 0, tl.where(j < S0 + S1, 1, 2))
    p = tl.load(pos3 + which * n_tok + t)
    tl.store(pos_out + t * HALF + j, p)


def mrope_positions(pos3, sections):
    n = pos3.shape[1]
    half = sum(sections)
    out = torch.empty(n, half, device=pos3.device, dtype=pos3.dtype)
    mrope_section_select_kernel[(n,)](pos3, out, n, S0=sections[0], S1=sections[1], HALF=half)
    return out

# <<PLANT:rope_end>>
