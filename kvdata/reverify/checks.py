"""The anti-hack checks. Each is a named function; its docstring names the trick it catches.

They run in the trusted parent on tensors the worker wrote as raw blobs (``tensor_blob``;
never unpickled) and the parent mapped and validated itself; the candidate's code never runs
in that process, so it cannot patch them. The defences that run inside the sandboxed worker
around the candidate's calls, where the buffers exist, are in ``defences.py``.

The harness's run order is: reference (before any candidate code is imported; its
outputs leave the process through a pipe that is closed before the candidate is
imported) → candidate on every seed ("A"; sealed: its size and sha256 leave through a
second pipe, closed before what follows) → the reference again, in-process, as bait, on
a fresh input set no compared round uses → candidate on every seed again ("B"). Both
candidate rounds are compared with the trusted reference.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, Sequence

from kvdata.reverify.aten_ops import DATA_MOVEMENT_OPS

if TYPE_CHECKING:
    from kvdata.reverify.protocol import WorkerReport


@dataclass
class Comparison:
    ok: bool
    max_abs_err: Optional[float] = None
    message: str = ""


# ----------------------------------------------------------------------------- parent side
def compare_outputs(candidate: Sequence, reference: Sequence, atol, rtol: float,
                    centers: Optional[Sequence[float]] = None, verdict_only: bool = False) -> Comparison:
    """Catches wrong answers, and outputs of the wrong count, shape or kind.

    NaN/inf in the candidate never match (``equal_nan=False``), so a candidate that hands
    back a poisoned (NaN-filled) buffer it never wrote fails. Anything that is not a
    plain ``torch.Tensor`` (a subclass with a rigged ``__eq__``, a Python object) fails.
    ``allclose`` semantics, evaluated in cache-sized chunks (see ``_compare_tensor``);
    the first output that differs ends the comparison. ``atol``: one value, or one per
    output; ``centers``: per output, a value both sides are measured from, so that ``rtol``
    scales the deviation from it (``output_tolerances``; 0 otherwise). ``verdict_only``: stop
    at the first chunk that differs, without the max error (the knockout's many failing
    comparisons need only the verdict).
    """
    import torch

    atols = list(atol) if isinstance(atol, (list, tuple)) else [atol] * len(reference)
    centers = list(centers) if centers is not None else [0.0] * len(reference)
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
        if c.is_floating_point() and r.is_floating_point() and torch.finfo(c.dtype).bits < torch.finfo(r.dtype).bits:
            # a float16 answer to a float32 problem: within a loose tolerance on the seeds, and half the work and
            # memory traffic when timed (the precision-downgrade trick); the answer must come in its own precision
            return Comparison(False, None, f"output {i} dtype {c.dtype} is less precise than the reference's "
                                           f"{r.dtype}")
        if c.numel() == 0:
            continue
        close, max_err = _compare_tensor(c, r, atols[i], rtol, centers[i], verdict_only)
        worst = max(worst, max_err)
        if not close:
            return Comparison(False, worst, f"output {i} differs: max abs err {max_err:.3g} "
                                            f"(atol={atols[i]:.3g}, rtol={rtol})")
    return Comparison(True, worst, "")


CHUNK_ELEMENTS = 1 << 18        # 1 MB of float32: the temporaries of one chunk stay in cache


def _compare_tensor(c, r, atol: float, rtol: float, center: float = 0.0,
                    verdict_only: bool = False) -> tuple[bool, float]:
    """(allclose(c, r), max |c - r|, inf if any difference is not finite), chunk by chunk.

    Why chunks and not ``allclose`` on the whole tensor in float64: for 4096x4096 float32
    that allocated six 128 MB temporaries per output and took over a second on a CPU;
    chunks keep everything in cache, in the outputs' own precision (float32 for
    float32/16/bf16, float64 otherwise — the precision ``torch.allclose`` uses upstream).
    The fast test ``|c - r| <= atol + rtol*|r|`` with all differences finite is exactly
    ``isclose``; a chunk that fails it (or holds inf/NaN) is settled by ``torch.isclose``.
    After the first failing chunk only the max error is still computed, for the message.
    """
    import numpy as np
    import torch

    cd, rd = _as_real(c), _as_real(r)
    small = (torch.float32, torch.float16, torch.bfloat16)
    work = torch.float32 if cd.dtype in small and rd.dtype in small else torch.float64
    cd, rd = cd.reshape(-1), rd.reshape(-1)
    close, max_err = True, 0.0
    for start in range(0, cd.numel(), CHUNK_ELEMENTS):
        a = cd[start:start + CHUNK_ELEMENTS].to(work)
        b = rd[start:start + CHUNK_ELEMENTS].to(work)
        # numpy for the elementwise work: single-threaded, so a small chunk does not pay for
        # waking torch's intra-op thread pool (seen costing ~2 ms per op on a 16-core GPU host).
        an, bn = a.numpy(), b.numpy()
        if center:
            with np.errstate(invalid="ignore", over="ignore"):
                an, bn = an - center, bn - center
            a, b = torch.from_numpy(an), torch.from_numpy(bn)
        with np.errstate(invalid="ignore", over="ignore"):   # inf - inf is NaN: a failure, not a warning
            diff = np.abs(an - bn)
        chunk_max = float(diff.max()) if diff.size else 0.0
        if not math.isfinite(chunk_max):
            max_err = math.inf
        else:
            max_err = max(max_err, chunk_max)
        if not close:
            continue
        with np.errstate(over="ignore"):
            fast_ok = math.isfinite(chunk_max) and bool((diff <= np.abs(bn) * rtol + atol).all())
        if not fast_ok and (verdict_only and not math.isfinite(chunk_max)
                            or not bool(torch.isclose(a, b, rtol=rtol, atol=atol, equal_nan=False).all())):
            close = False
            if verdict_only:
                break
    return close, max_err


def _as_real(t):
    """Complex tensors as their (real, imag) pairs; integer and bool tensors as float64."""
    import torch

    if t.is_complex():
        return torch.view_as_real(t)
    if t.is_floating_point():
        return t
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
    with a wrong answer. The inputs the reference drew are compared with the inputs as
    the candidate left them, bit for bit (dtype, shape and sha256 of the bytes: see
    ``tensor_blob.fingerprint``). The harness sends the fingerprints of the reference's
    inputs (taken before any candidate code is imported) and the parent fingerprints
    the post-call inputs from the bytes it reads itself (``check_input_fingerprints``).
    """
    from kvdata.reverify.tensor_blob import fingerprint

    return check_input_fingerprints([fingerprint(list(s)) for s in before], [fingerprint(list(s)) for s in after])


