"""Quantisation helpers: int8 / int4 / fp8 packing and the matching dequant paths.

Scales are always float32.  "absmax" scaling maps max|x| to 127 (int8) or 7 (int4).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def absmax_rows_int8_kernel(src_ptr, q_ptr, scale_ptr, n_cols, COLS_POW2: tl.constexpr):
    # row-wise symmetric int8: q = round(127 * x / max|x|), scale = max|x| / 127
    row = tl.program_id(0)
    c = tl.arange(0, COLS_POW2)
    in_row = c < n_cols
    v = tl.load(src_ptr + row * n_cols + c, mask=in_row, other=0.0).to(tl.float32)
    amax = tl.max(tl.where(in_row, tl.abs(v), 0.0), axis=0)
    amax = tl.maximum(amax, 1e-8)
    inv = 127.0 / amax
    q = v * inv
    q = tl.where(q >= 0, q + 0.5, q - 0.5).to(tl.int8)
    tl.store(q_ptr + row * n_cols + c, q, mask=in_row)
    tl.store(scale_ptr + row, amax / 127.0)


def quantize_rows_int8(x: torch.Tensor):
    """Return ``(q, scale)`` with ``x ~= q * scale[:, None]``."""
    x = x.contiguous()
    rows, cols = x.shape
    q = torch.empty_like(x, dtype=torch.int8)
    s = torch.empty(rows, device=x.device, dtype=torch.float32)
    absmax_rows_int8_kernel[(rows,)](x, q, s, cols, COLS_POW2=triton.next_power_of_2(cols))
    return q, s


@triton.jit
def dequant_rows_int8_kernel(q_ptr, scale_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cb = tl.program_id(1)
    c = cb * BLOCK + tl.arange(0, BLOCK)
    m = c < n_cols
    q = tl.load(q_ptr + row * n_cols + c, mask=m, other=0).to(tl.float32)
    s = tl.load(scale_ptr + row)
    tl.store(out_ptr + row * n_cols + c, (q * s).to(out_ptr.dtype.element_ty), mask=m)


def dequantize_rows_int8(q, scale, dtype=torch.float16):
    rows, cols = q.shape
    out = torch.empty(rows, cols, device=q.device, dtype=dtype)
    dequant_rows_int8_kernel[(rows, triton.cdiv(cols, 1024))](q, scale, out, cols, BLOCK=1024)
    return out


# <<PLANT:q_top>>


@triton.jit
def group_quant_int4_kernel(x_ptr, packed_ptr, scale_ptr, zero_ptr, n_groups, GROUP: tl.constexpr):
    """Asymmetric 4-bit quantisation in groups of GROUP values, two nibbles per byte."""
    g = tl.program_id(0)
    half = tl.arange(0, GROUP // 2)
    lo_v = tl.load(x_ptr + g * GROUP + 2 * half).to(tl.float32)
    hi_v = tl.load(x_ptr + g * GROUP + 2 * half + 1).to(tl.float32)
    vmin = tl.minimum(tl.min(lo_v, axis=0), tl.min(hi_v, axis=0))
    vmax = tl.maximum(tl.max(lo_v, axis=0), tl.max(hi_v, axis=0))
    scale = tl.maximum(vmax - vmin, 1e-6) / 15.0
    zero = -vmin / scale
    ql = tl.minimum(tl.maximum(lo_v / scale + zero + 0.5, 0.0), 15.0).to(tl.uint8)
    qh = tl.minimum(tl.maximum(hi_v / scale + zero + 0.5, 0.0), 15.0).to(tl.uint8)
    tl.store(packed_ptr + g * (GROUP // 2) + half, ql | (qh << 4))
    tl.store(scale_ptr + g, scale)
    tl.store(zero_ptr + g, zero)


@triton.jit
def group_dequant_int4_kernel(packed_ptr, scale_ptr, zero_ptr, out_ptr, GROUP: tl.constexpr):
    g = tl.program_id(0)
    half = tl.arange(0, GROUP // 2)
    byte = tl.load(packed_ptr + g * (GROUP // 2) + half)
    s = tl.load(scale_ptr + g)
    z = tl.load(zero_ptr + g)
    lo = (byte & 0xF).to(tl.float32)
    hi = ((byte >> 4) & 0xF).to(tl.float32)
    tl.store(out_ptr + g * GROUP + 2 * half, (lo - z) * s)
    tl.store(out_ptr + g * GROUP + 2 * half + 1, (hi - z) * s)


def quantize_int4(x: torch.Tensor, group: int = 64):
    flat = x.reshape(-1).contiguous()
    assert flat.numel() % group == 0
    ng = flat.numel() // group
    packed = torch.empty(ng * group // 2, device=x.device, dtype=torch.uint8)
    scale = torch.empty(ng, device=x.device, dtype=torch.float32)
    zero = torch.empty_like(scale)
    group_quant_int4_kernel[(ng,)](flat, packed, scale, zero, ng, GROUP=group)
    return packed, scale, zero


def dequantize_int4(packed, scale, zero, group=64):
    ng = scale.numel()
    out = torch.empty(ng * group, device=packed.device, dtype=torch.float32)
    group_dequant_int4_kernel[(ng,)](packed, scale, zero, out, GROUP=group)
    return out


@triton.jit
def tensor_absmax_kernel(x_ptr, amax_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.abs(tl.load(x_ptr + o, mask=o < n, other=0.0).to(tl.float32))
    tl.atomic_max(amax_ptr, tl.max(v, axis=0))


@triton.jit
def cast_fp8_kernel(x_ptr, y_ptr, amax_ptr, n, FP8_MAX: tl.constexpr, BLOCK: tl.constexpr):
    # per-tensor scaled cast; the scale is recomputed from the reduced amax
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    amax = tl.maximum(tl.load(amax_ptr), 1e-12)
    s = FP8_MAX / amax
    v = tl.load(x_ptr + o, mask=m, other=0.0).to(tl.float32) * s
    v = tl.minimum(tl.maximum(v, -FP8_MAX), FP8_MAX)
    tl.store(y_ptr + o, v.to(y_ptr.dtype.element_ty), mask=m)


def to_fp8(x: torch.Tensor, dtype=torch.float8_e4m3fn):
    flat = x.reshape(-1).contiguous()
    n = flat.numel()
    amax = torch.zeros((), device=x.device, dtype=torch.float32)
    tensor_absmax_kernel[(triton.cdiv(n, 4096),)](flat, amax, n, BLOCK=4096)
    y = torch.empty(n, device=x.device, dtype=dtype)
    fmax = torch.finfo(dtype).max
    cast_fp8_kernel[(triton.cdiv(n, 2048),)](flat, y, amax, n, FP8_MAX=fmax, BLOCK=2048)
    return y.view(x.shape), amax / fmax


# <<PLANT:q_mid>>


@triton.jit
def stochastic_round_bf16_kernel(x_ptr, y_ptr, n, seed, BLOCK: tl.constexpr):
    """fp32 -> bf16 with stochastic rounding: add random low 16 bits, then truncate."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    v = tl.load(x_ptr + o, mask=m, other=0.0)
    bits = v.to(tl.int32, bitcast=True)
    noise = (tl.randint(seed, o) & 0xFFFF).to(tl.int32)
    rounded = (bits + noise) & -65536
    tl.store(y_ptr + o, rounded.to(tl.float32, bitcast=True).to(tl.bfloat16), mask=m)


