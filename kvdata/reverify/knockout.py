"""The kernel gate: every kernel launch of a candidate passes through it, so the harness can
count launches and, in the knockout rounds, take the kernels away.

Why a knockout: a launch counter is satisfied by one token launch beside torch math, and an
op recorder (a ``TorchDispatchMode``) only sees what the candidate lets it see. The knockout
asks the question directly: with the candidate's kernels disabled, is the answer still right?
If it is, the kernels did not compute it (``checks.check_kernels_needed``:
``kernel_not_needed``). Two ways to disable a launch, each run over every seed:

- ``skip``: the launch does not happen (Triton only: the launcher returns at once). Buffers
  the kernel should have written keep what the allocator handed out, which the harness
  poisons with NaN before each call.
- ``poison``: the launch's tensors are filled with NaN instead (integers: 0), except
  the model's own inputs, parameters and buffers. A HIP extension's kernels run inside its C++
  function, out of reach: the function runs, then what it returned and the tensors it was
  handed (again except inputs, parameters and buffers) are poisoned.
- ``raise``: the launch raises :class:`LaunchKnockedOut`, as a launch that fails to compile or run would. A
  candidate that catches it and computes the answer with torch (``try: launch / except: torch``) is still
  right without its kernels. (Outside the knockout, a launch that raises does not count as a launch.)
- ``zero``: the same tensors filled with zeros. A kernel that only zero-fills a buffer torch
  then writes into, or that clears a NaN "canary" torch adds to its own answer, is not needed
  when its tensors come out zero anyway: the answer is still right.
- ``perturb`` (information flow): the kernels run, but every floating tensor a launch is handed is first changed
  (each element scaled by a random factor in [0.5, 1.5], plus normal noise of half the tensor's RMS), and after the
  launch each such tensor the kernel did not write is put back exactly. The kernels then computed from other
  inputs than the sample's, while torch around them sees the original tensors: an answer that stays right did
  not come from the kernels. This catches what switching the kernels off does not: a kernel whose output the
  answer needs but which reads nothing of the problem (a "gate" that writes an exact ×1.0 scale torch multiplies
  by, while torch computes everything).

The modes that disable the kernels also keep a copy (``sample_elements``) of every tensor handed to a kernel that
has the size of one of the reference's outputs (``snapshots``): with every kernel disabled, a tensor that already
holds the answer when it reaches a kernel was computed by something else (torch), and the
kernel only moved it (``checks.check_answer_precomputed``). ``perturb`` keeps none: its kernels run, and one may
hand the next the answer it computed.

The gate lives in the candidate's process, like everything in-process it can be found and
defeated by a sample that looks for it; it does not depend on dispatch modes, on which call
it is, or on the sample's cooperation.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Sequence

KNOCKOUT_MODES = ("skip", "poison", "zero", "raise", "perturb")


class LaunchKnockedOut(RuntimeError):
    """What a kernel launch raises in the knockout's ``raise`` mode."""
SNAPSHOT_BYTES = 64 << 20        # copies of kernel arguments kept per knockout round
SNAPSHOTS_PER_CALL = 8
SAMPLE_ELEMENTS = 1 << 18        # a knockout output or argument is compared on this many evenly spaced elements


