"""Sandbox side of the behavioural prober: pick one small size at which both references can run on shared inputs.

Imports nothing from kvdata (loaded by path inside the prober worker, next to ``discover.py``).

KernelBench inputs are gigabytes (``torch.rand(4096, 393216)``), and two references of one task rarely share
sizes. So:

1. **Shrink the provider** (the side whose ``get_inputs`` feeds both): its module-level size constants — ints
   above ``FLOOR``, and such ints inside tuples (``bias_shape = (out_features,)``) — are divided by a factor
   ``f`` (never below ``FLOOR``; small ints such as kernel sizes, strides and dims stay). The smallest ``f`` whose
   inputs fit ``INPUT_BUDGET`` elements is tried first, checked with a forward pass on fake tensors (shapes only,
   no memory), or for real where fake tensors cannot run the code; outputs over ``OUTPUT_BUDGET`` elements
   (a matmul of two thin inputs) and parameters over ``PARAM_BUDGET`` push to the next factor.
2. **Rebuild the follower to fit** those inputs, candidates in order: its own constructor calls with its own
   constants shrunk by the same ``f`` (the same code at the same sizes meets itself); then the provider's
   constructor arguments mapped onto the follower's parameters — by role of the name (``in_channels`` ~
   ``c_in`` ~ ``n_in``), then in any order (reordered arguments)
   (:mod:`_probe_args`); each kept only if a fake forward on the provider's inputs gives the provider's output
   shapes.
3. If no follower fits, the sides swap roles (when the follower has inputs of its own).
4. **A second size.** Shrinking can make two functions meet by coincidence (GroupNorm with as many groups as
   channels is InstanceNorm), so an equivalent plan is run again at another size (:func:`second_sizes`,
   :func:`at_size`), the follower rebuilt by the same recipe.
"""
from __future__ import annotations

from dataclasses import dataclass, field

try:                                                 # imported as part of kvdata.audit
    from . import _probe_args as args_map
    from . import discover
except ImportError:                                  # loaded by path in the sandboxed worker
    import kv_probe_args as args_map                 # type: ignore[no-redef]
    import kv_probe_discover as discover             # type: ignore[no-redef]

FLOOR = 8
FACTORS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384)
INPUT_BUDGET = 1 << 18          # elements of one probe's inputs
HARD_INPUT_BUDGET = 1 << 24     # beyond this a provider is not run for real at all
OUTPUT_BUDGET = 1 << 20         # elements of one side's outputs
PARAM_BUDGET = 1 << 23          # elements of the parameters and buffers of one side


class ShapeMismatch(Exception):
    """No size at which both sides take the same inputs and give outputs of the same shapes."""


class TooLarge(ShapeMismatch):
    """The provider's inputs stay over HARD_INPUT_BUDGET at every size its constants allow."""


@dataclass
class Side:
    """One reference and the module it lives in, with the module's original size constants."""

    label: str                                   # "bench" or "train"
    ref: object                                  # discover.Reference
    module: object
    consts: dict = field(default_factory=dict)

    def __post_init__(self):
        self.consts = {k: v for k, v in vars(self.module).items()
                       if not k.startswith("__") and _shrinkable(v) and shrink_value(v, 2) != v}

    def apply(self, factor: int, floor: int = FLOOR) -> None:
        for k, v in self.consts.items():
            setattr(self.module, k, shrink_value(v, factor, floor))


@dataclass
class Plan:
    """Where both sides run: the provider's sizes and how to build each side (a zero-arg builder per side)."""

    provider: Side
    follower: Side
    factor: int
    build_provider: object
    build_follower: object
    note: str
    recipe: tuple = ("function", None)         # how the follower was built: ("own", i), ("mapped", assignment)
    fake: bool = True                          # whether the size check ran on fake tensors
    floor: int = FLOOR                         # the smallest a shrunk size constant gets

    def prepare(self) -> None:
        self.provider.apply(self.factor, self.floor)
        self.follower.apply(self.factor, self.floor)

    def inputs(self) -> list:
        return as_list(self.provider.ref.inputs())


def _shrinkable(v) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return isinstance(v, (tuple, list)) and 0 < len(v) <= 8 and all(isinstance(x, int) and not isinstance(x, bool)
                                                                    for x in v)