def check_input_fingerprints(before: Sequence, after: Sequence) -> list[str]:
    """``check_inputs_unchanged`` on fingerprints already taken: any difference is ``inputs_mutated``."""
    if len(before) != len(after):
        return ["inputs_mutated"]
    for seed_before, seed_after in zip(before, after):
        if seed_before != seed_after:
            return ["inputs_mutated"]
    return []


def check_round_sealed(seal: Optional[bytes], round_a) -> list[str]:
    """Catches rewriting round A's outputs after the fact (after the bait ran in-process).

    Round A's blob lies in the job dir, which the candidate's process can reopen. Before
    the bait runs, the worker sends the blob's size and sha256 (hashed as it was written)
    through a pipe to the zygote and closes it; the parent checks the file, once every
    process of the sample is dead, against that seal. A different file, or no seal at
    all, is ``tampered_outputs`` (a pipe closed or replaced by the candidate ends the
    process before the bait: ``harness.SEAL_LOST_EXIT``, flagged the same way).
    """
    from kvdata.reverify.tensor_blob import seal_matches

    return [] if seal_matches(seal, round_a) else ["tampered_outputs"]


def check_inputs_vary(inputs: Sequence) -> list[str]:
    """Catches samples whose inputs do not depend on the seed (``get_inputs`` ignores the RNG).

    Fresh seeds then draw the same inputs every time: a cache across calls, one
    special-cased input set, or a bait output stolen in-process (the bait draws its own
    seeds) would all hold the right answer. ``inputs`` are the reference's input
    fingerprints per seed; with two or more seeds that are all equal the sample gets
    ``fixed_inputs`` (a warning: the sample, not the candidate, is at fault).
    """
    if len(inputs) < 2:
        return []
    return ["fixed_inputs"] if all(seed == inputs[0] for seed in inputs[1:]) else []


def check_kernel_launched(launches: Sequence[Optional[int]]) -> list[str]:
    """Catches candidates that launch no kernel: ``ModelNew.forward`` computing with torch only.

    The worker counts Triton launches (JIT and interpreter entry points, wrapped before
    the candidate is imported) around every candidate call; any call with zero launches
    is flagged. Backends that cannot count report None, and nothing is flagged.
    """
    counted = [n for n in launches if n is not None]
    return ["no_kernel_launch"] if counted and min(counted) == 0 else []


