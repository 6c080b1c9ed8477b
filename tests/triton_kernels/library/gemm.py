"""Matrix products: tiled GEMM with epilogues, batched, split-K, weight-only int8, GEMV, transposes.

A fixture of tests/test_triton_kernels.py (written for kvdata's tests; parsed, never run).
"""
import torch
import triton
import triton.language as tl


def _configs():
    out = []
    for bm, bn, bk, stages, warps in [(128, 128, 32, 3, 8), (64, 128, 32, 4, 4), (128, 64, 64, 4, 4),
                                      (64, 64, 32, 5, 2)]:
        out.append(triton.Config({"TM": bm, "TN": bn, "TK": bk, "SWIZZLE": 8}, num_stages=stages, num_warps=warps))
    return out


@triton.jit
def _tile_coords(pid, M, N, TM: tl.constexpr, TN: tl.constexpr, SWIZZLE: tl.constexpr):
    tiles_m = tl.cdiv(M, TM)
    tiles_n = tl.cdiv(N, TN)
    per_band = SWIZZLE * tiles_n
    band = pid // per_band
    first_m = band * SWIZZLE
    band_rows = min(tiles_m - first_m, SWIZZLE)
    tm = first_m + (pid % per_band) % band_rows
    tn = (pid % per_band) // band_rows
    return tm, tn


