"""The decomposition table the trace worker passes to ``make_fx``: core ATen, plus the composites it keeps.

Loaded by path from :mod:`_trace_worker` (which runs with ``python -I`` and imports nothing from kvdata); it
imports only torch, and only inside :func:`decomposition_table`.

Why: a paraphrase spells a composite out (``x * torch.sigmoid(x)`` for ``F.silu``, ``x.sum(1) / x.size(1)`` for
``x.mean(1)``, a hand-written LayerNorm for ``nn.LayerNorm``), and the two only meet if the trace writes the
composite the way people spell it. PyTorch's core-ATen table (``torch._decomp.core_aten_decompositions``)
already decomposes many composites, but keeps others as core ops (``gelu``, ``mean``, ``native_layer_norm``,
``linalg_vector_norm``, ``_softmax``, batch/group norm, ...), and the set differs between torch versions. Every
op below is therefore decomposed by our own formula, whatever the core table does with it, so a fingerprint is
the same under torch 2.4 to 2.14. Each formula is the textbook spelling (the one an LLM paraphrase writes); the
parent's algebraic canonicalisation (:mod:`kvdata.audit.structural.algebra`) absorbs the remaining differences
(``/`` vs ``*`` by a reciprocal, ``x ** 2`` vs ``x * x``, ``1 / sqrt`` vs ``rsqrt``, operand order).

Numerical guards that do not change the function (softplus's threshold branch, logsumexp's infinity handling)
are left out: they would make the formula differ from every hand-written one.
"""
from __future__ import annotations

import math


def _dims(x, dim) -> list[int]:
    """Reduction dimensions as a list of non-negative ints (None or [] means all of them)."""
    if dim is None or x.dim() == 0:
        return list(range(x.dim()))
    if isinstance(dim, int):
        dim = [dim]
    dims = [d % max(x.dim(), 1) for d in dim]
    return dims or list(range(x.dim()))


def _count(x, dims) -> int:
    n = 1
    for d in dims:
        n *= int(x.shape[d])
    return n


