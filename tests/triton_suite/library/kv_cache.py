"""KV-cache management kernels for paged and contiguous caches.

Paged layout: ``cache[num_blocks, block_size, kv_heads, head_dim]`` addressed
through ``block_table[seq, logical_block] -> physical_block``.
"""
import torch
import triton
import triton.language as tl

__all__ = [
    "store_kv",
    "store_k_int8",
    "gather_kv",
    "copy_blocks",
    "append_kv",
    "swap_blocks",
    "ring_write",
    "dequant_k",
    "slot_mapping",
    "compact_cache",
    "store_kv_fp8",
    "zero_free_blocks",
]


# ---------------------------------------------------------------------------
# writes
# ---------------------------------------------------------------------------

@triton.jit
def write_paged_kv(
    key, value,              # (tokens, heads, dim)
    k_cache, v_cache,        # (blocks, page, heads, dim)
    slot_of_token,           # (tokens,)  flat slot = block * page + offset, -1 = skip
    s_tok, s_head,
    c_blk, c_page, c_head,
    n_heads,
    PAGE: tl.constexpr,
    HB: tl.constexpr,
    DIM: tl.constexpr,
):
    t = tl.program_id(0)
    slot = tl.load(slot_of_token + t)
    if slot < 0:
        return
    blk = slot // PAGE
    off = slot % PAGE
    h = tl.arange(0, HB)
    d = tl.arange(0, DIM)
    m = (h < n_heads)[:, None]
    src = t * s_tok + h[:, None] * s_head + d[None, :]
    dst = blk * c_blk + off * c_page + h[:, None] * c_head + d[None, :]
    tl.store(k_cache + dst, tl.load(key + src, mask=m), mask=m)
    tl.store(v_cache + dst, tl.load(value + src, mask=m), mask=m)


def store_kv(key, value, k_cache, v_cache, slots):
    T, H, D = key.shape
    page = k_cache.shape[1]
    write_paged_kv[(T,)](key, value, k_cache, v_cache, slots, key.stride(0), key.stride(1),
                         k_cache.stride(0), k_cache.stride(1), k_cache.stride(2), H,
                         PAGE=page, HB=triton.next_power_of_2(H), DIM=D)


@triton.jit
def write_paged_kv_int8(key, k_cache, k_scale, slot_of_token, n_heads, s_tok, s_head,
                        c_blk, c_page, c_head, PAGE: tl.constexpr, DIM: tl.constexpr):
    """Quantise each (token, head) vector to int8 with its own scale while writing."""
    t = tl.program_id(0)
    h = tl.program_id(1)
    slot = tl.load(slot_of_token + t)
    if slot >= 0:
        d = tl.arange(0, DIM)
        v = tl.load(key + t * s_tok + h * s_head + d).to(tl.float32)
        sc = tl.maximum(tl.max(tl.abs(v), axis=0), 1e-6) / 127.0
        q = tl.floor(v / sc + 0.5).to(tl.int8)
        blk = slot // PAGE
        off = slot % PAGE
        tl.store(k_cache + blk * c_blk + off * c_page + h * c_head + d, q)
        tl.store(k_scale + (blk * PAGE + off) * n_heads + h, sc)


def store_k_int8(key, k_cache, k_scale, slots):
    T, H, D = key.shape
    write_paged_kv_int8[(T, H)](key, k_cache, k_scale, slots, H, key.stride(0), key.stride(1),
                                k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
                                PAGE=k_cache.shape[1], DIM=D)


# <<PLANT:kv_top>>


# ---------------------------------------------------------------------------
# reads
# ---------------------------------------------------------------------------

@triton.jit
def gather_paged_to_dense(cache, block_table, seq_lens, out, max_blocks,
                          c_blk, c_page, o_seq, o_tok,
                          PAGE: tl.constexpr, ROW: tl.constexpr):
    # out[seq, tok, :] = cache[block_table[seq, tok // PAGE], tok % PAGE, :] (heads*dim flattened)
    s = tl.program_id(0)
    lb = tl.program_id(1)
    n = tl.load(seq_lens + s)
    if lb * PAGE >= n:
        return
    phys = tl.load(block_table + s * max_blocks + lb)
    p = tl.arange(0, PAGE)
    r = tl.arange(0, ROW)
    tok = lb * PAGE + p
    m = (tok < n)[:, None]
    vals = tl.load(cache + phys * c_blk + p[:, None] * c_page + r[None, :], mask=m)
    tl.store(out + s * o_seq + tok[:, None] * o_tok + r[None, :], vals, mask=m)


