"""GPU timing of one side (reference or candidate) inside the sample's process.

Every timed call gets inputs no earlier call saw, in fresh tensors (``timing_inputs``), an L2
flush and a whole-device synchronisation on both sides of its timed region; the outputs of the
last calls are kept so that the parent judges them too (``checks.check_timed_outputs``). Nothing
cached by shape, pointer or content can then answer a timed call, and work left on other
streams or threads is inside the region.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from kvdata.reverify.clocks import Clocks

TIMED_CHECKED = 2                  # the last timed calls whose outputs the parent checks
TIMING_JITTER = 0.05               # relative perturbation that makes each timed call's inputs new


def timing_inputs(base: list, seed: int, rep: int) -> list:
    """The inputs of timed call ``rep``: ``base`` with every floating tensor scaled elementwise by
    ``1 + TIMING_JITTER * u``, ``u`` uniform in [-1, 1] drawn from ``seed`` and ``rep``.

    Why: every timed call must see inputs it has never seen, in fresh tensors, so that nothing
    cached by shape, pointer or content can answer it. A small multiplicative jitter keeps the
    inputs valid where a redraw might not be cheap (signs, zeros and positivity survive). The
    reference is timed on exactly the same sequence, so its outputs for the last calls are the
    trusted answers the candidate's timed outputs are compared with. Drawn outside the timed region.
    """
    import torch

    out = []
    for i, x in enumerate(base):
        if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel():
            g = torch.Generator(device=x.device)
            g.manual_seed((seed * 1_000_003 + rep * 101 + i) % 2**63)
            u = torch.rand(x.shape, generator=g, device=x.device, dtype=torch.float32)
            x = x * (1.0 + TIMING_JITTER * (2.0 * u - 1.0)).to(x.dtype)
        elif isinstance(x, torch.Tensor):
            x = x.clone()
        out.append(x)
    return out


class LazyOutput(TypeError):
    """A timed call returned something other than a plain tensor (see :func:`refuse_lazy`)."""


def refuse_lazy(outputs: list) -> None:
    """Inside the timed region: every output must be a plain tensor. A tensor subclass can compute on first read
    (after the region closed) and a lazy object likewise, so a timing of either would time nothing; the sample's
    timing stage fails instead, with this reason."""
    import torch

    for t in outputs:
        if type(t) not in (torch.Tensor, torch.nn.Parameter):
            raise LazyOutput(f"a timed call returned a {type(t).__module__}.{type(t).__qualname__}, not a plain "
                             "tensor: it could compute after the timed region, so it cannot be timed")


def time_gpu(model, base_inputs: list, timing: dict, device: str, seed: int,
             clocks: "Clocks") -> tuple[Optional[float], list]:
    """(median milliseconds, outputs of the last ``TIMED_CHECKED`` timed calls, on the host).

    Each timed call gets fresh inputs (``timing_inputs``), an L2 flush, and a whole-device
    synchronisation on both sides of its timed region: work a sample leaves on other streams
    or threads is inside the region, not after it. The region is measured with device events
    recorded after each synchronisation, through ``clocks``: the handles taken before any candidate code ran
    (:class:`kvdata.reverify.clocks.Clocks`), not whatever the names reach now.
    """
    import torch

    from kvdata.reverify.harness import flatten_outputs

    reps, warmup = int(timing["reps"]), int(timing["warmup"])
    flush = torch.empty(int(timing["flush_mb"]) * 2**20 // 4, dtype=torch.int32, device=device)
    times, kept = [], []
    with torch.no_grad():
        for rep in range(warmup):
            model(*timing_inputs(base_inputs, seed, -1 - rep))
        clocks.synchronize()
        spent = clocks.monotonic()
        for rep in range(reps):
            inputs = timing_inputs(base_inputs, seed, rep)
            flush.zero_()
            start, end = clocks.event(), clocks.event()
            clocks.synchronize()
            clocks.record(start)
            out = model(*inputs)
            outs = flatten_outputs(out)
            refuse_lazy(outs)
            clocks.synchronize()
            clocks.record(end)
            clocks.wait(end)
            times.append(clocks.elapsed_ms(start, end))
            last = rep == reps - 1 or clocks.monotonic() - spent > float(timing["max_seconds"])
            kept = (kept + [[t.detach() for t in outs]])[-TIMED_CHECKED:]   # on the device
            del out, outs, inputs
            if last:
                break
    del flush
    times.sort()
    return (times[len(times) // 2] if times else None), [[t.to("cpu") for t in call] for call in kept]
