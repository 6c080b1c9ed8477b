"""Input configurations besides the visible one: other sizes and other value ranges (runs inside the sandbox).

The release checked each sample on one fixed-seed input of one shape. A kernel can be right there and nowhere
else: a softmax specialised to 64x512, a row length hard-coded as a literal, a row maximum that samples every
second element past width 1024, a one-pass variance that cancels catastrophically once the inputs sit far from
zero. AMD's AgentKernelArena and KernelBench-Hard test unseen configurations for this reason; so does this.

Each configuration is built from the reference module, before any candidate code exists in the process, and
judged like a seed (the parent compares; ``checks.check_configs``):

* ``larger`` / ``smaller``: the module-level integer constants ``get_inputs()``/``get_init_inputs()`` read
  (``ROWS = 64``, ``dim = 512``) times 2 and times 1/2, the reference rebuilt from them (a new candidate instance
  too where the constructor's arguments change). Untested when there is no such constant, when the reference
  fails or turns non-finite at that size, when the inputs would grow past ``MAX_GROWTH`` times the visible ones,
  or when no input's shape changes.
* ``input<i>_dim<d>_<size>``: one dimension of floating inputs resized (see ``_one_dim_resized``) to the next
  power of two (doubled when it is one already), with fresh values of that input's mean and spread, the visible
  model kept. A power of two keeps the divisibility block sizes rely on, and stays within the power-of-two block
  an honest kernel sizes from the visible length (a softmax over 200,000 logits in one program of 2^18). Scaling
  the constants keeps every ratio: one ``N`` for a square product stays square, literal sizes in
  ``get_inputs()`` never change. The reference decides which
  dimensions are free: a resized dimension it refuses (a matmul's inner size, a Linear's features) is skipped.
  Up to ``MAX_DIM_CONFIGS`` of them, first inputs and leading dimensions first.
* ``scaled_up`` / ``scaled_down`` / ``shifted`` / ``negated`` / ``shifted_down``: seed 0's floating inputs times
  40, times 1/40, plus 1000, times -1 and minus 1000 (a kernel that assumes non-negative inputs, or a softmax
  without its max subtraction, is right on ``randn`` and on ``+1000`` but not there).
* ``resampled``: every floating input drawn afresh with its own mean and spread, element by element. Structure
  built into ``get_inputs()`` (a symmetric matrix, sorted rows) is gone, so a kernel that relies on it where the
  reference does not is caught.

The reference's work is counted on each configuration (``ref_flops``, ``ref_elements``): the harness holds the
candidate's torch work there against it (``checks.check_torch_share``), for a fallback to torch off the visible
sizes or values.

A configuration the reference could not run says why (``untested: ...``); it never counts against a sample.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["ConfigCase", "SHAPE_CONFIGS", "RANGE_CONFIGS", "MAX_GROWTH", "MAX_DIM_CONFIGS", "other_configs",
           "size_constants"]

SHAPE_CONFIGS = (("larger", 2.0), ("smaller", 0.5))
RANGE_CONFIGS = (("scaled_up", 40.0, 0.0), ("scaled_down", 1 / 40, 0.0), ("shifted", 1.0, 1000.0),
                 ("negated", -1.0, 0.0), ("shifted_down", 1.0, -1000.0))
MAX_GROWTH = 8          # a resized configuration holds at most this many times the visible inputs' elements
MAX_DIM_CONFIGS = 2     # resized-dimension configurations judged ...
MAX_DIM_TRIES = 6       # ... out of at most this many the reference is asked about


@dataclass
class ConfigCase:
    """One configuration: what the reference was built with and gave (``outputs``), or why it is untested."""

    name: str
    kind: str                                   # "shape" or "range"
    seed: int = 0
    init_inputs: list = field(default_factory=list)
    state_dict: Any = None
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    untested: str = ""                          # why this configuration could not be run ('' when it was)
    ref_flops: Any = None                       # the reference's FLOPs here (torch_op_recorder), None: not counted
    ref_elements: Any = None                    # the elements its other math ops touched here


def size_constants(module) -> dict[str, int]:
    """The module-level integers of at least 2 that ``get_inputs``/``get_init_inputs`` name."""
    names: set[str] = set()
    for fn_name in ("get_inputs", "get_init_inputs"):
        fn = getattr(module, fn_name, None)
        code = getattr(fn, "__code__", None)
        if code is not None:
            names.update(code.co_names)
    return {n: v for n, v in vars(module).items()
            if n in names and type(v) is int and v >= 2}


def _numel(inputs: list) -> int:
    import torch

    return sum(t.numel() for t in inputs if isinstance(t, torch.Tensor))


def _finite(outputs: list) -> bool:
    import torch

    return all(bool(torch.isfinite(t).all()) for t in outputs
               if isinstance(t, torch.Tensor) and t.is_floating_point())


def _shapes(inputs: list) -> list:
    return [tuple(t.shape) if hasattr(t, "shape") else None for t in inputs]


def _resized(module, visible: dict, name: str, factor: float, build: Callable, device: str) -> ConfigCase:
    consts = size_constants(module)
    if not consts:
        return ConfigCase(name, "shape", untested="no module-level size constant in get_inputs()")
    saved = dict(consts)
    try:
        for k, v in consts.items():
            setattr(module, k, max(1, int(round(v * factor))))
        case = build(module, visible["seed"], device, count_flops=True)
    except Exception as exc:  # noqa: BLE001 - the reference does not run at this size: untested, not a failure
        return ConfigCase(name, "shape", untested=f"the reference fails at this size: {type(exc).__name__}"[:200])
    finally:
        for k, v in saved.items():
            setattr(module, k, v)
    if _shapes(case["inputs"]) == _shapes(visible["inputs"]):
        return ConfigCase(name, "shape", untested="no input changes shape")
    if _numel(case["inputs"]) > MAX_GROWTH * max(1, _numel(visible["inputs"])):
        return ConfigCase(name, "shape", untested="inputs too large at this size")
    if not _finite(case["outputs"]):
        return ConfigCase(name, "shape", untested="the reference is not finite at this size")
    return ConfigCase(name, "shape", case["seed"], case["init_inputs"], case["state_dict"], case["inputs"],
                      case["outputs"], ref_flops=case.get("flops"), ref_elements=case.get("elements"))


def _fresh_like(t, shape: tuple, seed: int):
    """Values drawn afresh, element by element, with ``t``'s mean and spread, in ``shape``."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    ref = t.detach().to("cpu", torch.float64)
    mean, std = float(ref.mean()), float(ref.std()) if ref.numel() > 1 else 1.0
    fresh = torch.randn(shape, generator=gen, dtype=torch.float64) * (std if std > 0 else 1.0) + mean
    return fresh.to(dtype=t.dtype, device=t.device)


