"""Row-wise reductions: sums, extrema, softmax family, losses. One program per row unless stated.

A fixture of tests/test_triton_kernels.py (written for kvdata's tests; parsed, never run).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(inp, out, n_cols, in_stride, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([WIDTH], dtype=tl.float32)
    for base in range(0, n_cols, WIDTH):
        cols = base + tl.arange(0, WIDTH)
        acc += tl.load(inp + row * in_stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out + row, tl.sum(acc, axis=0))


@triton.jit
def row_max_kernel(inp, out_val, out_idx, n_cols, in_stride, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, WIDTH)
    vals = tl.load(inp + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    best = tl.max(vals, axis=0)
    where = tl.argmax(vals, axis=0)
    tl.store(out_val + row, best)
    tl.store(out_idx + row, where.to(tl.int64))


@triton.jit
def row_mean_var_kernel(inp, mean_out, var_out, n_cols, in_stride, correction, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    total = tl.zeros([WIDTH], dtype=tl.float32)
    for base in range(0, n_cols, WIDTH):
        cols = base + tl.arange(0, WIDTH)
        total += tl.load(inp + row * in_stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mu = tl.sum(total, axis=0) / n_cols
    dev = tl.zeros([WIDTH], dtype=tl.float32)
    for base in range(0, n_cols, WIDTH):
        cols = base + tl.arange(0, WIDTH)
        v = tl.load(inp + row * in_stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        d = tl.where(cols < n_cols, v - mu, 0.0)
        dev += d * d
    tl.store(mean_out + row, mu)
    tl.store(var_out + row, tl.sum(dev, axis=0) / (n_cols - correction))


@triton.jit
def _welford_combine(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    delta = mean_b - mean_a
    frac = tl.where(n == 0, 0.0, n_b / n)
    return mean_a + delta * frac, m2_a + m2_b + delta * delta * n_a * frac, n


@triton.jit
def welford_kernel(inp, mean_out, rstd_out, n_cols, in_stride, eps, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, WIDTH)
    keep = cols < n_cols
    v = tl.load(inp + row * in_stride + cols, mask=keep, other=0.0).to(tl.float32)
    count = keep.to(tl.float32)
    m2 = tl.zeros([WIDTH], dtype=tl.float32)
    mean, m2, count = tl.reduce((v, m2, count), 0, _welford_combine)
    tl.store(mean_out + row, mean)
    tl.store(rstd_out + row, 1.0 / tl.sqrt(m2 / count + eps))


@triton.jit
def online_softmax_kernel(inp, out, n_cols, in_stride, out_stride, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    src = inp + row * in_stride
    run_max = tl.full([WIDTH], -float("inf"), dtype=tl.float32)
    run_sum = tl.zeros([WIDTH], dtype=tl.float32)
    for base in range(0, n_cols, WIDTH):
        cols = base + tl.arange(0, WIDTH)
        v = tl.load(src + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        new_max = tl.maximum(run_max, v)
        run_sum = run_sum * tl.exp(run_max - new_max) + tl.exp(v - new_max)
        run_max = new_max
    top = tl.max(run_max, axis=0)
    denom = tl.sum(run_sum * tl.exp(run_max - top), axis=0)
    for base in range(0, n_cols, WIDTH):
        cols = base + tl.arange(0, WIDTH)
        v = tl.load(src + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        p = tl.exp(v - top) / denom
        tl.store(out + row * out_stride + cols, p.to(out.dtype.element_ty), mask=cols < n_cols)


@triton.jit
def log_softmax_kernel(inp, out, n_cols, in_stride, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, WIDTH)
    keep = cols < n_cols
    v = tl.load(inp + row * in_stride + cols, mask=keep, other=-float("inf")).to(tl.float32)
    shifted = v - tl.max(v, axis=0)
    lse = tl.log(tl.sum(tl.exp(shifted), axis=0))
    tl.store(out + row * in_stride + cols, shifted - lse, mask=keep)


@triton.jit
def softmax_bwd_kernel(prob, grad_out, grad_in, n_cols, stride, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, WIDTH)
    keep = cols < n_cols
    p = tl.load(prob + row * stride + cols, mask=keep, other=0.0).to(tl.float32)
    g = tl.load(grad_out + row * stride + cols, mask=keep, other=0.0).to(tl.float32)
    dot = tl.sum(p * g, axis=0)
    tl.store(grad_in + row * stride + cols, (p * (g - dot)).to(grad_in.dtype.element_ty), mask=keep)


@triton.jit
def logsumexp_kernel(inp, out, n_cols, in_stride, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    m = tl.full([WIDTH], -float("inf"), dtype=tl.float32)
    s = tl.zeros([WIDTH], dtype=tl.float32)
    for base in range(0, n_cols, WIDTH):
        cols = base + tl.arange(0, WIDTH)
        v = tl.load(inp + row * in_stride + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, v)
        s = s * tl.exp(m - m_new) + tl.exp(v - m_new)
        m = m_new
    top = tl.max(m, axis=0)
    tl.store(out + row, top + tl.log(tl.sum(s * tl.exp(m - top), axis=0)))


@triton.jit
def cross_entropy_fwd_kernel(logits, labels, loss, lse_out, n_classes, stride, ignore_index,
                             label_smoothing, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    target = tl.load(labels + row)
    base = logits + row * stride
    m = -float("inf")
    s = 0.0
    total = 0.0
    for start in range(0, n_classes, WIDTH):
        cols = start + tl.arange(0, WIDTH)
        v = tl.load(base + cols, mask=cols < n_classes, other=-float("inf")).to(tl.float32)
        block_max = tl.max(v, axis=0)
        m_new = tl.maximum(m, block_max)
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(v - m_new), axis=0)
        total += tl.sum(tl.where(cols < n_classes, v, 0.0), axis=0)
        m = m_new
    lse = m + tl.log(s)
    picked = tl.load(base + target).to(tl.float32)
    smooth = label_smoothing * (lse - total / n_classes)
    value = (1.0 - label_smoothing) * (lse - picked) + smooth
    value = tl.where(target == ignore_index, 0.0, value)
    tl.store(loss + row, value)
    tl.store(lse_out + row, lse)


@triton.jit
def cross_entropy_bwd_kernel(logits, labels, lse_in, grad_loss, grad_logits, n_classes, stride, ignore_index,
                             WIDTH: tl.constexpr):
    row = tl.program_id(0)
    col_block = tl.program_id(1)
    cols = col_block * WIDTH + tl.arange(0, WIDTH)
    keep = cols < n_classes
    target = tl.load(labels + row)
    lse = tl.load(lse_in + row)
    g = tl.load(grad_loss + row)
    v = tl.load(logits + row * stride + cols, mask=keep, other=0.0).to(tl.float32)
    p = tl.exp(v - lse)
    p = tl.where(cols == target, p - 1.0, p)
    p = tl.where(target == ignore_index, 0.0, p * g)
    tl.store(grad_logits + row * stride + cols, p.to(grad_logits.dtype.element_ty), mask=keep)


@triton.jit
def l2_normalize_kernel(inp, out, n_cols, stride, eps, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, WIDTH)
    keep = cols < n_cols
    v = tl.load(inp + row * stride + cols, mask=keep, other=0.0).to(tl.float32)
    norm = tl.sqrt(tl.sum(v * v, axis=0))
    tl.store(out + row * stride + cols, v / tl.maximum(norm, eps), mask=keep)


@triton.jit
def cumsum_kernel(inp, out, n_cols, stride, WIDTH: tl.constexpr):
    row = tl.program_id(0)
    carry = 0.0
    for base in range(0, n_cols, WIDTH):
        cols = base + tl.arange(0, WIDTH)
        keep = cols < n_cols
        v = tl.load(inp + row * stride + cols, mask=keep, other=0.0).to(tl.float32)
        run = tl.cumsum(v, axis=0) + carry
        tl.store(out + row * stride + cols, run, mask=keep)
        carry += tl.sum(v, axis=0)


@triton.jit
def col_sum_kernel(inp, out, n_rows, n_cols, stride, ROWS: tl.constexpr, COLS: tl.constexpr):
    cb = tl.program_id(0)
    cols = cb * COLS + tl.arange(0, COLS)
    acc = tl.zeros([ROWS, COLS], dtype=tl.float32)
    for r0 in range(0, n_rows, ROWS):
        rows = r0 + tl.arange(0, ROWS)
        ptrs = inp + rows[:, None] * stride + cols[None, :]
        acc += tl.load(ptrs, mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols), other=0.0)
    tl.store(out + cols, tl.sum(acc, axis=0), mask=cols < n_cols)


def _width(n):
    return min(8192, triton.next_power_of_2(n))


def row_sum(x):
    out = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    row_sum_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), WIDTH=_width(x.shape[1]))
    return out


def softmax(x):
    out = torch.empty_like(x)
    online_softmax_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), out.stride(0), WIDTH=_width(x.shape[1]))
    return out


def cross_entropy(logits, labels, ignore_index=-100, label_smoothing=0.0):
    n, c = logits.shape
    loss = torch.empty(n, device=logits.device, dtype=torch.float32)
    lse = torch.empty_like(loss)
    cross_entropy_fwd_kernel[(n,)](logits, labels, loss, lse, c, logits.stride(0), ignore_index, label_smoothing,
                                   WIDTH=_width(c))
    return loss, lse


def logsumexp(x):
    out = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    logsumexp_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), WIDTH=_width(x.shape[1]))
    return out