@triton.autotune(configs=_configs(), key=["M", "N", "K"])
@triton.jit
def gemm_kernel(A, B, C, M, N, K, sam, sak, sbk, sbn, scm, scn,
                TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr, SWIZZLE: tl.constexpr):
    tm, tn = _tile_coords(tl.program_id(0), M, N, TM, TN, SWIZZLE)
    rm = (tm * TM + tl.arange(0, TM)) % M
    rn = (tn * TN + tl.arange(0, TN)) % N
    rk = tl.arange(0, TK)
    a_tile = A + rm[:, None] * sam + rk[None, :] * sak
    b_tile = B + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, TK)):
        left = K - kk * TK
        a = tl.load(a_tile, mask=rk[None, :] < left, other=0.0)
        b = tl.load(b_tile, mask=rk[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += TK * sak
        b_tile += TK * sbk
    cm = tm * TM + tl.arange(0, TM)
    cn = tn * TN + tl.arange(0, TN)
    out = C + cm[:, None] * scm + cn[None, :] * scn
    tl.store(out, acc.to(C.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def gemm_bias_act_kernel(A, B, Bias, C, M, N, K, sam, sak, sbk, sbn, scm, scn, HAS_BIAS: tl.constexpr,
                         ACT: tl.constexpr, TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr):
    tm = tl.program_id(0)
    tn = tl.program_id(1)
    rm = tm * TM + tl.arange(0, TM)
    rn = tn * TN + tl.arange(0, TN)
    rk = tl.arange(0, TK)
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for k0 in range(0, K, TK):
        a = tl.load(A + rm[:, None] * sam + (k0 + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(B + (k0 + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    if HAS_BIAS:
        acc += tl.load(Bias + rn, mask=rn < N, other=0.0)[None, :].to(tl.float32)
    if ACT == 1:
        acc = tl.maximum(acc, 0.0)
    elif ACT == 2:
        acc = acc * tl.sigmoid(1.702 * acc)
    tl.store(C + rm[:, None] * scm + rn[None, :] * scn, acc.to(C.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def bmm_kernel(A, B, C, M, N, K, sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
               TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr):
    batch = tl.program_id(2)
    rm = tl.program_id(0) * TM + tl.arange(0, TM)
    rn = tl.program_id(1) * TN + tl.arange(0, TN)
    A += batch * sab
    B += batch * sbb
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for k0 in range(0, K, TK):
        rk = k0 + tl.arange(0, TK)
        a = tl.load(A + rm[:, None] * sam + rk[None, :] * sak, mask=(rm[:, None] < M) & (rk[None, :] < K),
                    other=0.0)
        b = tl.load(B + rk[:, None] * sbk + rn[None, :] * sbn, mask=(rk[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b)
    tl.store(C + batch * scb + rm[:, None] * scm + rn[None, :] * scn, acc.to(C.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def split_k_gemm_kernel(A, B, C, M, N, K, sam, sak, sbk, sbn, scm, scn, TM: tl.constexpr, TN: tl.constexpr,
                        TK: tl.constexpr, SPLITS: tl.constexpr):
    tm = tl.program_id(0)
    tn = tl.program_id(1)
    part = tl.program_id(2)
    rm = tm * TM + tl.arange(0, TM)
    rn = tn * TN + tl.arange(0, TN)
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for k0 in range(part * TK, K, TK * SPLITS):
        rk = k0 + tl.arange(0, TK)
        a = tl.load(A + rm[:, None] * sam + rk[None, :] * sak, mask=(rm[:, None] < M) & (rk[None, :] < K),
                    other=0.0)
        b = tl.load(B + rk[:, None] * sbk + rn[None, :] * sbn, mask=(rk[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b)
    tl.atomic_add(C + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def int8_weight_gemm_kernel(A, Wq, Scales, C, M, N, K, sam, sak, swk, swn, scm, scn, TM: tl.constexpr,
                            TN: tl.constexpr, TK: tl.constexpr):
    rm = tl.program_id(0) * TM + tl.arange(0, TM)
    rn = tl.program_id(1) * TN + tl.arange(0, TN)
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for k0 in range(0, K, TK):
        rk = k0 + tl.arange(0, TK)
        a = tl.load(A + rm[:, None] * sam + rk[None, :] * sak, mask=(rm[:, None] < M) & (rk[None, :] < K),
                    other=0.0)
        w = tl.load(Wq + rk[:, None] * swk + rn[None, :] * swn, mask=(rk[:, None] < K) & (rn[None, :] < N),
                    other=0)
        acc += tl.dot(a, w.to(a.dtype))
    scale = tl.load(Scales + rn, mask=rn < N, other=1.0)
    acc = acc * scale[None, :]
    tl.store(C + rm[:, None] * scm + rn[None, :] * scn, acc.to(C.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def gemv_kernel(Mat, Vec, Out, rows, cols, stride_r, TR: tl.constexpr, TC: tl.constexpr):
    r = tl.program_id(0) * TR + tl.arange(0, TR)
    acc = tl.zeros([TR], dtype=tl.float32)
    for c0 in range(0, cols, TC):
        c = c0 + tl.arange(0, TC)
        m = tl.load(Mat + r[:, None] * stride_r + c[None, :], mask=(r[:, None] < rows) & (c[None, :] < cols),
                    other=0.0)
        v = tl.load(Vec + c, mask=c < cols, other=0.0)
        acc += tl.sum(m.to(tl.float32) * v[None, :].to(tl.float32), axis=1)
    tl.store(Out + r, acc.to(Out.dtype.element_ty), mask=r < rows)


@triton.jit
def outer_product_kernel(U, V, Out, m, n, stride_o, TM: tl.constexpr, TN: tl.constexpr):
    i = tl.program_id(0) * TM + tl.arange(0, TM)
    j = tl.program_id(1) * TN + tl.arange(0, TN)
    u = tl.load(U + i, mask=i < m, other=0.0)
    v = tl.load(V + j, mask=j < n, other=0.0)
    tl.store(Out + i[:, None] * stride_o + j[None, :], u[:, None] * v[None, :],
             mask=(i[:, None] < m) & (j[None, :] < n))


@triton.jit
def transpose_kernel(Src, Dst, rows, cols, s_src, s_dst, TR: tl.constexpr, TC: tl.constexpr):
    r = tl.program_id(0) * TR + tl.arange(0, TR)
    c = tl.program_id(1) * TC + tl.arange(0, TC)
    tile = tl.load(Src + r[:, None] * s_src + c[None, :], mask=(r[:, None] < rows) & (c[None, :] < cols))
    tl.store(Dst + c[:, None] * s_dst + r[None, :], tl.trans(tile), mask=(c[:, None] < cols) & (r[None, :] < rows))


@triton.jit
def block_ptr_gemm_kernel(A, B, C, M, N, K, sam, sak, sbk, sbn, scm, scn, TM: tl.constexpr, TN: tl.constexpr,
                          TK: tl.constexpr):
    tm = tl.program_id(0)
    tn = tl.program_id(1)
    a_blk = tl.make_block_ptr(A, (M, K), (sam, sak), (tm * TM, 0), (TM, TK), (1, 0))
    b_blk = tl.make_block_ptr(B, (K, N), (sbk, sbn), (0, tn * TN), (TK, TN), (1, 0))
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for _ in range(0, K, TK):
        acc += tl.dot(tl.load(a_blk, boundary_check=(0, 1)), tl.load(b_blk, boundary_check=(0, 1)))
        a_blk = tl.advance(a_blk, (0, TK))
        b_blk = tl.advance(b_blk, (TK, 0))
    c_blk = tl.make_block_ptr(C, (M, N), (scm, scn), (tm * TM, tn * TN), (TM, TN), (1, 0))
    tl.store(c_blk, acc.to(C.dtype.element_ty), boundary_check=(0, 1))


def gemm(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["TM"]) * triton.cdiv(N, meta["TN"]),)
    gemm_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                      c.stride(1))
    return c


def linear(x, weight, bias=None, act=0):
    M, K = x.shape
    N = weight.shape[0]
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    gemm_bias_act_kernel[grid](x, weight, bias if bias is not None else x, out, M, N, K, x.stride(0), x.stride(1),
                               weight.stride(1), weight.stride(0), out.stride(0), out.stride(1),
                               HAS_BIAS=bias is not None, ACT=act, TM=64, TN=64, TK=32)
    return out


def bmm(a, b):
    batch, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((batch, M, N), device=a.device, dtype=a.dtype)
    bmm_kernel[(triton.cdiv(M, 64), triton.cdiv(N, 64), batch)](a, b, c, M, N, K, *a.stride(), *b.stride(),
                                                               *c.stride(), TM=64, TN=64, TK=32)
    return c


def gemv(mat, vec):
    rows, cols = mat.shape
    out = torch.empty(rows, device=mat.device, dtype=mat.dtype)
    gemv_kernel[(triton.cdiv(rows, 64),)](mat, vec, out, rows, cols, mat.stride(0), TR=64, TC=128)
    return out