def _floating(t) -> bool:
    import torch

    return isinstance(t, torch.Tensor) and t.is_floating_point()


def _run_counted(run: Callable, model, inputs: list):
    """The reference's outputs on ``inputs``, the FLOPs it ran and the elements its other math ops touched
    (``defences.torch_op_recorder``)."""
    import torch

    from kvdata.reverify.defences import torch_op_recorder

    counter = torch_op_recorder()
    with torch.no_grad(), counter:
        outputs = run(model, inputs)
    return outputs, counter.flops, counter.elements


def _judged_on(visible: dict, name: str, kind: str, inputs: list, run: Callable,
               what: str = "inputs") -> ConfigCase:
    """The reference (the visible model) on ``inputs``: a configuration, or why it is untested (``what`` names
    what changed in the reason)."""
    try:
        outputs, flops, elements = _run_counted(run, visible["model"], inputs)
    except Exception as exc:  # noqa: BLE001 - the reference does not take these inputs: untested
        return ConfigCase(name, kind, untested=f"the reference fails on these {what}: {type(exc).__name__}"[:200])
    if not _finite(outputs):
        return ConfigCase(name, kind, untested=f"the reference is not finite on these {what}")
    return ConfigCase(name, kind, visible["seed"], visible["init_inputs"], visible["state_dict"], inputs, outputs,
                      ref_flops=flops, ref_elements=elements)