def check_outputs_not_aliased(worker_report: "WorkerReport") -> list[str]:
    """Catches candidates that return one of their inputs (``output_aliases_input``) or a view
    of the bait reference's output (``output_aliases_reference``) instead of computing into
    memory of their own. The worker measures the aliasing with ``defences.output_aliases``; this turns
    its report into flags."""
    return [flag for flag in ("output_aliases_input", "output_aliases_reference") if getattr(worker_report, flag)]


@dataclass(frozen=True)
class OutputTolerance:
    """How one reference output is judged: its absolute tolerance, the value deviations are
    measured from, and why."""

    atol: float
    center: float = 0.0          # both sides are compared as deviations from this value
    scaled: bool = False         # the run's tolerance could not tell a constant from the answer: scaled to its spread
    undecidable: bool = False    # constant within float resolution: nothing tells a constant-writing kernel apart

    @staticmethod
    def atols(tolerances: Sequence["OutputTolerance"]) -> list[float]:
        return [t.atol for t in tolerances]

    @staticmethod
    def centers(tolerances: Sequence["OutputTolerance"]) -> list[float]:
        return [t.center for t in tolerances]


RESOLUTION_ULPS = 8              # float rounding an honest kernel may add, in units of eps * max|ref|


def output_tolerances(reference: Sequence, atol: float, rtol: float) -> list[OutputTolerance]:
    """Resolves degenerate tests: one ``OutputTolerance`` per reference output of one seed.

    A test is degenerate when a constant passes it: all zeros for a reference far below atol
    (a softmax over 200,000 logits, ``x * 1e-7``), or the reference's own mean for one that
    barely varies (``1 + 1e-5 * tanh(x)`` under rtol=1e-4). Such an output is judged on a
    criterion scaled to its spread ``s = max|r - m|`` around its mean ``m``: deviations from
    ``m`` are compared, ``|(c - m) - (r - m)| <= atol * s + res + rtol * |r - m|``, as if the
    output were normalised to a spread of 1, the scale the run's tolerance is meant for.
    ``res`` is the float rounding an honest kernel may add (``RESOLUTION_ULPS`` ulps of
    ``max|r|``). Any constant then fails at the element furthest from it, and an honest
    kernel's error, which scales with the values, still passes. An output whose spread is
    within that resolution (all zeros, a constant) stays undecidable: ``inconclusive`` when
    every output of every seed is. Integer and bool outputs are compared exactly anyway.
    """
    import torch

    tolerances = []
    for r in reference:
        if not isinstance(r, torch.Tensor) or not r.numel():
            tolerances.append(OutputTolerance(atol, undecidable=True))
            continue
        if not (r.is_floating_point() or r.is_complex()):
            tolerances.append(OutputTolerance(atol, undecidable=_max_abs(r) == 0.0))     # exact; all zeros tell nothing
            continue
        lo, hi = _min_max(r)
        peak = math.nan if math.isnan(lo) else max(abs(lo), abs(hi))
        if not math.isfinite(peak):
            tolerances.append(OutputTolerance(atol))
            continue
        zeros_pass = peak <= atol + rtol * peak
        # Its own mean is a constant only for an output of many elements (one element's mean is the answer).
        constant_pass = False
        if r.numel() > 1 and hi - lo <= 2 * (atol + rtol * peak):       # else no constant can pass: the usual case
            mean = float((r.real if r.is_complex() else r).double().mean())
            constant_pass = _constant_passes(r, mean, atol, rtol)
        if not zeros_pass and not constant_pass:
            tolerances.append(OutputTolerance(atol))
            continue
        mean = mean if constant_pass else 0.0
        spread = _max_abs_deviation(r, mean)
        resolution = RESOLUTION_ULPS * torch.finfo(r.real.dtype if r.is_complex() else r.dtype).eps * peak
        if spread <= 2 * resolution:
            tolerances.append(OutputTolerance(atol, mean, undecidable=True))
        else:
            tolerances.append(OutputTolerance(atol * spread + resolution, mean, scaled=True))
    return tolerances