@triton.jit
def block_quant_fp8_kernel(x_ptr, y_ptr, s_ptr, M, N, sxm, FP8_MAX: tl.constexpr,
                           BM: tl.constexpr, BN: tl.constexpr):
    # 2-D block scaling (BM x BN tiles), as used for fp8 weight storage
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    msk = (rm[:, None] < M) & (rn[None, :] < N)
    v = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :], mask=msk, other=0.0).to(tl.float32)
    amax = tl.maximum(tl.max(tl.max(tl.abs(v), axis=1), axis=0), 1e-12)
    s = amax / FP8_MAX
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], (v / s).to(y_ptr.dtype.element_ty), mask=msk)
    tl.store(s_ptr + pm * tl.cdiv(N, BN) + pn, s)


def block_quant_fp8(w, block=128, dtype=torch.float8_e4m3fn):
    M, N = w.shape
    y = torch.empty(M, N, device=w.device, dtype=dtype)
    s = torch.empty(triton.cdiv(M, block), triton.cdiv(N, block), device=w.device, dtype=torch.float32)
    block_quant_fp8_kernel[(triton.cdiv(M, block), triton.cdiv(N, block))](
        w, y, s, M, N, w.stride(0), FP8_MAX=torch.finfo(dtype).max, BM=block, BN=block)
    return y, s


@triton.jit
def per_token_group_quant_kernel(x_ptr, q_ptr, s_ptr, n_groups_row, GSIZE: tl.constexpr, QMAX: tl.constexpr):
    gid = tl.program_id(0)
    c = tl.arange(0, GSIZE)
    v = tl.load(x_ptr + gid * GSIZE + c).to(tl.float32)
    s = tl.maximum(tl.max(tl.abs(v), axis=0), 1e-10) / QMAX
    q = tl.floor(v / s + 0.5)
    tl.store(q_ptr + gid * GSIZE + c, q.to(q_ptr.dtype.element_ty))
    tl.store(s_ptr + gid, s)


