#!/usr/bin/env python
"""Loss functions with fused forward + gradient kernels.

Most kernels here write the gradient in the same pass as the loss (the logits
buffer is overwritten in place), which is what makes them memory-light for large
vocabularies.
"""
import torch
import triton
import triton.language as tl

IGNORE_INDEX = -100


@triton.jit
def xent_fused_kernel(
    logits, targets, loss_out, lse_out,
    stride_row, vocab,
    ignore_index, smoothing, inv_count,
    WRITE_GRAD: tl.constexpr,
    VBLOCK: tl.constexpr,
):
    # two streaming passes: (1) logsumexp, (2) overwrite logits with dL/dlogits
    r = tl.program_id(0).to(tl.int64)
    row = logits + r * stride_row
    tgt = tl.load(targets + r)
    if tgt == ignore_index:
        tl.store(loss_out + r, 0.0)
        if WRITE_GRAD:
            for v0 in range(0, vocab, VBLOCK):
                v = v0 + tl.arange(0, VBLOCK)
                tl.store(row + v, tl.zeros([VBLOCK], tl.float32), mask=v < vocab)
        return
    m = -float("inf")
    s = 0.0
    tot = 0.0
    for v0 in range(0, vocab, VBLOCK):
        v = v0 + tl.arange(0, VBLOCK)
        z = tl.load(row + v, mask=v < vocab, other=-float("inf")).to(tl.float32)
        mn = tl.maximum(m, tl.max(z, axis=0))
        s = s * tl.exp(m - mn) + tl.sum(tl.exp(z - mn), axis=0)
        tot += tl.sum(tl.where(v < vocab, z, 0.0), axis=0)
        m = mn
    lse = m + tl.log(s)
    zt = tl.load(row + tgt).to(tl.float32)
    nll = lse - zt
    smooth = lse - tot / vocab
    tl.store(loss_out + r, ((1.0 - smoothing) * nll + smoothing * smooth) * inv_count)
    tl.store(lse_out + r, lse)
    if WRITE_GRAD:
        for v0 in range(0, vocab, VBLOCK):
            v = v0 + tl.arange(0, VBLOCK)
            z = tl.load(row + v, mask=v < vocab, other=0.0).to(tl.float32)
            p = tl.exp(z - lse)
            g = p - smoothing / vocab - (1.0 - smoothing) * (v == tgt).to(tl.float32)
            tl.store(row + v, (g * inv_count).to(logits.dtype.element_ty), mask=v < vocab)


def cross_entropy_inplace(logits: torch.Tensor, targets: torch.Tensor, smoothing: float = 0.0):
    """Mean CE over non-ignored rows; ``logits`` is replaced by its gradient."""
    rows, vocab = logits.shape
    n_valid = max(int((targets != IGNORE_INDEX).sum()), 1)
    loss = torch.empty(rows, device=logits.device, dtype=torch.float32)
    lse = torch.empty_like(loss)
    xent_fused_kernel[(rows,)](logits, targets, loss, lse, logits.stride(0), vocab,
                               IGNORE_INDEX, smoothing, 1.0 / n_valid,
                               WRITE_GRAD=True, VBLOCK=min(triton.next_power_of_2(vocab), 32768),
                               num_warps=32 if vocab > 65536 else 8)
    return loss.sum(), logits


# <<PLANT:loss_top>>


@triton.jit
def kl_div_rows_kernel(logp_ptr, logq_ptr, out_ptr, grad_ptr, n_cols, stride,
                       LOG_TARGET: tl.constexpr, BLOCK: tl.constexpr):
    """KL(q || p) per row where inputs are log-probs of p and (log-)probs of q."""
    r = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        ok = c < n_cols
        lp = tl.load(logp_ptr + r * stride + c, mask=ok, other=0.0).to(tl.float32)
        t = tl.load(logq_ptr + r * stride + c, mask=ok, other=0.0).to(tl.float32)
        if LOG_TARGET:
            q = tl.exp(t)
            term = q * (t - lp)
        else:
            q = t
            term = tl.where(q > 0, q * (tl.log(q) - lp), 0.0)
        acc += tl.where(ok, term, 0.0)
        tl.store(grad_ptr + r * stride + c, -q, mask=ok)
    tl.store(out_ptr + r, tl.sum(acc, axis=0))


def kl_div(logp, target, log_target=False):
    rows, cols = logp.shape
    out = torch.empty(rows, device=logp.device, dtype=torch.float32)
    grad = torch.empty_like(logp, dtype=torch.float32)
    kl_div_rows_kernel[(rows,)](logp, target, out, grad, cols, logp.stride(0), LOG_TARGET=log_target, BLOCK=1024)
    return out, grad