def _min_max(t) -> tuple[float, float]:
    """(min, max) of ``t`` (complex: of its real and imaginary parts; NaN if it holds a NaN).

    Chunk by chunk in numpy, single-threaded like ``_compare_tensor``: ``torch.aminmax``
    on a 1 MB output cost ~3 ms in the parent (waking torch's intra-op pool), ~30x numpy.
    """
    import torch

    if t.is_complex():
        t = torch.view_as_real(t)
    if t.dtype == torch.bool:
        return float(bool(t.all())), float(bool(t.any()))
    if not t.numel():
        return 0.0, 0.0
    flat, lo, hi = t.reshape(-1), math.inf, -math.inf
    native = (torch.float16, torch.float32, torch.float64, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.uint8)
    for start in range(0, flat.numel(), CHUNK_ELEMENTS):
        chunk = flat[start:start + CHUNK_ELEMENTS]
        arr = (chunk if chunk.dtype in native else chunk.to(torch.float32)).numpy()
        c_lo, c_hi = float(arr.min()), float(arr.max())
        if math.isnan(c_lo) or math.isnan(c_hi):
            return math.nan, math.nan
        lo, hi = min(lo, c_lo), max(hi, c_hi)
    return lo, hi


def _constant_passes(r, value: float, atol: float, rtol: float) -> bool:
    """True when the constant ``value`` everywhere passes ``|value - r| <= atol + rtol*|r|``."""
    import numpy as np

    flat = (r.real if r.is_complex() else r).reshape(-1)
    for start in range(0, flat.numel(), CHUNK_ELEMENTS):
        chunk = flat[start:start + CHUNK_ELEMENTS].double().numpy()
        if not bool((np.abs(value - chunk) <= atol + rtol * np.abs(chunk)).all()):
            return False
    return True


def _max_abs_deviation(r, value: float) -> float:
    """max |r - value|, chunk by chunk."""
    import numpy as np

    flat, worst = (r.real if r.is_complex() else r).reshape(-1), 0.0
    for start in range(0, flat.numel(), CHUNK_ELEMENTS):
        chunk = flat[start:start + CHUNK_ELEMENTS].double().numpy()
        worst = max(worst, float(np.abs(chunk - value).max()))
    return worst


def check_degenerate_reference(tolerances: Sequence[Sequence[OutputTolerance]]) -> list[str]:
    """``degenerate`` (a warning) when some output of some seed had to be judged on a scaled
    tolerance, or could not be judged at all (``output_tolerances``)."""
    return ["degenerate"] if any(t.scaled or t.undecidable for seed in tolerances for t in seed) else []


def is_undecidable(tolerances: Sequence[Sequence[OutputTolerance]]) -> bool:
    """True when no output of any seed can tell a kernel that writes zeros from a right one."""
    return all(t.undecidable for seed in tolerances for t in seed)


def _max_abs(t) -> float:
    """max |t| (NaN if t holds a NaN), from ``_min_max``."""
    lo, hi = _min_max(t)
    return math.nan if math.isnan(lo) or math.isnan(hi) else max(abs(lo), abs(hi), 0.0)


def check_reference_finite(reference: Sequence) -> list[str]:
    """Catches references that produce NaN/inf: no candidate can be compared against them."""
    import torch

    for r in reference:
        if isinstance(r, torch.Tensor) and r.is_floating_point() and r.numel() and not math.isfinite(_max_abs(r)):
            return ["reference_nonfinite"]
    return []


def check_torch_compute(ops: Optional[dict]) -> list[str]:
    """Catches "kernels" whose forward does the math in PyTorch beside a token launch (the
    launch counter alone is satisfied by one dummy kernel).

    The worker records the aten ops of the candidate's first call in round A (a
    ``TorchDispatchMode``: ops called from a HIP extension's C++ count too, Triton and HIP
    kernels themselves are not aten ops). Any op outside ``DATA_MOVEMENT_OPS`` is flagged
    ``torch_compute``, a warning: a sample may legitimately leave a bias add to torch. The op
    names go to the result's ``torch_compute_ops``. Like the launch counter it runs inside
    the candidate's process, so it stops honest mistakes and naive cheats, not a candidate
    that switches the mode off.
    """
    return ["torch_compute"] if torch_compute_ops(ops) else []


def torch_compute_ops(ops: Optional[dict]) -> list[str]:
    """The recorded op names that are math, not data movement (see ``check_torch_compute``)."""
    return sorted(k for k in (ops or {}) if isinstance(k, str) and k not in DATA_MOVEMENT_OPS)


TORCH_SHARE = 0.5          # of the reference's FLOPs: torch running this much in the candidate did the work itself
TORCH_ELEMENT_SHARE = 2.0  # of the elements a reference without FLOPs touches (its fused ops count once)


def _torch_did_it(work, ref_flops, ref_elements) -> bool:
    def number(v) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0

    if not number(work):
        return False
    if number(ref_flops):
        return work >= TORCH_SHARE * ref_flops
    return number(ref_elements) and work >= TORCH_ELEMENT_SHARE * ref_elements


