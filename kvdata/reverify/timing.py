"""GPU timing of one side (reference or candidate) inside the sample's process.

Every timed call gets inputs no earlier call saw, in fresh tensors (``timing_inputs``), an L2
flush and a whole-device synchronisation on both sides of its timed region; the outputs of the
last calls are kept so that the parent judges them too (``checks.check_timed_outputs``), and every
timed call's outputs leave as a sketch (``sketch_outputs``) that the parent compares with the
reference's on the same inputs (``checks.check_timed_sketches``). Nothing cached by shape, pointer
or content can then answer a timed call, work left on other streams or threads is inside the
region, and a candidate that does the work on some timed calls only (the last ones, or those it
guesses are checked) fails: every timed call is checked, so there is no call to guess.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from kvdata.reverify.calls import CallServer

TIMED_CHECKED = 2                  # the last timed calls whose outputs the parent checks element by element
TIMING_JITTER = 0.05               # relative perturbation that makes each timed call's inputs new
SKETCH_WIDTH = 8                   # random projections per output of every timed call
SKETCH_COLUMNS = SKETCH_WIDTH + 6  # then: sum, sum of squares, elements, NaN, +inf, -inf (finite values only)


def sketch_outputs(outputs: list, seed: int, rep: int):
    """Every output of one timed call as a row of ``SKETCH_COLUMNS`` float64 numbers, on the host.

    Per output: ``SKETCH_WIDTH`` projections of its finite values on standard normal vectors drawn from
    ``seed``, ``rep`` and the output's index (the same vectors for the reference and the candidate on the same
    call), then the sum and the sum of squares of its finite values, its number of elements and its NaN, +inf
    and -inf counts. The mean squared difference of two outputs' projections estimates the squared L2 distance
    between them (Johnson-Lindenstrauss), which an elementwise tolerance bounds; the parent compares
    (``checks.check_timed_sketches``). Computed after the timed region closed.
    """
    import torch

    rows = []
    for i, t in enumerate(outputs):
        x = t.detach()
        x = (torch.view_as_real(x) if x.is_complex() else x).reshape(-1).to(torch.float64)
        finite = torch.isfinite(x)
        xf = torch.where(finite, x, torch.zeros((), dtype=x.dtype, device=x.device))
        g = torch.Generator(device=x.device)
        g.manual_seed((seed * 1_000_003 + rep * 7919 + i * 104_729 + 17) % 2**63)
        row = [torch.dot(torch.randn(x.numel(), generator=g, device=x.device, dtype=torch.float64), xf)
               for _ in range(SKETCH_WIDTH)]
        row += [xf.sum(), xf.pow(2).sum(), torch.tensor(float(x.numel()), dtype=torch.float64, device=x.device),
                torch.isnan(x).sum().double(), (x == float("inf")).sum().double(),
                (x == float("-inf")).sum().double()]
        rows.append(torch.stack([v.reshape(()) for v in row]).cpu())
    return torch.stack(rows) if rows else torch.zeros((0, SKETCH_COLUMNS), dtype=torch.float64)


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


@dataclass
class TimedRun:
    """What timing one side gives: ``ms`` the median device-event time of a call; ``kept`` the outputs of the last
    ``TIMED_CHECKED`` calls, on the host; ``sketch`` every call's output sketches, a float64 tensor of (calls,
    outputs, ``SKETCH_COLUMNS``); ``host_ms`` the median host-clock time around the same region, and
    ``host_gap_ms`` the median per call of host time minus event time (see :func:`time_gpu`)."""

    ms: Optional[float]
    kept: list = field(default_factory=list)
    sketch: Any = None
    host_ms: Optional[float] = None
    host_gap_ms: Optional[float] = None


def _median(values: list) -> Optional[float]:
    return sorted(values)[len(values) // 2] if values else None


def time_gpu(model, base_inputs: list, timing: dict, device: str, seed: int, calls: "CallServer") -> TimedRun:
    """Time ``model`` on the GPU (see :class:`TimedRun` for what comes back).

    Each timed call gets fresh inputs (``timing_inputs``) and an L2 flush; ``calls`` (the process's
    :class:`kvdata.reverify.calls.CallServer`) makes the call as it makes every other one: a whole-device
    synchronisation on both sides of its region, work a sample leaves on other streams or threads inside it,
    measured with device events through the clock handles taken before any candidate code ran
    (:class:`kvdata.reverify.clocks.Clocks`), not whatever the names reach now. A timed call is made exactly like
    an untimed one, so the candidate cannot tell them apart.

    The host clock brackets the same region: the device is idle when the start event is recorded and again
    when the end event is, so the event time of an honest call is the host time less a few microseconds of
    recording. A clock patched below Python (the runtime's symbols rewritten) shows as a host-minus-event gap
    far above the reference's, timed the same way before any candidate code existed
    (``checks.check_clocks``).
    """
    import torch

    reps, warmup = int(timing["reps"]), int(timing["warmup"])
    flush = torch.empty(int(timing["flush_mb"]) * 2**20 // 4, dtype=torch.int32, device=device)
    times, kept, sketches, host = [], [], [], []
    for rep in range(warmup):
        calls.call(model, timing_inputs(base_inputs, seed, -1 - rep))
    spent = calls.clocks.monotonic()
    for rep in range(reps):
        inputs = timing_inputs(base_inputs, seed, rep)
        flush.zero_()
        call = calls.call(model, inputs)
        times.append(call.event_ms)
        host.append(call.host_ms)
        sketches.append(sketch_outputs(call.outputs, seed, rep))
        last = rep == reps - 1 or calls.clocks.monotonic() - spent > float(timing["max_seconds"])
        kept = (kept + [[t.detach() for t in call.outputs]])[-TIMED_CHECKED:]   # on the device
        del call, inputs
        if last:
            break
    del flush
    return TimedRun(_median(times), [[t.to("cpu") for t in outs] for outs in kept],
                    torch.stack(sketches) if sketches else None, _median(host),
                    _median([h - e for h, e in zip(host, times)]))