def gather_kv(cache, block_table, seq_lens, max_len):
    nb, page, H, D = cache.shape
    S = seq_lens.numel()
    out = torch.zeros(S, max_len, H * D, device=cache.device, dtype=cache.dtype)
    grid = (S, triton.cdiv(max_len, page))
    gather_paged_to_dense[grid](cache, block_table, seq_lens, out, block_table.shape[1],
                                cache.stride(0), cache.stride(1), out.stride(0), out.stride(1),
                                PAGE=page, ROW=H * D)
    return out


@triton.jit
def copy_blocks_kernel(k_cache, v_cache, mapping, numel_per_block, BLOCK: tl.constexpr):
    """mapping is (n_pairs, 2) of (src_block, dst_block); used by beam-search forks."""
    pair = tl.program_id(0)
    chunk = tl.program_id(1)
    src = tl.load(mapping + 2 * pair)
    dst = tl.load(mapping + 2 * pair + 1)
    o = chunk * BLOCK + tl.arange(0, BLOCK)
    m = o < numel_per_block
    tl.store(k_cache + dst * numel_per_block + o, tl.load(k_cache + src * numel_per_block + o, mask=m), mask=m)
    tl.store(v_cache + dst * numel_per_block + o, tl.load(v_cache + src * numel_per_block + o, mask=m), mask=m)


def copy_blocks(k_cache, v_cache, mapping):
    per = k_cache[0].numel()
    grid = (mapping.shape[0], triton.cdiv(per, 2048))
    copy_blocks_kernel[grid](k_cache, v_cache, mapping, per, BLOCK=2048)


@triton.jit
def append_contiguous_kernel(new_kv, cache, cur_len, s_new_b, s_new_t, s_c_b, s_c_t, T_new, ROW: tl.constexpr):
    # contiguous (batch, max_len, row) cache: write T_new tokens at position cur_len[b]
    b = tl.program_id(0)
    t = tl.program_id(1)
    if t < T_new:
        base = tl.load(cur_len + b)
        r = tl.arange(0, ROW)
        v = tl.load(new_kv + b * s_new_b + t * s_new_t + r)
        tl.store(cache + b * s_c_b + (base + t) * s_c_t + r, v)


def append_kv(new_kv, cache, cur_len):
    B, T, R = new_kv.shape
    append_contiguous_kernel[(B, T)](new_kv, cache, cur_len, new_kv.stride(0), new_kv.stride(1),
                                     cache.stride(0), cache.stride(1), T, ROW=R)
    cur_len += T


# <<PLANT:kv_mid>>