def sample_elements(t):
    """Up to ``SAMPLE_ELEMENTS`` evenly spaced elements of ``t``, flattened, on the host.

    The knockout only asks whether an answer is (mostly) still right: a regular sample of a
    large output answers that as well as all of it, for a fraction of the device-to-host
    copies. The parent samples the reference the same way.
    """
    flat = t.detach().reshape(-1)
    step = max(1, -(-flat.numel() // SAMPLE_ELEMENTS))
    return flat[::step].to("cpu", copy=True)


class KernelGate:
    """Counts kernel launches (``count``); during a knockout round (``arm``) disables them instead.

    ``modes``: the knockout modes this backend's gate can apply (a HIP extension's kernels
    run inside its C++ function and cannot be skipped: its results are poisoned or zeroed).
    """

    def __init__(self, modes: Sequence[str] = KNOCKOUT_MODES):
        self.count = 0
        self.modes = tuple(modes)
        self.mode: Optional[str] = None
        self.snapshots: list = []
        self._protected: list[tuple[int, int]] = []
        self._numels: frozenset = frozenset()
        self._bytes = 0
        self._call_snapshots = 0

    # ------------------------------------------------------------------ harness side
    def arm(self, mode: str, protected: Iterable, output_numels: Iterable[int]) -> None:
        """Disable launches for the next call: ``protected`` tensors (inputs, parameters,
        buffers) are never poisoned nor copied; arguments of ``output_numels`` elements are copied."""
        if mode not in self.modes:
            raise ValueError(f"knockout mode {mode!r} not supported here (supported: {self.modes})")
        self.mode = mode
        self._protected = _storage_spans(protected)
        self._numels = frozenset(int(n) for n in output_numels if n)
        self._call_snapshots = 0

    def disarm(self) -> list:
        """Launches run again; returns (and forgets) the argument copies this call made."""
        self.mode = None
        self._protected = []
        taken, self.snapshots = self.snapshots, []
        return taken

    def reset_budget(self) -> None:
        self._bytes = 0

    # ------------------------------------------------------------------ backend side
    def launch(self, run: Callable[[], Any], tensors: Iterable) -> Any:
        """A Triton launch: ``run()`` launches the kernel; ``tensors`` are its tensor arguments."""
        if self.mode is None:
            result = run()
            self.count += 1                 # counted once it returned: a launch that raised launched nothing
            return result
        if self.mode == "raise":
            raise LaunchKnockedOut("kernel launch failed (knockout)")
        tensors = list(tensors)
        if self.mode == "perturb":      # the kernels run: one may hand the next the answer it computed
            return perturbed_call(run, tensors)
        self._snapshot(tensors)
        if self.mode in ("poison", "zero"):
            self._poison(tensors)
        return None

    def call(self, fn: Callable, args: tuple, kwargs: dict) -> Any:
        """An extension function whose kernels launch from C++: run it, poison its results when armed."""
        if self.mode is None:
            result = fn(*args, **kwargs)
            self.count += 1
            return result
        if self.mode == "raise":
            raise LaunchKnockedOut("extension call failed (knockout)")
        handed = [a for a in (*args, *kwargs.values()) if _is_tensor(a)]
        if self.mode == "perturb":
            return perturbed_call(lambda: fn(*args, **kwargs), handed)
        self._snapshot(handed)
        result = fn(*args, **kwargs)
        self._poison(handed)
        self._poison(_tensors_in(result), protect=False)
        return result

    def _snapshot(self, tensors: list) -> None:
        for t in tensors:
            if self._call_snapshots >= SNAPSHOTS_PER_CALL or t.numel() not in self._numels or self._is_protected(t):
                continue
            if self._bytes + min(t.numel(), SAMPLE_ELEMENTS) * t.element_size() > SNAPSHOT_BYTES:
                return
            taken = sample_elements(t)
            self.snapshots.append(taken)
            self._bytes += taken.numel() * taken.element_size()
            self._call_snapshots += 1

    def _poison(self, tensors: Iterable, protect: bool = True) -> None:
        """Fill ``tensors`` (but protected ones) as the mode says: NaN (``poison``) or zeros (``zero``)."""
        from kvdata.reverify.defences import fill_poison

        for t in tensors:
            if t.numel() and not (protect and self._is_protected(t)):
                with _no_grad():
                    if self.mode == "zero":
                        t.zero_()
                    else:
                        fill_poison(t, index_safe=True)

    def _is_protected(self, t) -> bool:
        lo, hi = _span(t)
        return any(lo < b and a < hi for a, b in self._protected)


PERTURB_SCALE = 0.5        # each element times a factor in [1 - s, 1 + s], plus N(0, (s * RMS)^2)


def perturbed_call(run: Callable[[], Any], tensors: Sequence) -> Any:
    """``run()`` with every floating tensor of ``tensors`` changed first (see ``perturb`` in the module docstring);
    afterwards each one ``run`` did not write holds its original values again, byte for byte."""
    import os

    import torch

    seen: set = set()
    changed = []                                   # (tensor, original, as perturbed)
    with torch.no_grad():
        for t in tensors:
            key = (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype)
            if not (t.is_floating_point() and t.numel()) or key in seen or _self_overlapping(t):
                continue
            seen.add(key)
            original = t.clone()
            t.copy_(_perturbed(t, int.from_bytes(os.urandom(8), "little") >> 1))
            changed.append((t, original, t.clone()))
        try:
            return run()
        finally:
            for t, original, perturbed in reversed(changed):
                if _same(t, perturbed):             # read, not written: torch after the launch sees the original
                    t.copy_(original)


def _perturbed(t, seed: int):
    import torch

    g = torch.Generator(device=t.device)
    g.manual_seed(seed)
    x = t.detach().float()
    finite = x[torch.isfinite(x)]
    rms = float(finite.pow(2).mean().sqrt()) if finite.numel() else 1.0
    u = torch.rand(x.shape, generator=g, device=x.device)
    n = torch.randn(x.shape, generator=g, device=x.device)
    return (x * (1.0 - PERTURB_SCALE + 2 * PERTURB_SCALE * u) + PERTURB_SCALE * max(rms, 1e-6) * n).to(t.dtype)


def _self_overlapping(t) -> bool:
    """An expanded view (a stride of 0 over more than one element): it cannot be written element by element."""
    return any(st == 0 and n > 1 for st, n in zip(t.stride(), t.shape))


def _same(a, b) -> bool:
    """Equal element for element, NaN equal to NaN."""
    import torch

    return bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())


def protected_tensors(model: Any, inputs: Sequence) -> list:
    """What a knockout must never poison: the call's inputs and the model's parameters and buffers."""
    import torch

    tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
    if isinstance(model, torch.nn.Module):
        tensors += list(model.parameters()) + list(model.buffers())
    return tensors


def _is_tensor(x) -> bool:
    import torch

    return isinstance(x, torch.Tensor)


def _tensors_in(value) -> list:
    if _is_tensor(value):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors_in(v)]
    return []


def _span(t) -> tuple[int, int]:
    s = t.untyped_storage()
    return s.data_ptr(), s.data_ptr() + s.nbytes()


def _storage_spans(tensors: Iterable) -> list[tuple[int, int]]:
    return [_span(t) for t in tensors if _is_tensor(t) and t.numel()]


def _no_grad():
    import torch

    return torch.no_grad()
