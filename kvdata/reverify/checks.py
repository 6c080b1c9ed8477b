"""The anti-hack checks. Each is a named function; its docstring names the trick it catches.

Two kinds live here:

* parent-side checks (``compare_outputs``, ``check_*``) run in the trusted parent on
  tensors the worker serialized and the parent loaded with ``weights_only=True``; the
  candidate's code never runs in that process, so it cannot patch them;
* worker-side defences (``poison_allocator``, ``output_aliases``) run inside the sandboxed
  worker around the candidate call, because only there do the buffers exist.

The harness's run order is: reference (before any candidate code is imported; its
outputs leave the process through a pipe that is closed before the candidate is
imported) → candidate on every seed ("A") → the reference again, in-process, as bait →
candidate on every seed again ("B"). Both candidate rounds are compared with the
trusted reference.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional, Sequence


@dataclass
class Comparison:
    ok: bool
    max_abs_err: Optional[float] = None
    message: str = ""


# ----------------------------------------------------------------------------- parent side
def compare_outputs(candidate: Sequence, reference: Sequence, atol: float, rtol: float) -> Comparison:
    """Catches wrong answers, and outputs of the wrong count, shape or kind.

    NaN/inf in the candidate never match (``equal_nan=False``), so a candidate that hands
    back a poisoned (NaN-filled) buffer it never wrote fails. Anything that is not a
    plain ``torch.Tensor`` (a subclass with a rigged ``__eq__``, a Python object) fails.
    """
    import torch

    if len(candidate) != len(reference):
        return Comparison(False, None, f"{len(candidate)} outputs, expected {len(reference)}")
    worst = 0.0
    for i, (c, r) in enumerate(zip(candidate, reference)):
        if type(c) is not torch.Tensor:
            return Comparison(False, None, f"output {i} is {type(c).__name__}, not a tensor")
        if tuple(c.shape) != tuple(r.shape):
            return Comparison(False, None, f"output {i} shape {tuple(c.shape)}, expected {tuple(r.shape)}")
        if c.is_complex() != r.is_complex():
            return Comparison(False, None, f"output {i} dtype {c.dtype}, expected {r.dtype}")
        if c.numel() == 0:
            continue
        cd, rd = _as_float(c), _as_float(r)
        err = (cd - rd).abs()
        finite = torch.isfinite(err)
        max_err = float(err[finite].max()) if bool(finite.any()) else math.inf
        if not bool(finite.all()):
            max_err = math.inf
        worst = max(worst, max_err)
        if not torch.allclose(cd, rd, atol=atol, rtol=rtol, equal_nan=False):
            return Comparison(False, worst, f"output {i} differs: max abs err {max_err:.3g} (atol={atol}, rtol={rtol})")
    return Comparison(True, worst, "")


def _as_float(t):
    import torch

    if t.is_complex():
        return torch.view_as_real(t).double()
    return t.double()


def check_every_seed(comparisons: Sequence[Comparison]) -> Comparison:
    """Catches caching across calls and special-casing one seed.

    Inputs are drawn afresh for every seed, and the seeds themselves are drawn per run
    (never a fixed list), so a candidate that returns a stored result, or hard-codes
    the answer for one input set, fails on the other seeds.
    """
    for n, c in enumerate(comparisons):
        if not c.ok:
            return Comparison(False, c.max_abs_err, f"seed #{n}: {c.message}")
    worst = max((c.max_abs_err or 0.0 for c in comparisons), default=None)
    return Comparison(True, worst, "")


def check_rerun_after_reference(first: Sequence[Comparison], second: Sequence[Comparison]) -> list[str]:
    """Catches answers that depend on what the reference left behind, or on call history.

    The candidate runs once on every seed before the reference has run in its process,
    then again after the reference ran there. A candidate that is right only on the
    second round (it picked up the reference's freed buffer) or only on the first (its
    result changed between calls) gets ``inconsistent_runs``.
    """
    a_ok = all(c.ok for c in first)
    b_ok = all(c.ok for c in second)
    return ["inconsistent_runs"] if a_ok != b_ok else []


def check_inputs_unchanged(before: Sequence[Sequence], after: Sequence[Sequence]) -> list[str]:
    """Catches candidates that zero or overwrite their inputs.

    Zeroing the inputs makes a reference computed afterwards on the same tensors agree
    with a wrong answer. The parent compares the inputs the reference drew with the
    inputs as the candidate left them (bit for bit, NaN-aware).
    """
    import torch

    for seed_before, seed_after in zip(before, after):
        if len(seed_before) != len(seed_after):
            return ["inputs_mutated"]
        for b, a in zip(seed_before, seed_after):
            if isinstance(b, torch.Tensor):
                if type(a) is not torch.Tensor or a.shape != b.shape or a.dtype != b.dtype:
                    return ["inputs_mutated"]
                if not torch.equal(torch.nan_to_num(a), torch.nan_to_num(b)):
                    return ["inputs_mutated"]
            elif a != b:
                return ["inputs_mutated"]
    return []


def check_kernel_launched(launches: Sequence[Optional[int]]) -> list[str]:
    """Catches candidates that launch no kernel: ``ModelNew.forward`` computing with torch only.

    The worker counts Triton launches (JIT and interpreter entry points, wrapped before
    the candidate is imported) around every candidate call; any call with zero launches
    is flagged. Backends that cannot count report None, and nothing is flagged.
    """
    counted = [n for n in launches if n is not None]
    return ["no_kernel_launch"] if counted and min(counted) == 0 else []


def check_degenerate_reference(reference: Sequence, atol: float, rtol: float) -> list[str]:
    """Catches samples whose check cannot fail: a reference so small that zeros pass.

    If ``max|ref| <= atol`` (or an all-zeros answer passes ``allclose``) for every output,
    a kernel that writes nothing would be judged correct; the sample gets ``degenerate``.
    """
    import torch

    tensors = [r for r in reference if isinstance(r, torch.Tensor) and r.numel()]
    if not tensors:
        return ["degenerate"]
    for r in tensors:
        rd = _as_float(r)
        if not torch.allclose(torch.zeros_like(rd), rd, atol=atol, rtol=rtol):
            return []
    return ["degenerate"]


def check_reference_finite(reference: Sequence) -> list[str]:
    """Catches references that produce NaN/inf: no candidate can be compared against them."""
    import torch

    for r in reference:
        if isinstance(r, torch.Tensor) and r.is_floating_point() and not bool(torch.isfinite(r).all()):
            return ["reference_nonfinite"]
    return []


def check_plausible_speedup(speedup: Optional[float], limit: float) -> list[str]:
    """Catches timing tricks (work deferred past the timed region, a stream the events do
    not see, results cached between timed calls): a speedup above ``limit`` is flagged."""
    return ["implausible_speedup"] if speedup is not None and speedup > limit else []


# ----------------------------------------------------------------------------- worker side
def poison_allocator(device: str, shapes: Sequence[tuple], dtypes: Sequence, block_mb: int) -> None:
    """Defeats reuse of the reference's freed output buffer.

    Before each candidate call, blocks of the reference outputs' shapes (and one large
    block on a GPU) are filled with NaN (integers: a sentinel) and freed, so memory the
    allocator hands back to a candidate that never writes its output holds garbage, not
    a right answer. CPU: exact-size blocks land back in malloc's free lists; GPU: the
    caching allocator keeps the freed blocks and hands them out next.
    """
    import torch

    junk = []
    for shape, dtype in zip(shapes, dtypes):
        for _ in range(2):
            t = torch.empty(shape, dtype=dtype, device=device)
            _fill_poison(t)
            junk.append(t)
    if device != "cpu" and block_mb > 0:
        block = torch.empty(block_mb * 2**20 // 4, dtype=torch.float32, device=device)
        block.fill_(float("nan"))
        junk.append(block)
    del junk


def _fill_poison(t) -> None:
    import torch

    if t.is_floating_point() or t.is_complex():
        t.fill_(float("nan"))
    elif t.dtype == torch.bool:
        t.fill_(True)
    else:
        t.fill_(-0x2A2A2A2A if t.element_size() >= 4 else 42)


def output_aliases(outputs: Sequence, tensors: Sequence) -> bool:
    """Catches candidates that return one of their inputs, or a view of the reference's
    output, instead of computing into memory of their own: True when any output shares
    storage with any of ``tensors``."""
    import torch

    spans = []
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.numel():
            s = t.untyped_storage()
            spans.append((s.data_ptr(), s.data_ptr() + s.nbytes()))
    for o in outputs:
        if not isinstance(o, torch.Tensor) or not o.numel():
            continue
        s = o.untyped_storage()
        lo, hi = s.data_ptr(), s.data_ptr() + s.nbytes()
        if any(lo < b and a < hi for a, b in spans):
            return True
    return False
