"""Sandbox side of the behavioural prober: put one reference's constructor arguments onto another's parameters.

Imports nothing from kvdata (loaded by path inside the prober worker). A paraphrase renames the constructor's
parameters (``in_channels`` → ``c_in``) and reorders them (``(bias_shape, out_features, in_features)``), so the
benchmark's arguments are tried on the training row's constructor in every plausible assignment: each value to
at most one parameter, every required parameter filled, the rest left at their defaults. Ranked by: more values
used; more parameters whose name has the value's role (``in``/``out``/``kernel``/``shape``/... from the name's
tokens); values moved less far from their position. An assignment is a tuple (one value index or None per
parameter), so the same mapping can be applied again to the arguments of another size.
"""
from __future__ import annotations

import inspect
import itertools
import re

MAX_MAPPED = 12                 # mapped calls offered per follower
MAX_PERMUTATIONS = 5040         # 7! assignments; wider signatures get the by-name and positional ones only

ROLES = (("shape", {"shape", "size", "sizes"}), ("in", {"in", "cin", "inp", "input", "inputs", "nin", "ic", "src"}),
         ("out", {"out", "cout", "output", "outputs", "nout", "oc", "dst", "planes"}),
         ("kernel", {"k", "kernel", "ksize", "ks", "filter", "window"}), ("stride", {"stride", "strides"}),
         ("pad", {"pad", "padding"}), ("dilation", {"dilation"}), ("groups", {"groups", "group"}),
         ("eps", {"eps", "epsilon"}), ("dim", {"dim", "axis", "dims"}), ("p", {"p", "prob", "rate", "dropout"}),
         ("slope", {"slope", "negative"}), ("scale", {"scale", "factor", "alpha", "multiplier"}),
         ("min", {"min", "lo", "low"}), ("max", {"max", "hi", "high"}), ("heads", {"heads", "head"}),
         ("hidden", {"hidden", "ffn", "mlp"}), ("features", {"features", "channels", "embed"}))


def _tokens(name: str) -> list[str]:
    return [t for t in re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().replace("_", " ").split() if t]


def role(name: str):
    """What a constructor parameter is for, from its name: "in", "out", "kernel", "shape", ... or None."""
    if name.lower() in ("c_in", "cin", "n_in", "nin"):
        return "in"
    toks = _tokens(name)
    for r, words in ROLES:
        if any(t in words or (r in ("in", "out") and t.startswith(r) and len(t) <= 4) for t in toks):
            return r
    return None


def bound_values(cls, call) -> list[tuple[str, object]]:
    """A constructor call as (parameter name, value) pairs, in the signature's order."""
    try:
        bound = inspect.signature(cls).bind(*call[0], **call[1])
    except (TypeError, ValueError):
        return [(f"arg{i}", v) for i, v in enumerate(call[0])] + list(call[1].items())
    out = []
    for name, value in bound.arguments.items():
        param = bound.signature.parameters[name]
        if param.kind == param.VAR_POSITIONAL:
            out += [(f"{name}{i}", v) for i, v in enumerate(value)]
        elif param.kind == param.VAR_KEYWORD:
            out += list(value.items())
        else:
            out.append((name, value))
    return out


def _params(cls) -> list:
    try:
        return [p for p in inspect.signature(cls).parameters.values()
                if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    except (TypeError, ValueError):
        return []


def _same_role(pname: str, vname: str) -> bool:
    return pname == vname or (role(pname) is not None and role(pname) == role(vname))


def _by_name(params, values) -> tuple:
    """Each value to the parameter of the same name or role (first free one), the rest in order."""
    slots, free = [None] * len(params), set(range(len(values)))
    for j, p in enumerate(params):
        hit = next((i for i in sorted(free) if _same_role(p.name, values[i][0])), None)
        if hit is not None:
            slots[j] = hit
            free.discard(hit)
    for j, p in enumerate(params):
        if slots[j] is None and p.default is p.empty and free:
            slots[j] = min(free)
            free.discard(slots[j])
    return tuple(slots)


def assignments(params, values) -> list[tuple]:
    """Plausible assignments, best first (see the module docstring)."""
    required = [j for j, p in enumerate(params) if p.default is p.empty]
    n, k = len(values), min(len(params), max(len(values), len(required)))
    found = [_by_name(params, values), tuple(list(range(min(n, len(params)))) + [None] * (len(params) - n))]
    if math_perm(max(n, k), min(n, k)) <= MAX_PERMUTATIONS:
        if n >= k:
            for picked in itertools.permutations(range(n), k):
                found.append(tuple(picked) + (None,) * (len(params) - k))
        else:
            for slots in itertools.permutations(range(k), n):
                combo = [None] * len(params)
                for i, j in enumerate(slots):
                    combo[j] = i
                found.append(tuple(combo))
    valid = [c for c in dict.fromkeys(found) if all(c[j] is not None for j in required)
             and len([x for x in c if x is not None]) == len({x for x in c if x is not None})]

    def rank(c):
        used = sum(x is not None for x in c)
        names = sum(1 for j, x in enumerate(c) if x is not None and _same_role(params[j].name, values[x][0]))
        moved = sum(abs(j - x) for j, x in enumerate(c) if x is not None)
        return (-used, -names, moved)
    return sorted(valid, key=rank)[:MAX_MAPPED]


def math_perm(n: int, k: int) -> int:
    out = 1
    for i in range(n - k + 1, n + 1):
        out *= i
    return out


def apply_assignment(provider_cls, call, follower_cls, assignment) -> tuple[tuple, dict]:
    """The follower's constructor call that puts the provider's ``call`` values where ``assignment`` says."""
    values, params = bound_values(provider_cls, call), _params(follower_cls)
    if len(params) != len(assignment) or any(x is not None and x >= len(values) for x in assignment):
        raise ValueError("assignment does not fit this call")
    args, kwargs = [], {}
    for p, x in zip(params, assignment):
        if x is None:
            continue
        if p.kind == p.POSITIONAL_ONLY:
            args.append(values[x][1])
        else:
            kwargs[p.name] = values[x][1]
    return tuple(args), kwargs


def mapped_calls(provider_cls, call, follower_cls) -> list[tuple[tuple[tuple, dict], tuple]]:
    """[(follower call, assignment), ...] for the provider's ``call``, most plausible first."""
    values, params = bound_values(provider_cls, call), _params(follower_cls)
    if not params:
        return [(((), {}), ())]
    return [(apply_assignment(provider_cls, call, follower_cls, a), a) for a in assignments(params, values)]