@triton.jit
def mse_kernel(a_ptr, b_ptr, part_ptr, grad_ptr, n, scale, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    a = tl.load(a_ptr + o, mask=m, other=0.).to(tl.float32)
    b = tl.load(b_ptr + o, mask=m, other=0.).to(tl.float32)
    d = a - b
    tl.store(grad_ptr + o, 2.0 * d * scale, mask=m)
    tl.store(part_ptr + tl.program_id(0), tl.sum(d * d, axis=0) * scale)


@triton.jit
def huber_kernel(a_ptr, b_ptr, out_ptr, n, delta, BLOCK: tl.constexpr):
    # elementwise smooth-L1 / Huber, no reduction
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    d = tl.load(a_ptr + o, mask=m, other=0.).to(tl.float32) - tl.load(b_ptr + o, mask=m, other=0.).to(tl.float32)
    ad = tl.abs(d)
    tl.store(out_ptr + o, tl.where(ad < delta, 0.5 * d * d, delta * (ad - 0.5 * delta)), mask=m)


def mse(a, b):
    n = a.numel()
    blocks = triton.cdiv(n, 2048)
    part = torch.empty(blocks, device=a.device, dtype=torch.float32)
    grad = torch.empty_like(a, dtype=torch.float32)
    mse_kernel[(blocks,)](a, b, part, grad, n, 1.0 / n, BLOCK=2048)
    return part.sum(), grad


def huber(a, b, delta=1.0):
    out = torch.empty_like(a, dtype=torch.float32)
    n = a.numel()
    huber_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, delta, BLOCK=1024)
    return out


@triton.jit
def focal_bce_kernel(logit_ptr, label_ptr, out_ptr, n, alpha, gamma, BLOCK: tl.constexpr):
    """Sigmoid focal loss (RetinaNet)."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    z = tl.load(logit_ptr + o, mask=m, other=0.).to(tl.float32)
    y = tl.load(label_ptr + o, mask=m, other=0.).to(tl.float32)
    p = tl.sigmoid(z)
    # log(sigmoid(z)) and log(1 - sigmoid(z)) written stably
    log_p = tl.minimum(z, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(z)))
    log_1mp = log_p - z
    ce = -(y * log_p + (1.0 - y) * log_1mp)
    pt = y * p + (1.0 - y) * (1.0 - p)
    w = y * alpha + (1.0 - y) * (1.0 - alpha)
    tl.store(out_ptr + o, w * tl.exp(gamma * tl.log(tl.maximum(1.0 - pt, 1e-12))) * ce, mask=m)


def focal_loss(logits, labels, alpha=0.25, gamma=2.0):
    out = torch.empty_like(logits, dtype=torch.float32)
    n = logits.numel()
    focal_bce_kernel[(triton.cdiv(n, 1024),)](logits, labels, out, n, alpha, gamma, BLOCK=1024)
    return out


# <<PLANT:loss_mid>>


@triton.jit
def z_loss_kernel(lse_ptr, out_ptr, grad_scale_ptr, n, coeff, BLOCK: tl.constexpr):
    # z-loss = coeff * lse^2 ; d/dlse = 2 * coeff * lse
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    l = tl.load(lse_ptr + o, mask=m, other=0.)
    tl.store(out_ptr + o, coeff * l * l, mask=m)
    tl.store(grad_scale_ptr + o, 2.0 * coeff * l, mask=m)


@triton.jit
def cosine_embedding_kernel(a_ptr, b_ptr, y_ptr, out_ptr, D, stride, margin, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    ok = c < D
    a = tl.load(a_ptr + r * stride + c, mask=ok, other=0.).to(tl.float32)
    b = tl.load(b_ptr + r * stride + c, mask=ok, other=0.).to(tl.float32)
    cos = tl.sum(a * b, axis=0) / tl.sqrt(tl.maximum(tl.sum(a * a, axis=0) * tl.sum(b * b, axis=0), 1e-16))
    y = tl.load(y_ptr + r)
    tl.store(out_ptr + r, tl.where(y > 0, 1.0 - cos, tl.maximum(cos - margin, 0.0)))


def cosine_embedding_loss(a, b, y, margin=0.0):
    rows, D = a.shape
    out = torch.empty(rows, device=a.device, dtype=torch.float32)
    cosine_embedding_kernel[(rows,)](a, b, y, out, D, a.stride(0), margin, BLOCK=triton.next_power_of_2(D))
    return out.mean()


@triton.jit
def nll_gather_kernel(logp_ptr, tgt_ptr, w_ptr, out_ptr, stride, HAS_W: tl.constexpr):
    r = tl.program_id(0)
    t = tl.load(tgt_ptr + r)
    v = -tl.load(logp_ptr + r * stride + t).to(tl.float32)
    if HAS_W:
        v = v * tl.load(w_ptr + t)
    tl.store(out_ptr + r, v)


def nll_loss(logp, target, weight=None):
    rows = logp.shape[0]
    out = torch.empty(rows, device=logp.device, dtype=torch.float32)
    nll_gather_kernel[(rows,)](logp, target, weight if weight is not None else logp, out, logp.stride(0),
                               HAS_W=weight is not None)
    return out.mean()


@triton.jit
def hinge_margin_kernel(score_ptr, tgt_ptr, out_ptr, C, stride, margin, BLOCK: tl.constexpr):
    """Multi-class hinge: sum_{j != y} max(0, margin - s_y + s_j) / C."""
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    ok = c < C
    s = tl.load(score_ptr + r * stride + c, mask=ok, other=0.).to(tl.float32)
    y = tl.load(tgt_ptr + r)
    sy = tl.load(score_ptr + r * stride + y).to(tl.float32)
    h = tl.maximum(margin - sy + s, 0.0)
    h = tl.where(ok & (c != y), h, 0.0)
    tl.store(out_ptr + r, tl.sum(h, axis=0) / C)


def multi_margin(scores, target, margin=1.0):
    rows, C = scores.shape
    out = torch.empty(rows, device=scores.device, dtype=torch.float32)
    hinge_margin_kernel[(rows,)](scores, target, out, C, scores.stride(0), margin, BLOCK=triton.next_power_of_2(C))
    return out.mean()

@triton.jit
def bce_logits_kernel(z_ptr, y_ptr, w_ptr, out_ptr, grad_ptr, n, pos_weight, HAS_W: tl.constexpr, BLOCK: tl.constexpr):
    """Binary cross-entropy on logits with optional element weights and pos_weight."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    z = tl.load(z_ptr + o, mask=m, other=0.).to(tl.float32)
    y = tl.load(y_ptr + o, mask=m, other=0.).to(tl.float32)
    log_sig = tl.minimum(z, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(z)))
    log_one_minus = log_sig - z
    loss = -(pos_weight * y * log_sig + (1.0 - y) * log_one_minus)
    sig = tl.sigmoid(z)
    grad = (pos_weight * y + 1.0 - y) * sig - pos_weight * y
    if HAS_W:
        w = tl.load(w_ptr + o, mask=m, other=0.).to(tl.float32)
        loss = loss * w
        grad = grad * w
    tl.store(out_ptr + o, loss, mask=m)
    tl.store(grad_ptr + o, grad, mask=m)