def decomposition_table():
    """``{OpOverload: python function}`` for ``make_fx(..., decomposition_table=...)``."""
    import torch

    aten = torch.ops.aten
    table = {}
    try:
        from torch._decomp import core_aten_decompositions
        table.update(dict(core_aten_decompositions()))
    except Exception:  # noqa: BLE001 - a private API: without it, our own entries still apply
        pass

    def register(name, fn):
        packet, _, overload = name.partition(".")
        op = getattr(getattr(aten, packet, None), overload or "default", None)
        if op is not None:
            table[op] = fn

    def mean(x, dim=None, keepdim=False, *, dtype=None):
        if dtype is not None:
            x = x.to(dtype)
        dims = _dims(x, dim)
        return torch.sum(x, dims, keepdim=keepdim) / _count(x, dims)

    def var(x, dim=None, *, correction=None, keepdim=False):
        dims = _dims(x, dim)
        n = _count(x, dims)
        centred = x - torch.sum(x, dims, keepdim=True) / n
        c = 1 if correction is None else correction
        return torch.sum(centred * centred, dims, keepdim=keepdim) / (n - c)

    def std(x, dim=None, *, correction=None, keepdim=False):
        return torch.sqrt(var(x, dim, correction=correction, keepdim=keepdim))

    def var_mean(x, dim=None, *, correction=None, keepdim=False):
        return var(x, dim, correction=correction, keepdim=keepdim), mean(x, dim, keepdim)

    def std_mean(x, dim=None, *, correction=None, keepdim=False):
        return std(x, dim, correction=correction, keepdim=keepdim), mean(x, dim, keepdim)

    def gelu(x, approximate="none"):
        if approximate == "tanh":
            inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * (x * x * x))
            return 0.5 * x * (1.0 + torch.tanh(inner))
        return 0.5 * x * (1.0 + torch.erf(x * (1.0 / math.sqrt(2.0))))

    def silu(x):
        return x * torch.sigmoid(x)

    def softplus(x, beta=1, threshold=20):
        if beta == 1:
            return torch.log(1 + torch.exp(x))
        return torch.log(1 + torch.exp(x * beta)) / beta

    def mish(x):
        return x * torch.tanh(softplus(x))

    def hardtanh(x, min_val=-1.0, max_val=1.0):
        return torch.clamp(x, min_val, max_val)

    def hardsigmoid(x):
        return torch.clamp(x + 3, 0, 6) / 6

    def hardswish(x):
        return x * torch.clamp(x + 3, 0, 6) / 6

    def leaky_relu(x, negative_slope=0.01):
        return torch.where(x > 0, x, x * negative_slope)

    def elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
        negative = (torch.exp(x * input_scale) - 1) * alpha
        return torch.where(x > 0, x * scale, negative * scale)

    def log_sum_exp(x, dim, keepdim=False):
        dims = _dims(x, dim)
        top = torch.amax(x, dims, keepdim=True)
        out = torch.log(torch.sum(torch.exp(x - top), dims, keepdim=True)) + top
        return out if keepdim else torch.squeeze(out, dims)

    def softmax(x, dim, half_to_float=False):   # also _safe_softmax(x, dim, dtype): its third argument unused
        e = torch.exp(x - torch.amax(x, dim, keepdim=True))
        return e / torch.sum(e, dim, keepdim=True)

    def log_softmax(x, dim, half_to_float=False):
        shifted = x - torch.amax(x, dim, keepdim=True)
        return shifted - torch.log(torch.sum(torch.exp(shifted), dim, keepdim=True))

    def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
        if dtype is not None:
            x = x.to(dtype)
        dims = _dims(x, dim)
        if ord == 2:
            return torch.sqrt(torch.sum(x * x, dims, keepdim=keepdim))
        if ord == 1:
            return torch.sum(torch.abs(x), dims, keepdim=keepdim)
        if ord == math.inf:
            return torch.amax(torch.abs(x), dims, keepdim=keepdim)
        if ord == -math.inf:
            return torch.amin(torch.abs(x), dims, keepdim=keepdim)
        if ord == 0:
            return torch.sum((x != 0).to(x.dtype), dims, keepdim=keepdim)
        return torch.pow(torch.sum(torch.pow(torch.abs(x), ord), dims, keepdim=keepdim), 1.0 / ord)

    def norm(x, p=2, dim=None, keepdim=False, *, dtype=None):
        return vector_norm(x, 2 if p is None else p, dim, keepdim, dtype=dtype)

    def layer_norm(x, normalized_shape, weight, bias, eps):
        dims = list(range(x.dim() - len(normalized_shape), x.dim()))
        n = _count(x, dims)
        mu = torch.sum(x, dims, keepdim=True) / n
        centred = x - mu
        rstd = torch.rsqrt(torch.sum(centred * centred, dims, keepdim=True) / n + eps)
        out = centred * rstd
        if weight is not None:
            out = out * weight
        if bias is not None:
            out = out + bias
        return out, mu, rstd

    def rms_norm(x, normalized_shape, weight=None, eps=None):
        dims = list(range(x.dim() - len(normalized_shape), x.dim()))
        eps = torch.finfo(x.dtype).eps if eps is None else eps
        out = x * torch.rsqrt(torch.sum(x * x, dims, keepdim=True) / _count(x, dims) + eps)
        return out * weight if weight is not None else out

    def _channel(t, x):
        return t.reshape([1, -1] + [1] * (x.dim() - 2))

    def batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
        if training or running_mean is None or running_var is None:
            dims = [0] + list(range(2, x.dim()))
            n = _count(x, dims)
            mu = torch.sum(x, dims, keepdim=True) / n
            centred = x - mu
            rstd = torch.rsqrt(torch.sum(centred * centred, dims, keepdim=True) / n + eps)
        else:
            mu = _channel(running_mean, x)
            centred = x - mu
            rstd = torch.rsqrt(_channel(running_var, x) + eps)
        out = centred * rstd
        if weight is not None:
            out = out * _channel(weight, x)
        if bias is not None:
            out = out + _channel(bias, x)
        return out, mu.reshape(-1), rstd.reshape(-1)

    def batch_norm_no_training(x, weight, bias, running_mean, running_var, momentum, eps):
        return batch_norm(x, weight, bias, running_mean, running_var, False, momentum, eps)

    def batch_norm_no_stats(x, weight, bias, training, momentum, eps):
        return batch_norm(x, weight, bias, None, None, True, momentum, eps)

    def group_norm(x, weight, bias, N, C, HxW, group, eps):
        grouped = x.reshape(int(N), int(group), -1)
        n = int(grouped.shape[2])
        mu = torch.sum(grouped, [2], keepdim=True) / n
        centred = grouped - mu
        rstd = torch.rsqrt(torch.sum(centred * centred, [2], keepdim=True) / n + eps)
        out = (centred * rstd).reshape(x.shape)
        if weight is not None:
            out = out * _channel(weight, x)
        if bias is not None:
            out = out + _channel(bias, x)
        return out, mu.reshape(int(N), int(group)), rstd.reshape(int(N), int(group))

    def attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, **_):
        scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
        scores = torch.matmul(query, key.transpose(-2, -1)) * scale
        if is_causal:
            keep = torch.ones(scores.shape[-2], scores.shape[-1], dtype=torch.bool).tril()
            scores = scores.masked_fill(~keep, float("-inf"))
        if attn_mask is not None:
            scores = (scores.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool
                      else scores + attn_mask)
        return torch.matmul(torch.softmax(scores, -1), value)

    for name, fn in {
        "mean.default": mean, "mean.dim": mean, "var.correction": var, "std.correction": std,
        "var_mean.correction": var_mean, "std_mean.correction": std_mean, "gelu.default": gelu,
        "silu.default": silu, "softplus.default": softplus, "mish.default": mish, "hardtanh.default": hardtanh,
        "hardsigmoid.default": hardsigmoid, "hardswish.default": hardswish, "leaky_relu.default": leaky_relu,
        "elu.default": elu, "logsumexp.default": log_sum_exp, "_softmax.default": softmax,
        "_safe_softmax.default": softmax, "_log_softmax.default": log_softmax, "linalg_vector_norm.default": vector_norm,
        "norm.ScalarOpt_dim": norm, "norm.Scalar": norm, "native_layer_norm.default": layer_norm,
        "rms_norm.default": rms_norm, "native_batch_norm.default": batch_norm,
        "_native_batch_norm_legit_no_training.default": batch_norm_no_training,
        "_native_batch_norm_legit.default": batch_norm, "_native_batch_norm_legit.no_stats": batch_norm_no_stats,
        "native_group_norm.default": group_norm, "scaled_dot_product_attention.default": attention,
    }.items():
        register(name, fn)
    return table
