"""Fused optimizer steps.

Every kernel updates parameters in place and reads the gradient once.  Step
counters and bias corrections are computed on the host and passed in as scalars.
"""
import math

import torch
import triton
import triton.language as tl

__all__ = [
    "FusedAdamW",
    "clip_grad_norm_",
    "ema_",
    "unscale_",
    "lamb_trust_ratio",
    "cosine_lr",
    "multi_tensor_scale_",
    "zero_grads_",
    "sgd_",
    "lion_",
    "adagrad_",
]

# <<PLANT:opt_top>>


@triton.jit
def sgd_momentum_step(p_ptr, g_ptr, buf_ptr, n, lr, momentum, dampening, weight_decay,
                      NESTEROV: tl.constexpr, FIRST: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    p = tl.load(p_ptr + o, mask=m).to(tl.float32)
    g = tl.load(g_ptr + o, mask=m).to(tl.float32)
    g = g + weight_decay * p
    if FIRST:
        b = g
    else:
        b = tl.load(buf_ptr + o, mask=m) * momentum + (1.0 - dampening) * g
    tl.store(buf_ptr + o, b, mask=m)
    d = g + momentum * b if NESTEROV else b
    tl.store(p_ptr + o, (p - lr * d).to(p_ptr.dtype.element_ty), mask=m)


@triton.jit
def adamw_step(p_ptr, g_ptr, m_ptr, v_ptr, n,
               lr, beta1, beta2, eps, weight_decay, bc1, bc2,
               BLOCK: tl.constexpr):
    """Decoupled weight decay Adam; bc1 = 1 - beta1**t, bc2 = 1 - beta2**t."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    msk = o < n
    p = tl.load(p_ptr + o, mask=msk).to(tl.float32)
    g = tl.load(g_ptr + o, mask=msk).to(tl.float32)
    m = tl.load(m_ptr + o, mask=msk)
    v = tl.load(v_ptr + o, mask=msk)
    p = p * (1.0 - lr * weight_decay)
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    step = (m / bc1) / (tl.sqrt(v / bc2) + eps)
    tl.store(p_ptr + o, (p - lr * step).to(p_ptr.dtype.element_ty), mask=msk)
    tl.store(m_ptr + o, m, mask=msk)
    tl.store(v_ptr + o, v, mask=msk)


class FusedAdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps, self.wd = lr, betas, eps, weight_decay
        self.state = {id(p): (torch.zeros_like(p, dtype=torch.float32), torch.zeros_like(p, dtype=torch.float32))
                      for p in self.params}
        self.t = 0

    @torch.no_grad()
    def step(self):
        self.t += 1
        b1, b2 = self.betas
        bc1, bc2 = 1 - b1 ** self.t, 1 - b2 ** self.t
        for p in self.params:
            if p.grad is None:
                continue
            m, v = self.state[id(p)]
            n = p.numel()
            adamw_step[(triton.cdiv(n, 1024),)](p, p.grad, m, v, n, self.lr, b1, b2, self.eps, self.wd,
                                                bc1, bc2, BLOCK=1024)


@triton.jit
def lion_step(p_ptr, g_ptr, m_ptr, n, lr, beta1, beta2, wd, BLOCK: tl.constexpr):
    # Lion: update = sign(beta1*m + (1-beta1)*g); m <- beta2*m + (1-beta2)*g
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    msk = o < n
    p = tl.load(p_ptr + o, mask=msk).to(tl.float32)
    g = tl.load(g_ptr + o, mask=msk).to(tl.float32)
    m = tl.load(m_ptr + o, mask=msk)
    c = beta1 * m + (1.0 - beta1) * g
    upd = tl.where(c > 0, 1.0, tl.where(c < 0, -1.0, 0.0))
    p = p * (1.0 - lr * wd) - lr * upd
    tl.store(p_ptr + o, p.to(p_ptr.dtype.element_ty), mask=msk)
    tl.store(m_ptr + o, beta2 * m + (1.0 - beta2) * g, mask=msk)


@triton.jit
def grad_sq_norm_kernel(g_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    g = tl.load(g_ptr + o, mask=o < n, other=0.).to(tl.float32)
    tl.atomic_add(out_ptr, tl.sum(g * g, axis=0))


@triton.jit
def scale_grad_kernel(g_ptr, n, total_sq_ptr, max_norm, BLOCK: tl.constexpr):
    # clip_grad_norm_: g *= min(1, max_norm / (||g|| + 1e-6))
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    nrm = tl.sqrt(tl.load(total_sq_ptr))
    coef = tl.minimum(max_norm / (nrm + 1e-6), 1.0)
    g = tl.load(g_ptr + o, mask=m).to(tl.float32)
    tl.store(g_ptr + o, (g * coef).to(g_ptr.dtype.element_ty), mask=m)


def clip_grad_norm_(grads, max_norm):
    total = torch.zeros((), device=grads[0].device, dtype=torch.float32)
    for g in grads:
        grad_sq_norm_kernel[(triton.cdiv(g.numel(), 4096),)](g, total, g.numel(), BLOCK=4096)
    for g in grads:
        scale_grad_kernel[(triton.cdiv(g.numel(), 4096),)](g, g.numel(), total, max_norm, BLOCK=4096)
    return total.sqrt()


# <<PLANT:opt_mid>>


@triton.jit
def ema_update_kernel(ema_ptr, p_ptr, n, decay, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    e = tl.load(ema_ptr + o, mask=m).to(tl.float32)
    p = tl.load(p_ptr + o, mask=m).to(tl.float32)
    tl.store(ema_ptr + o, (decay * e + (1.0 - decay) * p).to(ema_ptr.dtype.element_ty), mask=m)


@triton.jit
def unscale_check_inf_kernel(g_ptr, found_inf_ptr, inv_scale, n, BLOCK: tl.constexpr):
    """AMP: multiply grads by 1/scale and raise a flag if any value is inf/nan."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    g = tl.load(g_ptr + o, mask=m, other=0.).to(tl.float32) * inv_scale
    bad = (g != g) | (tl.abs(g) == float("inf"))
    if tl.max(bad.to(tl.int32), axis=0) > 0:
        tl.store(found_inf_ptr, 1.0)
    tl.store(g_ptr + o, g.to(g_ptr.dtype.element_ty), mask=m)


def ema_(ema, param, decay=0.999):
    n = ema.numel()
    ema_update_kernel[(triton.cdiv(n, 2048),)](ema, param, n, decay, BLOCK=2048)


def unscale_(grads, scale):
    found = torch.zeros((), device=grads[0].device, dtype=torch.float32)
    for g in grads:
        unscale_check_inf_kernel[(triton.cdiv(g.numel(), 2048),)](g, found, 1.0 / scale, g.numel(), BLOCK=2048)
    return found


@triton.jit
def adagrad_step(p_ptr, g_ptr, acc_ptr, n, lr, eps, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    g = tl.load(g_ptr + o, mask=m).to(tl.float32)
    a = tl.load(acc_ptr + o, mask=m) + g * g
    tl.store(acc_ptr + o, a, mask=m)
    p = tl.load(p_ptr + o, mask=m).to(tl.float32)
    tl.store(p_ptr + o, (p - lr * g / (tl.sqrt(a) + eps)).to(p_ptr.dtype.element_ty), mask=m)


@triton.jit
def rmsprop_step(p_ptr, g_ptr, sq_ptr, n, lr, alpha, eps, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    g = tl.load(g_ptr + o, mask=m).to(tl.float32)
    s = alpha * tl.load(sq_ptr + o, mask=m) + (1.0 - alpha) * g * g
    tl.store(sq_ptr + o, s, mask=m)
    p = tl.load(p_ptr + o, mask=m).to(tl.float32)
    tl.store(p_ptr + o, (p - lr * g / (tl.sqrt(s) + eps)).to(p_ptr.dtype.element_ty), mask=m)


@triton.jit
def lamb_trust_ratio_kernel(p_ptr, upd_ptr, n, p_sq_ptr, u_sq_ptr, BLOCK: tl.constexpr):
    # first half of LAMB: accumulate ||p||^2 and ||update||^2 for one tensor
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    p = tl.load(p_ptr + o, mask=m, other=0.).to(tl.float32)
    u = tl.load(upd_ptr + o, mask=m, other=0.).to(tl.float32)
    tl.atomic_add(p_sq_ptr, tl.sum(p * p, axis=0))
    tl.atomic_add(u_sq_ptr, tl.sum(u * u, axis=0))


def lamb_trust_ratio(p, update):
    ps = torch.zeros((), device=p.device, dtype=torch.float32)
    us = torch.zeros_like(ps)
    lamb_trust_ratio_kernel[(triton.cdiv(p.numel(), 2048),)](p, update, p.numel(), ps, us, BLOCK=2048)
    r = ps.sqrt() / us.sqrt().clamp_min(1e-12)
    return torch.where(ps > 0, r, torch.ones_like(r))


def cosine_lr(step, total, base_lr, warmup=0):
    if step < warmup:
        return base_lr * (step + 1) / warmup
    prog = (step - warmup) / max(1, total - warmup)
    return 0.5 * base_lr * (1.0 + math.cos(math.pi * prog))

@triton.jit
def adam_8bit_state_step(p_ptr, g_ptr, m_q, v_q, m_scale, v_scale, n, lr, beta1, beta2, eps, bc1, bc2,
                         QBLOCK: tl.constexpr):
    """Adam with block-wise int8 moments: dequantise, update, requantise in one pass."""
    blk = tl.program_id(0)
    o = blk * QBLOCK + tl.arange(0, QBLOCK)
    msk = o < n
    g = tl.load(g_ptr + o, mask=msk, other=0.).to(tl.float32)
    m = tl.load(m_q + o, mask=msk, other=0).to(tl.float32) * tl.load(m_scale + blk)
    v = tl.load(v_q + o, mask=msk, other=0).to(tl.float32) * tl.load(v_scale + blk)
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    p = tl.load(p_ptr + o, mask=msk, other=0.).to(tl.float32)
    p -= lr * (m / bc1) / (tl.sqrt(v / bc2) + eps)
    tl.store(p_ptr + o, p.to(p_ptr.dtype.element_ty), mask=msk)
    ms = tl.maximum(tl.max(tl.abs(m), axis=0), 1e-12) / 127.0
    vs = tl.maximum(tl.max(v, axis=0), 1e-12) / 255.0
    tl.store(m_q + o, tl.floor(m / ms + 0.5).to(tl.int8), mask=msk)
    tl.store(v_q + o, tl.floor(v / vs + 0.5).to(tl.uint8), mask=msk)
    tl.store(m_scale + blk, ms)
    tl.store(v_scale + blk, vs)


@triton.jit
def multi_tensor_scale_kernel(addr_table, sizes, factor, BLOCK: tl.constexpr):
    # grid = (n_tensors, max_chunks); pointers are passed as an int64 address table
    t = tl.program_id(0)
    c = tl.program_id(1)
    n = tl.load(sizes + t)
    o = c * BLOCK + tl.arange(0, BLOCK)
    if c * BLOCK < n:
        base = tl.load(addr_table + t).to(tl.pointer_type(tl.float32))
        m = o < n
        tl.store(base + o, tl.load(base + o, mask=m) * factor, mask=m)


def multi_tensor_scale_(tensors, factor):
    dev = tensors[0].device
    addrs = torch.tensor([t.data_ptr() for t in tensors], device=dev, dtype=torch.int64)
    sizes = torch.tensor([t.numel() for t in tensors], device=dev, dtype=torch.int32)
    chunks = triton.cdiv(max(t.numel() for t in tensors), 4096)
    multi_tensor_scale_kernel[(len(tensors), chunks)](addrs, sizes, factor, BLOCK=4096)


@triton.jit
def sophia_step(p_ptr, g_ptr, m_ptr, h_ptr, n, lr, beta1, rho, wd, eps, BLOCK: tl.constexpr):
    """Sophia-G update: clip(m / max(rho * h, eps), -1, 1)."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    msk = o < n
    p = tl.load(p_ptr + o, mask=msk).to(tl.float32)
    g = tl.load(g_ptr + o, mask=msk).to(tl.float32)
    m = beta1 * tl.load(m_ptr + o, mask=msk) + (1.0 - beta1) * g
    h = tl.load(h_ptr + o, mask=msk)
    r = m / tl.maximum(rho * h, eps)
    r = tl.minimum(tl.maximum(r, -1.0), 1.0)
    p = p * (1.0 - lr * wd) - lr * r
    tl.store(m_ptr + o, m, mask=msk)
    tl.store(p_ptr + o, p.to(p_ptr.dtype.element_ty), mask=msk)


@triton.jit
def zero_grad_kernel(g_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(g_ptr + o, tl.zeros([BLOCK], dtype=g_ptr.dtype.element_ty), mask=o < n)


def zero_grads_(grads):
    for g in grads:
        zero_grad_kernel[(triton.cdiv(g.numel(), 8192),)](g, g.numel(), BLOCK=8192)


def sgd_(params, lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.0, nesterov=False, state=None):
    state = {} if state is None else state
    for p in params:
        if p.grad is None:
            continue
        first = id(p) not in state
        buf = state.setdefault(id(p), torch.empty_like(p, dtype=torch.float32))
        n = p.numel()
        sgd_momentum_step[(triton.cdiv(n, 1024),)](p, p.grad, buf, n, lr, momentum, dampening, weight_decay,
                                                   NESTEROV=nesterov, FIRST=first, BLOCK=1024)
    return state

def lion_(params, state, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
    for p in params:
        if p.grad is None:
            continue
        m = state.setdefault(id(p), torch.zeros_like(p, dtype=torch.float32))
        n = p.numel()
        lion_step[(triton.cdiv(n, 2048),)](p, p.grad, m, n, lr, betas[0], betas[1], weight_decay, BLOCK=2048)


def adagrad_(params, state, lr=1e-2, eps=1e-10):
    for p in params:
        acc = state.setdefault(id(p), torch.zeros_like(p, dtype=torch.float32))
        adagrad_step[(triton.cdiv(p.numel(), 1024),)](p, p.grad, acc, p.numel(), lr, eps, BLOCK=1024)

# <<PLANT:opt_end>>