def bce_with_logits(z, y, weight=None, pos_weight=1.0):
    n = z.numel()
    out = torch.empty_like(z, dtype=torch.float32)
    grad = torch.empty_like(out)
    bce_logits_kernel[(triton.cdiv(n, 1024),)](z, y, weight if weight is not None else z, out, grad, n,
                                               pos_weight, HAS_W=weight is not None, BLOCK=1024)
    return out.mean(), grad / n


@triton.jit
def jsd_rows_kernel(p_log, q_log, out_ptr, n_cols, stride, beta, BLOCK: tl.constexpr):
    # generalised Jensen-Shannon divergence between two log-prob rows
    r = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        ok = c < n_cols
        lp = tl.load(p_log + r * stride + c, mask=ok, other=0.).to(tl.float32)
        lq = tl.load(q_log + r * stride + c, mask=ok, other=0.).to(tl.float32)
        p = tl.exp(lp)
        q = tl.exp(lq)
        mix = beta * p + (1.0 - beta) * q
        lm = tl.log(tl.maximum(mix, 1e-30))
        term = beta * p * (lp - lm) + (1.0 - beta) * q * (lq - lm)
        acc += tl.where(ok, term, 0.0)
    tl.store(out_ptr + r, tl.sum(acc, axis=0))


def jsd(p_log, q_log, beta=0.5):
    rows, cols = p_log.shape
    out = torch.empty(rows, device=p_log.device, dtype=torch.float32)
    jsd_rows_kernel[(rows,)](p_log, q_log, out, cols, p_log.stride(0), beta, BLOCK=2048)
    return out.mean()


def z_loss(lse, coeff=1e-4):
    n = lse.numel()
    out = torch.empty_like(lse)
    g = torch.empty_like(lse)
    z_loss_kernel[(triton.cdiv(n, 1024),)](lse, out, g, n, coeff, BLOCK=1024)
    return out.mean(), g

def huber_mean(a, b, delta=1.0):
    """Reduced Huber loss; kept separate so the elementwise kernel stays reduction-free."""
    return huber(a, b, delta).mean()


def label_smoothed_ce(logits, targets, eps=0.1):
    loss, _ = cross_entropy_inplace(logits.clone(), targets, smoothing=eps)
    return loss

# <<PLANT:loss_end>>