@triton.jit
def dequant_paged_k(k_cache, k_scale, block_table, out, seq_len, n_heads, max_blocks,
                    c_blk, c_page, c_head, PAGE: tl.constexpr, DIM: tl.constexpr):
    s = tl.program_id(0)
    t = tl.program_id(1)
    h = tl.program_id(2)
    if t < tl.load(seq_len + s):
        phys = tl.load(block_table + s * max_blocks + t // PAGE)
        d = tl.arange(0, DIM)
        q = tl.load(k_cache + phys * c_blk + (t % PAGE) * c_page + h * c_head + d).to(tl.float32)
        sc = tl.load(k_scale + (phys * PAGE + t % PAGE) * n_heads + h)
        tl.store(out + ((s * tl.num_programs(1) + t) * n_heads + h) * DIM + d, q * sc)


@triton.jit
def swap_blocks_kernel(src, dst, src_ids, dst_ids, per_block, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    c = tl.program_id(1)
    a = tl.load(src_ids + i)
    b = tl.load(dst_ids + i)
    o = c * BLOCK + tl.arange(0, BLOCK)
    m = o < per_block
    tl.store(dst + b * per_block + o, tl.load(src + a * per_block + o, mask=m), mask=m)


def swap_blocks(src, dst, src_ids, dst_ids):
    per = src[0].numel()
    swap_blocks_kernel[(src_ids.numel(), triton.cdiv(per, 4096))](src, dst, src_ids, dst_ids, per, BLOCK=4096)


@triton.jit
def slot_mapping_kernel(block_table, positions, seq_ids, slots, max_blocks, PAGE: tl.constexpr, BLOCK: tl.constexpr):
    """slot = block_table[seq, pos // PAGE] * PAGE + pos % PAGE for a flat batch of tokens."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    n = tl.num_programs(0) * BLOCK
    m = o < n
    pos = tl.load(positions + o, mask=m, other=0)
    sid = tl.load(seq_ids + o, mask=m, other=0)
    phys = tl.load(block_table + sid * max_blocks + pos // PAGE, mask=m, other=0)
    tl.store(slots + o, phys * PAGE + pos % PAGE, mask=m)


@triton.jit
def rotate_ring_cache(cache, new_kv, write_pos, window, s_b, s_t, ROW: tl.constexpr):
    # sliding-window ring buffer: token at absolute position p goes to slot p % window
    b = tl.program_id(0)
    p = tl.load(write_pos + b)
    r = tl.arange(0, ROW)
    tl.store(cache + b * s_b + (p % window) * s_t + r, tl.load(new_kv + b * ROW + r))
    tl.store(write_pos + b, p + 1)


def ring_write(cache, new_kv, write_pos, window):
    B = new_kv.shape[0]
    rotate_ring_cache[(B,)](cache, new_kv.contiguous(), write_pos, window, cache.stride(0), cache.stride(1),
                            ROW=new_kv[0].numel())


def dequant_k(k_cache, k_scale, block_table, seq_len, max_len):
    nb, page, H, D = k_cache.shape
    S = seq_len.numel()
    out = torch.zeros(S, max_len, H, D, device=k_cache.device, dtype=torch.float32)
    dequant_paged_k[(S, max_len, H)](k_cache, k_scale, block_table, out, seq_len, H, block_table.shape[1],
                                     k_cache.stride(0), k_cache.stride(1), k_cache.stride(2), PAGE=page, DIM=D)
    return out


def slot_mapping(block_table, positions, seq_ids, page):
    n = positions.numel()
    slots = torch.empty(n, device=positions.device, dtype=torch.int64)
    block = 256
    assert n % block == 0, "pad the flat batch to a multiple of 256 tokens"
    slot_mapping_kernel[(n // block,)](block_table, positions, seq_ids, slots, block_table.shape[1],
                                       PAGE=page, BLOCK=block)
    return slots


@triton.jit
def compact_cache_kernel(cache, keep_idx, out, n_keep, s_b, s_t, o_b, o_t, ROW: tl.constexpr):
    """Token eviction (H2O / StreamingLLM): keep only the listed positions of each sequence."""
    b = tl.program_id(0)
    i = tl.program_id(1)
    if i < n_keep:
        src_t = tl.load(keep_idx + b * n_keep + i)
        r = tl.arange(0, ROW)
        tl.store(out + b * o_b + i * o_t + r, tl.load(cache + b * s_b + src_t * s_t + r))


def compact_cache(cache, keep_idx):
    B, T, R = cache.shape
    n_keep = keep_idx.shape[1]
    out = torch.empty(B, n_keep, R, device=cache.device, dtype=cache.dtype)
    compact_cache_kernel[(B, n_keep)](cache, keep_idx, out, n_keep, cache.stride(0), cache.stride(1),
                                      out.stride(0), out.stride(1), ROW=R)
    return out


@triton.jit
def cache_fp8_write_kernel(kv, cache, slot_of_token, scale_ptr, row, PAGE: tl.constexpr, BR: tl.constexpr):
    # fp8 e4m3 cache with one per-tensor scale, flattened (heads * dim) rows
    t = tl.program_id(0)
    slot = tl.load(slot_of_token + t)
    if slot >= 0:
        r = tl.arange(0, BR)
        m = r < row
        inv = 1.0 / tl.load(scale_ptr)
        v = tl.load(kv + t * row + r, mask=m, other=0.).to(tl.float32) * inv
        v = tl.minimum(tl.maximum(v, -448.0), 448.0)
        tl.store(cache + slot * row + r, v.to(cache.dtype.element_ty), mask=m)


def store_kv_fp8(kv, cache, slots, scale):
    T = kv.shape[0]
    row = kv[0].numel()
    cache_fp8_write_kernel[(T,)](kv.contiguous(), cache, slots, scale, row, PAGE=cache.shape[1],
                                 BR=triton.next_power_of_2(row))


@triton.jit
def prefix_share_refcount_kernel(block_table, refcount, n_blocks_per_seq, max_blocks, BLOCK: tl.constexpr):
    """Increment the reference count of every physical block a sequence points at."""
    s = tl.program_id(0)
    n = tl.load(n_blocks_per_seq + s)
    i = tl.arange(0, BLOCK)
    for i0 in range(0, n, BLOCK):
        ii = i0 + i
        m = ii < n
        phys = tl.load(block_table + s * max_blocks + ii, mask=m, other=0)
        tl.atomic_add(refcount + phys, 1, mask=m)

@triton.jit
def zero_free_blocks_kernel(cache, free_ids, per_block, BLOCK: tl.constexpr):
    """Scrub freed pages so stale keys never leak into a new sequence."""
    i = tl.program_id(0)
    c = tl.program_id(1)
    blk = tl.load(free_ids + i)
    o = c * BLOCK + tl.arange(0, BLOCK)
    tl.store(cache + blk * per_block + o, tl.zeros([BLOCK], cache.dtype.element_ty), mask=o < per_block)


def zero_free_blocks(cache, free_ids):
    per = cache[0].numel()
    zero_free_blocks_kernel[(free_ids.numel(), triton.cdiv(per, 4096))](cache, free_ids, per, BLOCK=4096)

# <<PLANT:kv_end>>