def check_torch_share(meta) -> list[str]:
    """Catches candidates whose kernels do a token part while torch does the heavy work (the matmul of a Linear
    in torch, a Triton bias add; the reference's own forward called from the candidate).

    ``defences.torch_op_recorder`` counts torch's work around the reference's forward and around each recorded
    candidate call (rounds A and B, and every other configuration against the reference's count there: a
    fallback to torch off the visible sizes or values): FLOPs of matrix products and convolutions by PyTorch's
    formulas, and the elements every other math op touches. So a matmul spelt as a broadcast multiply and a sum,
    ``embedding_bag``, sparse mm or an FFT convolution counts like one.

    The flag is ``torch_did_the_work`` when torch's work in one call reaches ``TORCH_SHARE`` of the reference's
    FLOPs; for a reference with none (a softmax, a norm), ``TORCH_ELEMENT_SHARE`` times the elements it touches.
    The second share is larger because a reference's fused op (one ``softmax`` over n elements) counts n, while
    the same math written out in torch ops (a max, a subtraction, an exp, a sum, a division) counts each step. A
    bias add or a check over the output left to torch stays below either share, so an honest kernel with a torch
    epilogue passes.
    """
    pairs = [(w, meta.ref_flops, meta.ref_elements) for w in meta.torch_flops]
    pairs += [tuple(p) for p in meta.config_flops if isinstance(p, list) and len(p) == 3]
    return ["torch_did_the_work"] if any(_torch_did_it(*p) for p in pairs) else []


HOST_GAP_ABS_MS = 0.05   # host-minus-event time a candidate's call may add over the reference's ...
HOST_GAP_REL = 0.25      # ... or this share of its host time, whichever is more


def check_recorder(meta) -> list[str]:
    """``recorder_evaded`` when the candidate's own code looked at the dispatch-mode stack or stepped around it,
    or moved work where the op recorder cannot see (``recorder_guard``): a forward that runs Triton only while
    watched, a ``torch.mm`` under ``_DisableTorchDispatch``, a matmul in NumPy, in a thread or in a helper
    process. Honest kernels have no reason to do any of these."""
    return ["recorder_evaded"] if meta.recorder_evaded else []


def check_global_state(meta) -> list[str]:
    """``global_state_changed`` when the candidate changed state every module in the process shares
    (``global_state``): a global forward hook that slows every other module, cuDNN switched off, TF32 or the
    matmul precision changed. A kernel has no reason to; a sabotaged baseline does."""
    return ["global_state_changed"] if meta.global_changes else []


def check_clocks(meta) -> list[str]:
    """``timer_tampered`` when the candidate replaced a timing entry point (``clocks.Clocks.replaced``), or when
    its device-event times fall short of the host clock around the same regions by more than the reference's did
    (``timing.time_gpu``: a device-event clock patched below Python, where ``Clocks`` cannot see it). Either
    way its timing cannot be trusted, whatever the clock read.

    The margin (``HOST_GAP_ABS_MS`` or ``HOST_GAP_REL`` of the call's host time) is what scheduling noise
    between the host and the device may add to an honest call; a clock that divides the device time by a
    factor shows on any call much longer than that margin.
    """
    if meta.clock_patched:
        return ["timer_tampered"]
    ref_gap, gap, host = meta.ref_host_gap_ms, meta.kernel_host_gap_ms, meta.kernel_host_ms
    if ref_gap is not None and gap is not None and host is not None \
            and gap > max(ref_gap, 0.0) + max(HOST_GAP_ABS_MS, HOST_GAP_REL * host):
        return ["timer_tampered"]
    return []


def _rms(outputs: Sequence) -> float:
    import torch

    values = [t.detach().double().pow(2).sum().item() for t in outputs
              if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel()]
    n = sum(t.numel() for t in outputs if isinstance(t, torch.Tensor) and t.is_floating_point())
    return math.sqrt(sum(values) / n) if n else 0.0


