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
* ``scaled_up`` / ``scaled_down`` / ``shifted``: seed 0's floating inputs times 40, times 1/40, and plus 1000.
  Untested when the reference's outputs are not finite there, or there is no floating input.

A configuration the reference could not run says why (``untested: ...``); it never counts against a sample.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["ConfigCase", "SHAPE_CONFIGS", "RANGE_CONFIGS", "MAX_GROWTH", "other_configs", "size_constants"]

SHAPE_CONFIGS = (("larger", 2.0), ("smaller", 0.5))
RANGE_CONFIGS = (("scaled_up", 40.0, 0.0), ("scaled_down", 1 / 40, 0.0), ("shifted", 1.0, 1000.0))
MAX_GROWTH = 8          # a resized configuration holds at most this many times the visible inputs' elements


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
        case = build(module, visible["seed"], device)
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
                      case["outputs"])


def _rescaled(visible: dict, name: str, scale: float, shift: float, run: Callable) -> ConfigCase:
    import torch

    if not any(isinstance(t, torch.Tensor) and t.is_floating_point() for t in visible["inputs"]):
        return ConfigCase(name, "range", untested="no floating-point input")
    inputs = [t * scale + shift if isinstance(t, torch.Tensor) and t.is_floating_point() else t
              for t in visible["inputs"]]
    try:
        with torch.no_grad():
            outputs = run(visible["model"], inputs)
    except Exception as exc:  # noqa: BLE001
        return ConfigCase(name, "range", untested=f"the reference fails on these values: {type(exc).__name__}")
    if not _finite(outputs):
        return ConfigCase(name, "range", untested="the reference is not finite on these values")
    return ConfigCase(name, "range", visible["seed"], visible["init_inputs"], visible["state_dict"], inputs,
                      outputs)


def other_configs(module, visible: dict, build: Callable, run: Callable, device: str) -> list[ConfigCase]:
    """Every configuration of :data:`SHAPE_CONFIGS` and :data:`RANGE_CONFIGS`, for the reference ``module``.

    ``visible`` is seed 0's reference case (``harness.build_reference_case``: its model still alive), ``build``
    that function (a new case from the module, a seed and a device), ``run`` the reference's forward on inputs
    (``(model, inputs) -> flat outputs``)."""
    out = [_resized(module, visible, name, factor, build, device) for name, factor in SHAPE_CONFIGS]
    out += [_rescaled(visible, name, scale, shift, run) for name, scale, shift in RANGE_CONFIGS]
    return out
