"""Sandbox side of the behavioural prober: give both sides the same weights, run them, compare the outputs.

Imports nothing from kvdata (loaded by path inside the prober worker).

- **Weights.** Parameters and floating buffers are matched by shape and role, in registration order: the same
  shape first (ties broken by a shared name token such as ``weight``/``bias``), then a transposed 2-D shape
  (``nn.Linear``'s ``(out, in)`` against a raw ``(in, out)`` used as ``x @ W``), then the same number of elements
  (a ``(C,)`` bias against a ``(C, 1, 1)`` one). The provider's tensors are copied into the follower. Further
  attempts: square matrices transposed, equal-shape groups in reverse order, and no copy at all (both built
  from the same seed: keeps a constant folded into a weight at construction).
- **Probes.** ``get_inputs()`` under two seeds, then every floating input replaced by normal noise at three
  scales (get_inputs often gives ``rand`` in [0, 1), where ``relu(x) == x``; the noise probes catch such
  look-alikes). Half-precision inputs are promoted to float32: the function is probed, not its rounding.
- **Modes.** A module runs as constructed, in train mode: that is what KernelBench times (batch statistics,
  dropout), so train-mode agreement decides. Each side's forward starts from the same RNG seed. Where a side's
  train-mode forward draws random numbers (dropout), its output depends on how the code draws them; then
  agreement in eval mode is accepted instead.
- **Agreement.** ``isclose`` elementwise (NaN equal to NaN) with ``rtol = 1e-4`` and an absolute tolerance of
  ``1e-4`` times the output's RMS; integer and boolean outputs exactly. Outputs of the same size but another
  shape are compared flattened. A probe where the provider gives no finite value, or both sides raise, is not
  informative. A probe's score is 1 when all elements agree, else 0.9 × the fraction that does.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

RTOL = 1e-4
ATOL_REL = 1e-4
PROBES = (("as_is", 0, None), ("as_is", 1, None), ("normal", 2, 1.0), ("normal", 3, 4.0), ("normal", 4, 0.25))
MIN_INFORMATIVE = 2


@dataclass
class Verdict:
    score: float
    equivalent: bool
    reason: str
    detail: str


def _tensors(obj) -> list[tuple[str, object]]:
    import torch
    import torch.nn as nn
    if not isinstance(obj, nn.Module):
        return []
    out = [(n, p) for n, p in obj.named_parameters()]
    out += [(n, b) for n, b in obj.named_buffers() if isinstance(b, torch.Tensor) and b.is_floating_point()]
    return out


def _name_tokens(name: str) -> set[str]:
    return set(name.lower().replace(".", "_").split("_"))


def match_tensors(src: list, dst: list, variant: str) -> list[tuple[int, int, str]]:
    """(src index, dst index, how) for each destination tensor that finds a source tensor."""
    used, pairs = set(), []
    groups: dict[tuple, list[int]] = {}
    for i, (_, t) in enumerate(src):
        groups.setdefault(tuple(t.shape), []).append(i)
    if variant == "reversed":
        groups = {k: v[::-1] for k, v in groups.items()}

    def pick(candidates, dname):
        free = [i for i in candidates if i not in used]
        if not free:
            return None
        shared = [i for i in free if _name_tokens(src[i][0]) & _name_tokens(dname) - {"", "0", "1"}]
        return (shared or free)[0]

    passes = ("same", "transposed", "numel")
    if variant == "transposed":
        passes = ("transposed", "same", "numel")
    todo = list(range(len(dst)))
    for how in passes:
        left = []
        for j in todo:
            dname, d = dst[j]
            shape = tuple(d.shape)
            if how == "same":
                cands = groups.get(shape, [])
            elif how == "transposed":
                cands = groups.get(shape[::-1], []) if len(shape) == 2 else []
            else:
                cands = [i for i, (_, t) in enumerate(src) if t.numel() == d.numel()]
            i = pick(cands, dname)
            if i is None:
                left.append(j)
            else:
                used.add(i)
                pairs.append((i, j, how))
        todo = left
    return pairs


def copy_weights(src_obj, dst_obj, variant: str) -> tuple[int, int]:
    """Copy matched tensors from ``src_obj`` into ``dst_obj``; returns (copied, tensors in dst)."""
    import torch
    src, dst = _tensors(src_obj), _tensors(dst_obj)
    pairs = match_tensors(src, dst, variant)
    with torch.no_grad():
        for i, j, how in pairs:
            s, d = src[i][1], dst[j][1]
            value = s.t() if how == "transposed" else s
            d.copy_(value.reshape(d.shape).to(d.dtype))
    return len(pairs), len(dst)


def weight_variants(obj_a, obj_b) -> list[str]:
    """The weight-sharing attempts worth making for this pair."""
    ta, tb = _tensors(obj_a), _tensors(obj_b)
    if not ta and not tb:
        return ["none"]
    out = ["copy"]
    if any(t.dim() == 2 and t.shape[0] == t.shape[1] for _, t in ta):
        out.append("transposed")
    shapes = [tuple(t.shape) for _, t in ta]
    if len(shapes) != len(set(shapes)):
        out.append("reversed")
    if ta and tb:
        out.append("seeded")
    return out


def probe_inputs(inputs_fn, kind: str, seed: int, scale) -> list:
    import torch
    torch.manual_seed(seed)
    raw = inputs_fn()
    xs = list(raw) if isinstance(raw, (list, tuple)) else [raw]
    gen = torch.Generator().manual_seed(1000 + seed)
    out = []
    for x in xs:
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            if x.dtype in (torch.float16, torch.bfloat16):
                x = x.float()
            if kind == "normal":
                x = torch.randn(x.shape, generator=gen, dtype=x.dtype) * scale
        out.append(x)
    return out


def _clone(xs):
    import torch
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in xs]


def run(obj, xs, mode: str):
    """(output, whether the forward drew random numbers) of ``obj(*xs)`` in ``mode``."""
    import torch
    if hasattr(obj, "train") and callable(obj.train):
        obj.train(mode == "train")
    torch.manual_seed(1234)
    before = torch.random.get_rng_state()
    with torch.no_grad():
        out = obj(*_clone(xs))
    return out, not torch.equal(before, torch.random.get_rng_state())


def flatten(out) -> list:
    import torch
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (bool, int, float)):
        return [torch.tensor(out)]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flatten(o)]
    if isinstance(out, dict):
        return [t for k in sorted(out, key=str) for t in flatten(out[k])]
    return []


def agreement(out_p, out_f) -> tuple[float, bool]:
    """(probe score, informative) of the follower's output against the provider's."""
    import torch
    a, b = flatten(out_p), flatten(out_f)
    if len(a) != len(b) or not a:
        return 0.0, bool(a)
    close, total, finite = 0, 0, False
    for x, y in zip(a, b):
        if x.numel() != y.numel():
            return 0.0, True
        y = y.reshape(x.shape)
        if x.is_floating_point() or y.is_floating_point() or x.is_complex():
            x64, y64 = x.detach().double(), y.detach().double()
            ok = torch.isfinite(x64)
            finite = finite or bool(ok.any())
            rms = float(x64[ok].pow(2).mean().sqrt()) if ok.any() else 0.0
            hit = torch.isclose(x64, y64, rtol=RTOL, atol=ATOL_REL * rms + 1e-12, equal_nan=True)
        else:
            finite = True
            hit = x == y
        close += int(hit.sum())
        total += hit.numel()
    if not finite:
        return 0.0, False
    frac = close / total if total else 1.0
    return (1.0 if close == total else 0.9 * frac), True


def _run_mode(plan, p_obj, f_obj, probes, mode: str):
    """(probe scores, errors, whether either side drew random numbers) for every probe in one mode."""
    scores, errors, random = [], [], False
    for xs in probes:
        try:
            out_p, rp = run(p_obj, xs, mode)
        except Exception as err:  # noqa: BLE001
            errors.append(f"{plan.provider.label}: {type(err).__name__}: {err}"[:200])
            try:
                run(f_obj, xs, mode)
                scores.append(0.0)       # only the provider fails: not the same function
            except Exception:  # noqa: BLE001 - both fail: says nothing
                pass
            continue
        try:
            out_f, rf = run(f_obj, xs, mode)
        except Exception as err:  # noqa: BLE001
            errors.append(f"{plan.follower.label}: {type(err).__name__}: {err}"[:200])
            scores.append(0.0)
            continue
        random = random or rp or rf
        score, informative = agreement(out_p, out_f)
        if informative:
            scores.append(score)
    return scores, errors, random


def compare_plan(plan, deadline) -> Verdict:
    """Run a Plan with every weight attempt; the first equivalent attempt wins, else the best one."""
    import time
    plan.prepare()
    probes = []
    for kind, seed, scale in PROBES:
        try:
            probes.append(probe_inputs(plan.inputs, kind, seed, scale))
        except Exception:  # noqa: BLE001 - untrusted get_inputs
            continue
    if not probes:
        return Verdict(float("nan"), False, "inputs_failed", plan.note)
    best = Verdict(float("nan"), False, "forward_failed", plan.note)
    for variant in weight_variants(plan.build_provider(), plan.build_follower()):
        if time.monotonic() > deadline:
            break
        p_obj, f_obj = plan.build_provider(), plan.build_follower()
        copied = total = 0
        if variant not in ("none", "seeded"):
            copied, total = copy_weights(p_obj, f_obj, variant)
        weights = "" if variant == "none" else f", weights {variant}" + (
            f" ({copied}/{total} tensors)" if variant != "seeded" else "")
        for mode in ("train", "eval"):
            scores, errors, random = _run_mode(plan, p_obj, f_obj, probes, mode)
            if len(scores) < MIN_INFORMATIVE:
                if errors and math.isnan(best.score):
                    best = Verdict(float("nan"), False, "forward_failed", f"{plan.note}; {errors[0]}")
                break
            mean = sum(scores) / len(scores)
            equivalent = all(s == 1.0 for s in scores)
            how = "train mode" if mode == "train" else "eval mode (train mode draws random numbers)"
            verdict = Verdict(mean, equivalent, "", f"{plan.note}; {how}{weights}; "
                                                    f"{sum(s == 1.0 for s in scores)}/{len(scores)} probes agree")
            if equivalent:
                return verdict
            if math.isnan(best.score) or mean > best.score:
                best = verdict
            if mode == "train" and not random:
                break            # deterministic in train mode: that verdict stands
    return best