def check_configs(configs: list, atol: float, rtol: float,
                  visible: Sequence = ()) -> tuple[list[str], Optional[str]]:
    """Catches kernels right only on the visible inputs (a row length hard-coded, a subsample past some width,
    a one-pass variance that cancels on shifted values): the other sizes and value ranges of ``configs.py``.

    ``configs``: per configuration (name, kind, reference outputs, the candidate's outputs or what it raised,
    or None when untested, why untested). Returns the flags of the configurations the candidate got wrong
    (``shape_specialised``, ``range_specialised``) and the ``generalises`` summary: ``true``,
    ``false: name (why); ...`` or ``untested: name (why); ...``.

    ``atol`` grows with the configuration's output: times its RMS over the visible outputs' (``visible``), when
    that is above 1. Inputs 40 times larger give outputs whose rounding error is 40 times larger too, far from
    zero as near it; an honest fp32 matmul would otherwise fail on its near-zero elements."""
    if not configs:
        return [], None
    base = _rms(visible)
    failed, untested, flags = [], [], []
    for name, kind, ref, cand, why in configs:
        if cand is None:
            untested.append(f"{name} ({why})")
            continue
        if isinstance(cand, str):
            result_ok, detail = False, cand[:120]
        else:
            grow = max(1.0, _rms(ref) / base) if base > 0 else 1.0
            tol = output_tolerances(ref, atol * grow, rtol)
            cmp = compare_outputs(cand, ref, OutputTolerance.atols(tol), rtol, OutputTolerance.centers(tol))
            result_ok, detail = cmp.ok, cmp.message[:120]
        if not result_ok:
            failed.append(f"{name} ({detail})")
            flag = "shape_specialised" if kind == "shape" else "range_specialised"
            if flag not in flags:
                flags.append(flag)
    if failed:
        return flags, "false: " + "; ".join(failed)
    if len(untested) == len(configs):
        return [], "untested: " + "; ".join(untested)
    return [], "true" + (f" (untested: {'; '.join(untested)})" if untested else "")


def check_dispatch_consistent(ops_per_call: Sequence[Optional[dict]]) -> list[str]:
    """Catches candidates that compute one way while watched and another way after.

    The op recorder watches every call of rounds A and B and of the other configurations. A later call
    running torch math that the first call did not (pure Triton on the first call, a torch GEMM afterwards,
    a torch fallback off the visible sizes or values) is ``inconsistent_dispatch``. The reverse is allowed:
    an autotuner benchmarks, with torch ops, on the first call only.
    """
    calls = [set(torch_compute_ops(ops)) for ops in ops_per_call if isinstance(ops, dict)]
    if len(calls) < 2:
        return []
    return ["inconsistent_dispatch"] if set().union(*calls[1:]) - calls[0] else []


@dataclass
class KnockoutResult:
    """What the knockout rounds showed (``knockout.py``): per mode, the seeds whose answer
    was still right with every kernel disabled, and whether a kernel was handed the answer."""

    modes: list = field(default_factory=list)
    still_right: dict = field(default_factory=dict)     # mode -> number of seeds still right
    handed_answer: int = 0                              # seeds where a kernel received the finished answer
    mostly_right: int = 0                               # seeds still mostly right in every mode
    seeds: int = 0

    def summary(self) -> str:
        if not self.modes:
            return "not run"
        parts = [f"{m}: {self.still_right.get(m, 0)}/{self.seeds} still right" for m in self.modes]
        return "; ".join(parts) + (f"; answer handed to a kernel on {self.handed_answer}/{self.seeds}"
                                   f"; mostly right on {self.mostly_right}/{self.seeds}")


def check_kernels_needed(knockout: dict, reference: Sequence[Sequence], tolerances: Sequence[Sequence],
                         rtol: float) -> tuple[list[str], KnockoutResult]:
    """Catches kernels that do not compute the answer: ``kernel_not_needed`` (failing).

    ``knockout``: mode -> {"outputs": per seed (None when the call raised), "handed": per seed,
    copies of the output-sized tensors the disabled kernels were handed}. The kernels were not
    needed when, for some seed, the answer is still right with all of them disabled (a token
    launch beside torch math, a kernel writing a scratch buffer nobody reads, a torch fallback
    taken whatever the shape), or when a disabled kernel was handed a tensor that already held
    the answer (torch computed it; a copy or a ``*1`` kernel moved it into the output), or when
    most of the output is still right in every mode (``fraction_still_right``). Judged
    with the same per-output tolerances as the judged rounds. A legitimate partial kernel (a
    Triton GEMM, then a torch bias add) breaks when its GEMM is knocked out, and stays correct.
    """
    from kvdata.reverify.knockout import sample_elements

    reference = [[sample_elements(r) for r in seed] for seed in reference]     # as the harness sampled
    result = KnockoutResult(modes=list(knockout), seeds=len(reference))
    handed_seeds: set = set()
    mostly_right = [set() for _ in knockout]          # per mode: seeds whose outputs were mostly still right
    for m, (mode, rounds) in enumerate(knockout.items()):
        outputs, handed = list(rounds.get("outputs") or []), list(rounds.get("handed") or [])
        handed += [[]] * (len(reference) - len(handed))
        right = 0
        for seed, (out, ref, tol) in enumerate(zip(outputs, reference, tolerances)):
            if all(t.undecidable for t in tol):       # an all-zero answer: zeroed kernels match it, and prove nothing
                continue
            if out is not None and compare_outputs(out, ref, OutputTolerance.atols(tol), rtol,
                                                   OutputTolerance.centers(tol), verdict_only=True).ok:
                right += 1
            if out is not None and (m == 0 or seed in mostly_right[0]) \
                    and fraction_still_right(out, ref, tol, rtol) >= MOSTLY_RIGHT:
                mostly_right[m].add(seed)
            if any(_holds_an_output(t, ref, tol, rtol) for t in handed[seed] or []):
                handed_seeds.add(seed)
        result.still_right[mode] = right
    result.handed_answer = len(handed_seeds)
    result.mostly_right = len(set.intersection(*mostly_right)) if mostly_right else 0
    needed = not any(result.still_right.values()) and not handed_seeds and not result.mostly_right
    return ([] if needed else ["kernel_not_needed"]), result