def _next_size(size: int) -> int:
    """The next power of two above ``size`` (twice ``size`` when it is one)."""
    return 1 << size.bit_length() if size & (size - 1) else 2 * size


def _linked(inputs: list, i: int, d: int) -> list[tuple[int, int]]:
    """Input ``i``'s dimension ``d`` and the same dimension of every other floating input of as many dimensions
    and the same size there: q, k and v's sequence length, resized together."""
    t = inputs[i]
    return [(j, d) for j, u in enumerate(inputs)
            if _floating(u) and u.dim() == t.dim() and u.shape[d] == t.shape[d]]


def _one_dim_resized(visible: dict, run: Callable) -> list[ConfigCase]:
    """Up to ``MAX_DIM_CONFIGS`` configurations, each with one dimension resized (the reference says which it
    takes); none when no input has a dimension of at least 2.

    First each dimension together with the same dimension of the inputs that share its size (q, k and v's
    sequence length; a problem whose inputs are all one shape stays that way), then, while fewer than
    ``MAX_DIM_CONFIGS`` were found, each on its own (one side of a square product)."""
    inputs = visible["inputs"]
    sites = [(i, d) for i, t in enumerate(inputs) if _floating(t) for d, size in enumerate(t.shape) if size >= 2]
    plans, seen = [], set()
    for together in (True, False):
        for i, d in sites:
            group = tuple(_linked(inputs, i, d)) if together else ((i, d),)
            if group not in seen:
                seen.add(group)
                plans.append(group)
    found: list[ConfigCase] = []
    budget = MAX_GROWTH * max(1, _numel(inputs))
    for group in plans[:MAX_DIM_TRIES]:
        if len(found) >= MAX_DIM_CONFIGS:
            break
        new_inputs = list(inputs)
        for j, d in group:
            t = inputs[j]
            shape = tuple(t.shape[:d]) + (_next_size(t.shape[d]),) + tuple(t.shape[d + 1:])
            new_inputs[j] = _fresh_like(t, shape, visible["seed"] + 7919 * (j + 1) + d)
        if _numel(new_inputs) > budget:
            continue
        i, d = group[0]
        name = f"input{'+'.join(str(j) for j, _ in group)}_dim{d}_{new_inputs[i].shape[d]}"
        case = _judged_on(visible, name, "shape", new_inputs, run)
        if not case.untested:
            found.append(case)
    return found


def _resampled(visible: dict, run: Callable) -> ConfigCase:
    if not any(_floating(t) for t in visible["inputs"]):
        return ConfigCase("resampled", "range", untested="no floating-point input")
    inputs = [_fresh_like(t, tuple(t.shape), visible["seed"] + 104729 + i) if _floating(t) else t
              for i, t in enumerate(visible["inputs"])]
    return _judged_on(visible, "resampled", "range", inputs, run)


def _rescaled(visible: dict, name: str, scale: float, shift: float, run: Callable) -> ConfigCase:
    if not any(_floating(t) for t in visible["inputs"]):
        return ConfigCase(name, "range", untested="no floating-point input")
    inputs = [t * scale + shift if _floating(t) else t for t in visible["inputs"]]
    return _judged_on(visible, name, "range", inputs, run, what="values")


def other_configs(module, visible: dict, build: Callable, run: Callable, device: str) -> list[ConfigCase]:
    """Every configuration of :data:`SHAPE_CONFIGS` and :data:`RANGE_CONFIGS`, for the reference ``module``.

    ``visible`` is seed 0's reference case (``harness.build_reference_case``: its model still alive), ``build``
    that function (a new case from the module, a seed and a device), ``run`` the reference's forward on inputs
    (``(model, inputs) -> flat outputs``)."""
    out = [_resized(module, visible, name, factor, build, device) for name, factor in SHAPE_CONFIGS]
    out += _one_dim_resized(visible, run)
    out += [_rescaled(visible, name, scale, shift, run) for name, scale, shift in RANGE_CONFIGS]
    out.append(_resampled(visible, run))
    return out
