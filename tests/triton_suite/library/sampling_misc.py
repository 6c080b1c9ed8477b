# sampling_misc.py
#
# Odds and ends that do not deserve their own module: random masks, token
# embedding lookup, layout changes and logit processors used during decoding.
import torch
import triton
import triton.language as tl

__all__ = [
    "dropout_with_seed",
    "embed_tokens",
    "transpose2d",
    "index_rows",
    "apply_top_p_",
    "one_hot",
    "masked_fill_",
    "sample_tokens",
    "apply_frequency_presence_",
    "repetition_penalty_",
    "embedding_backward",
    "scatter_add_rows",
    "bernoulli_mask",
    "arange_like",
]


# ===================================================================== dropout

@triton.jit
def philox_dropout_kernel(inp, out, numel, drop_p, seed, CHUNK: tl.constexpr):
    # Mask is regenerated from (seed, element index), so nothing is saved for backward.
    idx = tl.program_id(0) * CHUNK + tl.arange(0, CHUNK)
    valid = idx < numel
    vals = tl.load(inp + idx, mask=valid)
    u = tl.rand(seed, idx)
    kept = u > drop_p
    scaled = tl.where(kept, vals / (1 - drop_p), 0.0)
    tl.store(out + idx, scaled, mask=valid)


def dropout_with_seed(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    """Reproducible dropout: same (x, p, seed) -> same output."""
    assert 0.0 <= p < 1.0
    out = torch.empty_like(x)
    numel = x.numel()
    philox_dropout_kernel[(triton.cdiv(numel, 1024),)](x.contiguous(), out, numel, p, seed, CHUNK=1024)
    return out


@triton.jit
def bernoulli_mask_kernel(mask_out, numel, p_keep, seed, offset, CHUNK: tl.constexpr):
    idx = tl.program_id(0) * CHUNK + tl.arange(0, CHUNK)
    r = tl.rand(seed, idx + offset)
    tl.store(mask_out + idx, (r < p_keep).to(tl.int8), mask=idx < numel)


# <<PLANT:misc_top>>


# =================================================================== embedding

@triton.jit
def token_embedding_kernel(
    table, ids, dest,
    vocab_lo, vocab_hi,
    table_row_stride, dest_row_stride,
    n_tokens, width,
    TOK_PER_PROG: tl.constexpr,
    WIDTH_P2: tl.constexpr,
):
    """dest[t] = table[ids[t] - vocab_lo] if vocab_lo <= ids[t] < vocab_hi else 0.

    The vocabulary window supports tensor-parallel sharded embeddings where
    each rank owns rows [vocab_lo, vocab_hi).
    """
    tb = tl.program_id(0)
    toks = tb * TOK_PER_PROG + tl.arange(0, TOK_PER_PROG)
    tmask = toks < n_tokens
    tid = tl.load(ids + toks, mask=tmask, other=vocab_lo)
    mine = (tid >= vocab_lo) & (tid < vocab_hi) & tmask
    local = tl.where(mine, tid - vocab_lo, 0)
    col = tl.arange(0, WIDTH_P2)
    cmask = col < width
    rows = tl.load(table + local[:, None] * table_row_stride + col[None, :],
                   mask=mine[:, None] & cmask[None, :], other=0.0)
    tl.store(dest + toks[:, None] * dest_row_stride + col[None, :], rows, mask=tmask[:, None] & cmask[None, :])


def embed_tokens(table, ids, vocab_lo=0, vocab_hi=None):
    vocab_hi = table.shape[0] + vocab_lo if vocab_hi is None else vocab_hi
    flat = ids.reshape(-1)
    n, width = flat.numel(), table.shape[1]
    dest = torch.empty(n, width, device=table.device, dtype=table.dtype)
    tpp = 4
    token_embedding_kernel[(triton.cdiv(n, tpp),)](table, flat, dest, vocab_lo, vocab_hi, table.stride(0),
                                                   dest.stride(0), n, width, TOK_PER_PROG=tpp,
                                                   WIDTH_P2=triton.next_power_of_2(width))
    return dest.view(*ids.shape, width)


@triton.jit
def embedding_grad_kernel(grad_out, ids, grad_table, n_tokens, width, BW: tl.constexpr):
    t = tl.program_id(0)
    tid = tl.load(ids + t)
    c = tl.arange(0, BW)
    m = c < width
    g = tl.load(grad_out + t * width + c, mask=m, other=0.).to(tl.float32)
    tl.atomic_add(grad_table + tid * width + c, g, mask=m)


# ====================================================================== layout

@triton.jit
def tile_transpose_kernel(src, dst, R, C, s_r, s_c, d_r, d_c, TR: tl.constexpr, TC: tl.constexpr):
    # dst[c, r] = src[r, c], one TR x TC tile per program
    pr = tl.program_id(0)
    pc = tl.program_id(1)
    r = pr * TR + tl.arange(0, TR)
    c = pc * TC + tl.arange(0, TC)
    m = (r[:, None] < R) & (c[None, :] < C)
    tile = tl.load(src + r[:, None] * s_r + c[None, :] * s_c, mask=m)
    tl.store(dst + c[None, :] * d_r + r[:, None] * d_c, tile, mask=m)


def transpose2d(x: torch.Tensor) -> torch.Tensor:
    R, C = x.shape
    y = torch.empty(C, R, device=x.device, dtype=x.dtype)
    tile_transpose_kernel[(triton.cdiv(R, 32), triton.cdiv(C, 32))](x, y, R, C, x.stride(0), x.stride(1),
                                                                    y.stride(0), y.stride(1), TR=32, TC=32)
    return y


@triton.jit
def index_rows_kernel(src, idx, dst, n_idx, width, s_src, s_dst, BW: tl.constexpr):
    i = tl.program_id(0)
    r = tl.load(idx + i)
    c = tl.arange(0, BW)
    m = c < width
    tl.store(dst + i * s_dst + c, tl.load(src + r * s_src + c, mask=m), mask=m)


@triton.jit
def scatter_add_rows_kernel(src, idx, dst, width, s_src, s_dst, BW: tl.constexpr):
    i = tl.program_id(0)
    r = tl.load(idx + i)
    c = tl.arange(0, BW)
    m = c < width
    tl.atomic_add(dst + r * s_dst + c, tl.load(src + i * s_src + c, mask=m).to(tl.float32), mask=m)


def index_rows(src, idx):
    n, w = idx.numel(), src.shape[1]
    dst = torch.empty(n, w, device=src.device, dtype=src.dtype)
    index_rows_kernel[(n,)](src, idx, dst, n, w, src.stride(0), dst.stride(0), BW=triton.next_power_of_2(w))
    return dst


# <<PLANT:misc_mid>>


# ============================================================ logit processors

@triton.jit
def repetition_penalty_kernel(logits, seen_ids, seen_len, stride, penalty, MAXSEEN: tl.constexpr):
    """CTRL-style penalty: divide positive / multiply negative logits of tokens already generated."""
    b = tl.program_id(0)
    k = tl.arange(0, MAXSEEN)
    n = tl.load(seen_len + b)
    km = k < n
    tok = tl.load(seen_ids + b * MAXSEEN + k, mask=km, other=0)
    z = tl.load(logits + b * stride + tok, mask=km, other=0.)
    z = tl.where(z > 0, z / penalty, z * penalty)
    tl.store(logits + b * stride + tok, z, mask=km)


@triton.jit
def top_p_mask_kernel(sorted_probs, sorted_idx, logits, V, stride, top_p, BV: tl.constexpr):
    # mask out tokens outside the nucleus; probs are sorted descending per row
    b = tl.program_id(0)
    i = tl.arange(0, BV)
    m = i < V
    p = tl.load(sorted_probs + b * V + i, mask=m, other=0.)
    csum = tl.cumsum(p, axis=0)
    drop = (csum - p) > top_p
    tok = tl.load(sorted_idx + b * V + i, mask=m, other=0)
    tl.store(logits + b * stride + tok, -float("inf"), mask=m & drop)


def apply_top_p_(logits, top_p):
    probs = torch.softmax(logits.float(), dim=-1)
    sp, si = probs.sort(dim=-1, descending=True)
    B, V = logits.shape
    top_p_mask_kernel[(B,)](sp.contiguous(), si.contiguous(), logits, V, logits.stride(0), top_p,
                            BV=triton.next_power_of_2(V))
    return logits


@triton.jit
def one_hot_kernel(labels, out, n, C, BC: tl.constexpr):
    r = tl.program_id(0)
    y = tl.load(labels + r)
    c = tl.arange(0, BC)
    tl.store(out + r * C + c, (c == y).to(out.dtype.element_ty), mask=c < C)


@triton.jit
def masked_fill_kernel(x, mask, value, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inb = o < n
    m = tl.load(mask + o, mask=inb, other=0) != 0
    tl.store(x + o, tl.full([BLOCK], value, x.dtype.element_ty), mask=inb & m)


def one_hot(labels, num_classes):
    n = labels.numel()
    out = torch.empty(n, num_classes, device=labels.device, dtype=torch.float32)
    one_hot_kernel[(n,)](labels, out, n, num_classes, BC=triton.next_power_of_2(num_classes))
    return out


def masked_fill_(x, mask, value):
    n = x.numel()
    masked_fill_kernel[(triton.cdiv(n, 1024),)](x, mask, value, n, BLOCK=1024)
    return x

@triton.jit
def gumbel_argmax_sample_kernel(logits, out_tok, seed, V, stride, inv_temp, BV: tl.constexpr):
    """Sample one token per row via argmax(logits / T + Gumbel noise)."""
    b = tl.program_id(0)
    best_val = -float("inf")
    best_idx = 0
    for v0 in range(0, V, BV):
        i = v0 + tl.arange(0, BV)
        m = i < V
        z = tl.load(logits + b * stride + i, mask=m, other=-float("inf")).to(tl.float32) * inv_temp
        u = tl.rand(seed, b * V + i)
        z = z - tl.log(-tl.log(tl.maximum(u, 1e-20)))
        cm = tl.max(z, axis=0)
        ci = tl.argmax(z, axis=0) + v0
        take = cm > best_val
        best_idx = tl.where(take, ci, best_idx)
        best_val = tl.where(take, cm, best_val)
    tl.store(out_tok + b, best_idx)


def sample_tokens(logits, temperature=1.0, seed=0):
    B, V = logits.shape
    out = torch.empty(B, device=logits.device, dtype=torch.int32)
    gumbel_argmax_sample_kernel[(B,)](logits, out, seed, V, logits.stride(0), 1.0 / temperature, BV=4096)
    return out


@triton.jit
def frequency_presence_kernel(logits, counts, stride, V, freq_pen, pres_pen, BV: tl.constexpr):
    # OpenAI-style penalties from a dense per-token count table
    b = tl.program_id(0)
    for v0 in range(0, V, BV):
        i = v0 + tl.arange(0, BV)
        m = i < V
        c = tl.load(counts + b * V + i, mask=m, other=0).to(tl.float32)
        z = tl.load(logits + b * stride + i, mask=m, other=0.)
        z = z - c * freq_pen - (c > 0).to(tl.float32) * pres_pen
        tl.store(logits + b * stride + i, z, mask=m)


def apply_frequency_presence_(logits, counts, frequency_penalty=0.0, presence_penalty=0.0):
    B, V = logits.shape
    frequency_presence_kernel[(B,)](logits, counts, logits.stride(0), V, frequency_penalty, presence_penalty, BV=2048)
    return logits


def repetition_penalty_(logits, seen_ids, seen_len, penalty=1.1):
    B = logits.shape[0]
    repetition_penalty_kernel[(B,)](logits, seen_ids, seen_len, logits.stride(0), penalty, MAXSEEN=seen_ids.shape[1])
    return logits


def embedding_backward(grad_out, ids, vocab):
    flat = ids.reshape(-1)
    width = grad_out.shape[-1]
    gt = torch.zeros(vocab, width, device=grad_out.device, dtype=torch.float32)
    embedding_grad_kernel[(flat.numel(),)](grad_out.reshape(-1, width).contiguous(), flat, gt, flat.numel(), width,
                                           BW=triton.next_power_of_2(width))
    return gt


def scatter_add_rows(src, idx, n_out):
    w = src.shape[1]
    dst = torch.zeros(n_out, w, device=src.device, dtype=torch.float32)
    scatter_add_rows_kernel[(idx.numel(),)](src, idx, dst, w, src.stride(0), dst.stride(0), BW=triton.next_power_of_2(w))
    return dst


def bernoulli_mask(shape, p_keep, seed, offset=0, device="cuda"):
    numel = 1
    for s in shape:
        numel *= s
    out = torch.empty(numel, device=device, dtype=torch.int8)
    bernoulli_mask_kernel[(triton.cdiv(numel, 1024),)](out, numel, p_keep, seed, offset, CHUNK=1024)
    return out.view(shape)

@triton.jit
def arange_fill_kernel(out, n, start, step, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + o, start + o * step, mask=o < n)


def arange_like(n, start=0, step=1, device="cuda"):
    out = torch.empty(n, device=device, dtype=torch.int64)
    arange_fill_kernel[(triton.cdiv(n, 1024),)](out, n, start, step, BLOCK=1024)
    return out

# <<PLANT:misc_end>>