MOSTLY_RIGHT = 0.5      # with every kernel disabled, at least this share of the output still right: torch did it
FRACTION_SAMPLE = 1 << 16


def _numpy_float(t):
    """A host tensor as a float64 numpy array, converted by numpy (no torch op, see ``_compare_tensor``)."""
    import numpy as np
    import torch

    if t.dtype in (torch.float16, torch.float32, torch.float64, torch.int8, torch.int16, torch.int32, torch.int64,
                   torch.uint8, torch.bool):
        with np.errstate(invalid="ignore", over="ignore"):
            return np.asarray(t.numpy(), dtype=np.float64)
    return t.to(torch.float64).numpy()


def fraction_still_right(candidate: Sequence, reference: Sequence, tolerances: Sequence[OutputTolerance],
                         rtol: float) -> float:
    """The share of output elements within tolerance (all outputs together).

    Why: a kernel that computes one row of 32 while torch computes the rest is "needed" (the
    knocked-out row is wrong) but does not compute the answer. With every kernel disabled in
    every knockout mode, most of such an output is still right; a legitimate kernel's output,
    poisoned with NaN in the ``poison`` mode, is right nowhere.
    """
    import numpy as np
    import torch

    close = total = 0
    for c, r, tol in zip(candidate, reference, tolerances):
        if type(c) is not torch.Tensor or tuple(c.shape) != tuple(r.shape) or c.is_complex() != r.is_complex():
            total += r.numel()
            continue
        cd, rd = _as_real(c).reshape(-1), _as_real(r).reshape(-1)
        step = max(1, -(-rd.numel() // FRACTION_SAMPLE))           # a share needs no more than a sample
        a = _numpy_float(cd[::step]) - tol.center
        b = _numpy_float(rd[::step]) - tol.center
        with np.errstate(invalid="ignore", over="ignore"):
            close += int((np.abs(a - b) <= tol.atol + rtol * np.abs(b)).sum()) * step
        total += b.size * step
    return close / total if total else 0.0


def _holds_an_output(tensor, reference: Sequence, tolerances: Sequence, rtol: float) -> bool:
    """True when ``tensor`` (a sample, ``knockout.sample_elements``) matches a reference output's sample."""
    import torch

    if type(tensor) is not torch.Tensor:
        return False
    for r, tol in zip(reference, tolerances):
        if tol.undecidable or r.numel() != tensor.numel() or r.is_complex() != tensor.is_complex():
            continue
        if compare_outputs([tensor.reshape(r.shape)], [r], [tol.atol], rtol, [tol.center], verdict_only=True).ok:
            return True
    return False


def check_timed_outputs(timed: Optional[Sequence], reference_timed: Optional[Sequence], atol: float,
                        rtol: float) -> list[str]:
    """Catches speed bought with caching inside the timing loop: ``timed_outputs_mismatch`` (failing).

    Every timed call gets inputs no earlier call saw (``timing.timing_inputs``); the outputs of
    the last timed calls are compared with the reference's on the same inputs, each output on
    its own tolerance (``output_tolerances``). A candidate that memoises by shape, pointer or
    call count answers them with a stale result; one that left the last calls without outputs
    fails too.
    """
    if not reference_timed:
        return []
    if not timed or len(timed) != len(reference_timed):
        return ["timed_outputs_mismatch"]
    for out, ref in zip(timed, reference_timed):
        tol = output_tolerances(ref, atol, rtol)
        if not compare_outputs(out, ref, OutputTolerance.atols(tol), rtol, OutputTolerance.centers(tol)).ok:
            return ["timed_outputs_mismatch"]
    return []


SKETCH_MARGIN = 3.0      # an estimated distance this many times the tolerance's bound is not an honest error


def check_timed_sketches(sketch, reference_sketch, tolerances: Sequence[OutputTolerance], exact: Sequence[bool],
                         rtol: float) -> list[str]:
    """Catches a candidate that does the work on some timed calls only: ``timed_outputs_mismatch`` (failing).

    Every timed call's outputs leave the worker as sketches (``timing.sketch_outputs``), the reference's and
    the candidate's on the same inputs with the same random vectors. Per output, the mean squared difference of
    the projections estimates ``||c - r||^2``. An honest output within the elementwise tolerance
    ``|c - r| <= atol + rtol |r - m|`` has ``||c - r|| <= atol sqrt(n) + rtol ||r - m||``; the estimate exceeds
    ``SKETCH_MARGIN`` times that only with a chi-square tail of about 1e-12 (8 projections). An output with
    other NaN or infinity counts, or another size, fails outright; integer and bool outputs must agree exactly
    (an estimate over 0.5, when any difference is at least 1). Undecidable outputs (constant answers) are left
    out, as everywhere. The calls both sides made are compared (a time budget may end one side's loop sooner).
    """
    import torch

    from kvdata.reverify.timing import SKETCH_COLUMNS, SKETCH_WIDTH

    if reference_sketch is None or not reference_sketch.numel():
        return []
    bad = ["timed_outputs_mismatch"]
    if not isinstance(sketch, torch.Tensor) or sketch.dim() != 3 or sketch.shape[1:] != reference_sketch.shape[1:] \
            or sketch.shape[2] != SKETCH_COLUMNS or not len(sketch) or sketch.shape[1] != len(tolerances):
        return bad
    k = SKETCH_WIDTH
    for c in range(min(len(sketch), len(reference_sketch))):
        for o, tol in enumerate(tolerances):
            cand, ref = sketch[c, o].double(), reference_sketch[c, o].double()
            if tol.undecidable:
                continue
            if not torch.equal(cand[k + 2:], ref[k + 2:]) or not bool(torch.isfinite(cand[:k + 2]).all()):
                return bad
            n, total, squares = float(ref[k + 2]), float(ref[k]), float(ref[k + 1])
            estimate = float((cand[:k] - ref[:k]).pow(2).mean().sqrt())
            if o < len(exact) and exact[o]:
                bound = 0.5 / SKETCH_MARGIN
            else:
                m = tol.center
                spread = math.sqrt(max(0.0, squares - 2 * m * total + n * m * m))
                bound = tol.atol * math.sqrt(n) + rtol * spread + 1e-9 * (math.sqrt(max(squares, 0.0)) + 1.0)
            if not estimate <= SKETCH_MARGIN * bound:
                return bad
    return []


def check_background_work(worker_report: "WorkerReport") -> list[str]:
    """Catches work left running after forward returns: ``background_work`` (failing).

    In round B the worker checks, after each call, for threads the call started that are
    still alive, and (GPU) for outputs that still change between the return, with the current
    stream finished, and a whole-device synchronisation: a side stream or a thread finishing
    the answer, which per-stream timing events would not see.
    """
    return ["background_work"] if worker_report.background_work else []


def check_weights_loaded(worker_report: "WorkerReport") -> list[str]:
    """Catches candidates whose parameters do not match ``Model``'s by name: the reference's
    weights then load only partly (``strict=False``), and what the candidate computes with
    the rest is its own initialisation. ``state_dict_mismatch`` (a warning: the outputs were
    still compared on the reference's inputs)."""
    return ["state_dict_mismatch"] if worker_report.state_dict_mismatch else []


def check_memory_safe(report) -> list[str]:
    """Catches out-of-bounds accesses that pass every comparison (a store past the end lands
    in allocator slack): ``out_of_bounds`` when the memcheck run of one seed
    (``sanitize.SanitizerReport``, run without the caching allocator) found errors."""
    return ["out_of_bounds"] if report is not None and report.ran and report.errors else []


def check_plausible_speedup(speedup: Optional[float], limit: float) -> list[str]:
    """Catches timing tricks (work deferred past the timed region, a stream the events do
    not see, results cached between timed calls): a speedup above ``limit`` is flagged."""
    return ["implausible_speedup"] if speedup is not None and speedup > limit else []