def shrink_value(v, factor: int, floor: int = FLOOR):
    """A size constant divided by ``factor`` (ints above ``floor`` only, never below it; tuples elementwise)."""
    if isinstance(v, bool) or factor == 1:
        return v
    if isinstance(v, int):
        return v if v <= floor else max(floor, v // factor)
    if isinstance(v, (tuple, list)) and _shrinkable(v):
        return type(v)(shrink_value(x, factor, floor) for x in v)
    return v


def as_list(x) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def fake_mode():
    from torch._subclasses.fake_tensor import FakeTensorMode
    return FakeTensorMode(allow_non_fake_inputs=True)


def numel(values) -> int:
    import torch
    total = 0
    for v in values:
        if isinstance(v, torch.Tensor):
            total += v.numel()
        elif isinstance(v, (list, tuple)):
            total += numel(v)
    return total


def state_numel(obj) -> int:
    import torch.nn as nn
    if not isinstance(obj, nn.Module):
        return 0
    return sum(t.numel() for t in obj.parameters()) + sum(t.numel() for t in obj.buffers())


def signature(out) -> list:
    """Shapes of every tensor an output holds (nested tuples, lists and dicts flattened)."""
    import torch
    if isinstance(out, torch.Tensor):
        return [tuple(out.shape)]
    if isinstance(out, (list, tuple)):
        return [s for o in out for s in signature(o)]
    if isinstance(out, dict):
        return [s for k in sorted(out, key=str) for s in signature(out[k])]
    return [()] if isinstance(out, (int, float, bool)) else []


def builder(side: Side, call=None):
    """A zero-arg builder: a fresh module (seeded) for a module reference, the function for a function one."""
    def build():
        import torch
        if side.ref.kind == "function":
            return side.ref.obj
        torch.manual_seed(0)
        return side.ref.obj(*call[0], **call[1])
    return build


def run_shapes(build, inputs_fn, fake: bool):
    """(output shapes, state elements) of ``build()(*inputs_fn())``, on fake tensors or for real."""
    import torch
    ctx = fake_mode() if fake else torch.no_grad()
    with ctx, torch.no_grad():
        xs = as_list(inputs_fn())
        obj = build()
        if hasattr(obj, "eval"):
            obj.eval()
        return signature(obj(*xs)), state_numel(obj)


def _first_working(side: Side, inputs_fn, fake: bool):
    """The provider's first constructor call that runs on its own inputs: (call, shapes, state elements)."""
    calls = discover.init_calls_for(side.ref.obj, side.module) if side.ref.kind == "module" else [None]
    errors = []
    for call in calls:
        try:
            shapes, size = run_shapes(builder(side, call), inputs_fn, fake)
            return call, shapes, size
        except Exception as err:  # noqa: BLE001 - untrusted code
            errors.append(f"{type(err).__name__}: {err}"[:200])
    raise RuntimeError(" | ".join(errors) or "no constructor call")


def _prod(shape) -> int:
    out = 1
    for d in shape:
        out *= int(d)
    return out


def _input_size(side: Side, factor: int, floor: int = FLOOR):
    side.apply(factor, floor)
    try:
        with fake_mode():
            return numel(as_list(side.ref.inputs()))
    except Exception:  # noqa: BLE001 - fake tensors cannot run every get_inputs; size it for real then
        return None


def provider_sizes(side: Side):
    """Yield (factor, call, shapes, fake) for the provider at the sizes worth trying, best first."""
    sizes = {f: _input_size(side, f) for f in FACTORS}
    fitting = [f for f in FACTORS if sizes[f] is not None and sizes[f] <= INPUT_BUDGET]
    unknown = [f for f in FACTORS if sizes[f] is None]
    larger = [f for f in reversed(FACTORS) if sizes[f] is not None and INPUT_BUDGET < sizes[f] <= HARD_INPUT_BUDGET
              and (not fitting or f < fitting[0])]
    order, seen = [], set()
    for f in fitting[:4] + larger[:2] + (unknown[-1:] if unknown else []):
        key = tuple(sorted((k, repr(shrink_value(v, f))) for k, v in side.consts.items()))
        if key not in seen:
            seen.add(key)
            order.append(f)
    if not order:
        raise TooLarge(f"{side.label} inputs of {min(v for v in sizes.values() if v is not None):,} elements "
                       f"at the smallest size")
    over_budget = None
    for f in order:
        side.apply(f)
        inputs_fn = side.ref.inputs
        for fake in (True, False):
            try:
                call, shapes, size = _first_working(side, inputs_fn, fake)
            except Exception:  # noqa: BLE001
                continue
            if size > PARAM_BUDGET or sum(_prod(sh) for sh in shapes) > OUTPUT_BUDGET:
                over_budget = over_budget or (f, call, shapes, fake)
                break
            yield f, call, shapes, fake
            break
    if over_budget is not None:
        yield over_budget


# ------------------------------------------------------------------------------------------ plans
def plans(a: Side, b: Side):
    """Yield Plans for sides ``a`` and ``b`` (a provides inputs when it has them), most plausible first."""
    pairs = [(p, f) for p, f in ((a, b), (b, a)) if p.ref.inputs is not None]
    mismatch, yielded, too_large = None, 0, None
    for provider, follower in pairs:
        if yielded:
            return          # the other direction only helps where this one found no size that fits both
        try:
            for factor, call, shapes, fake in provider_sizes(provider):
                found = 0
                for fcall, how, recipe in _follower_calls(provider, call, follower, factor):
                    problem = _check_follower(provider, follower, factor, fcall, shapes, fake)
                    if problem:
                        mismatch = problem
                        continue
                    found += 1
                    yielded += 1
                    yield Plan(provider, follower, factor, builder(provider, call), builder(follower, fcall),
                               f"inputs from {provider.label} at 1/{factor} size, {follower.label} {how}",
                               recipe, fake)
                if found:
                    break       # one provider size that fits is enough: the next ones differ only in size
        except TooLarge as err:
            too_large = err
    if too_large is not None and mismatch is None:
        raise too_large
    raise ShapeMismatch(mismatch or "no size fits both sides")


def _check_follower(provider: Side, follower: Side, factor: int, fcall, shapes, fake: bool,
                    floor: int = FLOOR) -> str:
    """"" when the follower built with ``fcall`` gives the provider's output shapes, else why not."""
    try:
        provider.apply(factor, floor)
        follower.apply(factor, floor)
        got, _ = run_shapes(builder(follower, fcall), provider.ref.inputs, fake)
    except Exception as err:  # noqa: BLE001
        return f"{follower.ref.name}: {type(err).__name__}: {err}"[:300]
    if got != shapes:
        return f"{follower.ref.name} gives {got[:3]}, {provider.ref.name} gives {shapes[:3]}"
    return ""


def _follower_calls(provider: Side, call, follower: Side, factor: int):
    """(call, how, recipe) for the follower, most plausible first."""
    if follower.ref.kind == "function":
        yield None, "called as is", ("function", None)
        return
    follower.apply(factor)
    seen = []
    for i, own in enumerate(discover.init_calls_for(follower.ref.obj, follower.module)):
        seen.append(own)
        yield own, "with its own arguments shrunk", ("own", i)
    if call is None or provider.ref.kind != "module":
        return
    for mapped, assignment in args_map.mapped_calls(provider.ref.obj, call, follower.ref.obj):
        if not any(_same(mapped, s) for s in seen):
            seen.append(mapped)
            yield mapped, f"built with the {provider.label} arguments {_show(mapped)}", ("mapped", assignment)


def second_sizes(plan: Plan):
    """Yield (factor, floor) of other sizes to run an equivalent plan at, best first.

    First the floor doubled (sizes held at FLOOR are the likeliest to make two functions meet: 8 groups of 8
    channels), from the smallest factor whose inputs fit 8x the budget; then the largest other sizes that fit
    it; then smaller sizes."""
    def key(f, floor):
        return tuple(repr(shrink_value(v, f, floor)) for side in (plan.provider, plan.follower)
                     for v in side.consts.values())
    seen = {key(plan.factor, plan.floor)}
    for floor in (2 * plan.floor, plan.floor):
        for f in FACTORS:                                      # largest sizes first
            if floor == plan.floor and f >= plan.factor:
                break
            size = _input_size(plan.provider, f, floor)
            if key(f, floor) not in seen and size is not None and size <= 8 * INPUT_BUDGET:
                seen.add(key(f, floor))
                yield f, floor
    for f in FACTORS:
        if f > plan.factor and key(f, plan.floor) not in seen:
            seen.add(key(f, plan.floor))
            yield f, plan.floor


def at_size(plan: Plan, factor: int, floor: int):
    """The same plan (same follower recipe) at another size, or None where it does not fit there."""
    provider, follower = plan.provider, plan.follower
    try:
        provider.apply(factor, floor)
        follower.apply(factor, floor)
        call, shapes, state = _first_working(provider, provider.ref.inputs, plan.fake)
        if state > PARAM_BUDGET or sum(_prod(sh) for sh in shapes) > 8 * OUTPUT_BUDGET:
            return None
        kind, arg = plan.recipe
        if kind == "own":
            follower.apply(factor, floor)
            fcall = discover.init_calls_for(follower.ref.obj, follower.module)[arg]
        elif kind == "mapped":
            fcall = args_map.apply_assignment(provider.ref.obj, call, follower.ref.obj, arg)
        else:
            fcall = None
    except Exception:  # noqa: BLE001
        return None
    if _check_follower(provider, follower, factor, fcall, shapes, plan.fake, floor):
        return None
    note = plan.note.replace(f"at 1/{plan.factor} size", f"at 1/{factor} size" + (
        f" (floor {floor})" if floor != FLOOR else ""))
    return Plan(provider, follower, factor, builder(provider, call), builder(follower, fcall), note,
                plan.recipe, plan.fake, floor)


def _same(a, b) -> bool:
    try:
        return bool(a[0] == b[0] and a[1] == b[1])
    except Exception:  # noqa: BLE001
        return False


def _show(call) -> str:
    parts = [repr(v) for v in call[0]] + [f"{k}={v!r}" for k, v in call[1].items()]
    return ("(" + ", ".join(parts) + ")")[:120]