def per_token_group_quant(x, group=128):
    rows, cols = x.shape
    assert cols % group == 0
    q = torch.empty_like(x, dtype=torch.int8)
    s = torch.empty(rows, cols // group, device=x.device, dtype=torch.float32)
    per_token_group_quant_kernel[(rows * cols // group,)](x.contiguous(), q, s, cols // group, GSIZE=group, QMAX=127.0)
    return q, s


@triton.jit
def column_scales_kernel(w_ptr, s_ptr, K, N, BK: tl.constexpr, BN: tl.constexpr):
    # per-output-channel absmax of a (K, N) weight, for int8 weight-only GEMM
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    best = tl.zeros([BN], tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        v = tl.load(w_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.)
        best = tl.maximum(best, tl.max(tl.abs(v.to(tl.float32)), axis=0))
    tl.store(s_ptr + rn, best / 127.0, mask=rn < N)


def weight_scales(w):
    K, N = w.shape
    s = torch.empty(N, device=w.device, dtype=torch.float32)
    column_scales_kernel[(triton.cdiv(N, 128),)](w, s, K, N, BK=64, BN=128)
    return s


@triton.jit
def fake_quant_kernel(x_ptr, y_ptr, scale, zero_point, qmin, qmax, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    v = tl.load(x_ptr + o, mask=m, other=0.0).to(tl.float32)
    q = tl.floor(v / scale + 0.5) + zero_point
    q = tl.minimum(tl.maximum(q, qmin), qmax)
    tl.store(y_ptr + o, (q - zero_point) * scale, mask=m)


def fake_quant(x, scale, zero_point=0, bits=8):
    y = torch.empty_like(x, dtype=torch.float32)
    n = x.numel()
    fake_quant_kernel[(triton.cdiv(n, 1024),)](x, y, scale, float(zero_point), 0.0, float(2 ** bits - 1), n, BLOCK=1024)
    return y

@triton.jit
def smooth_quant_scale_kernel(act_amax, w_amax, smooth_out, K, alpha, BLOCK: tl.constexpr):
    """SmoothQuant migration factors s_j = amax_x^alpha / amax_w^(1-alpha)."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < K
    ax = tl.maximum(tl.load(act_amax + o, mask=m, other=1.), 1e-5)
    aw = tl.maximum(tl.load(w_amax + o, mask=m, other=1.), 1e-5)
    s = tl.exp(alpha * tl.log(ax) - (1.0 - alpha) * tl.log(aw))
    tl.store(smooth_out + o, s, mask=m)


def smooth_scales(act_amax, w_amax, alpha=0.5):
    K = act_amax.numel()
    out = torch.empty(K, device=act_amax.device, dtype=torch.float32)
    smooth_quant_scale_kernel[(triton.cdiv(K, 1024),)](act_amax, w_amax, out, K, alpha, BLOCK=1024)
    return out


@triton.jit
def nf4_lookup_dequant_kernel(packed, absmax, code, out, n_bytes, BLOCKSIZE: tl.constexpr, BLOCK: tl.constexpr):
    # 4-bit NormalFloat: each nibble indexes a 16-entry code book, scaled per BLOCKSIZE values
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n_bytes
    byte = tl.load(packed + o, mask=m, other=0).to(tl.int32)
    hi = tl.load(code + ((byte >> 4) & 0xF), mask=m, other=0.)
    lo = tl.load(code + (byte & 0xF), mask=m, other=0.)
    s = tl.load(absmax + (2 * o) // BLOCKSIZE, mask=m, other=0.)
    tl.store(out + 2 * o, hi * s, mask=m)
    tl.store(out + 2 * o + 1, lo * s, mask=m)


def dequant_nf4(packed, absmax, code, blocksize=64):
    n = packed.numel()
    out = torch.empty(2 * n, device=packed.device, dtype=torch.float32)
    nf4_lookup_dequant_kernel[(triton.cdiv(n, 1024),)](packed, absmax, code, out, n, BLOCKSIZE=blocksize, BLOCK=1024)
    return out


@triton.jit
def pack_int4_pairs_kernel(q_ptr, out_ptr, n_pairs, BLOCK: tl.constexpr):
    # signed int4 in [-8, 7] stored two per byte, low nibble first
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n_pairs
    a = tl.load(q_ptr + 2 * o, mask=m, other=0).to(tl.int32) & 0xF
    b = tl.load(q_ptr + 2 * o + 1, mask=m, other=0).to(tl.int32) & 0xF
    tl.store(out_ptr + o, (a | (b << 4)).to(tl.uint8), mask=m)


@triton.jit
def unpack_int4_pairs_kernel(p_ptr, out_ptr, n_pairs, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n_pairs
    v = tl.load(p_ptr + o, mask=m, other=0).to(tl.int32)
    a = v & 0xF
    b = (v >> 4) & 0xF
    a = tl.where(a >= 8, a - 16, a)
    b = tl.where(b >= 8, b - 16, b)
    tl.store(out_ptr + 2 * o, a.to(tl.int8), mask=m)
    tl.store(out_ptr + 2 * o + 1, b.to(tl.int8), mask=m)


def pack_int4(q):
    flat = q.reshape(-1)
    n = flat.numel() // 2
    out = torch.empty(n, device=q.device, dtype=torch.uint8)
    pack_int4_pairs_kernel[(triton.cdiv(n, 1024),)](flat, out, n, BLOCK=1024)
    return out


def unpack_int4(p):
    n = p.numel()
    out = torch.empty(2 * n, device=p.device, dtype=torch.int8)
    unpack_int4_pairs_kernel[(triton.cdiv(n, 1024),)](p, out, n, BLOCK=1024)
    return out

# <<PLANT:q_end>>
