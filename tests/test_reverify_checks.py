"""Each check against the trick it names, on real tensors (the end-to-end versions run in
tests/test_reverify_hostile.py)."""
from __future__ import annotations

import pytest
import torch

from kvdata.reverify import checks, defences, sanitize
from kvdata.reverify.protocol import WorkerReport
from kvdata.reverify.config import FAILING_FLAGS, WARNING_FLAGS, ReverifyConfig


def test_compare_outputs_catches_wrong_shape_nan_and_subclass():
    ref = [torch.ones(4, 4)]
    assert checks.compare_outputs([torch.ones(4, 4) + 1e-5], ref, 1e-3, 1e-4).ok
    assert not checks.compare_outputs([torch.ones(4, 4) + 0.1], ref, 1e-3, 1e-4).ok
    assert not checks.compare_outputs([torch.ones(16)], ref, 1e-3, 1e-4).ok
    assert not checks.compare_outputs([torch.full((4, 4), float("nan"))], ref, 1e-3, 1e-4).ok
    assert not checks.compare_outputs([], ref, 1e-3, 1e-4).ok

    class Liar(torch.Tensor):
        pass

    assert not checks.compare_outputs([torch.ones(4, 4).as_subclass(Liar)], ref, 1e-3, 1e-4).ok


def test_every_seed_must_match():
    ok, bad = checks.Comparison(True, 0.0), checks.Comparison(False, 1.0, "differs")
    assert checks.check_every_seed([ok, ok, ok]).ok
    assert not checks.check_every_seed([ok, bad, ok]).ok       # special-casing one seed


def test_rerun_after_reference_flags_inconsistency():
    ok, bad = checks.Comparison(True), checks.Comparison(False)
    assert checks.check_rerun_after_reference([bad], [ok]) == ["inconsistent_runs"]
    assert checks.check_rerun_after_reference([ok], [ok]) == []


def test_inputs_unchanged():
    x = torch.randn(8)
    assert checks.check_inputs_unchanged([[x]], [[x.clone()]]) == []
    assert checks.check_inputs_unchanged([[x]], [[torch.zeros(8)]]) == ["inputs_mutated"]
    assert checks.check_inputs_unchanged([[x, 3]], [[x.clone(), 4]]) == ["inputs_mutated"]


def test_kernel_launched():
    assert checks.check_kernel_launched([1, 2, 1]) == []
    assert checks.check_kernel_launched([1, 0, 1]) == ["no_kernel_launch"]
    assert checks.check_kernel_launched([None, None]) == []


def test_degenerate_reference_is_judged_on_its_own_scale():
    """A reference too small for atol: zeros must fail and an honest float32 answer must pass."""
    ref = torch.softmax(torch.randn(200_000), dim=0)              # every value far below atol=1e-3
    (tol,) = checks.output_tolerances([ref], 1e-3, 1e-4)
    assert tol.scaled and not tol.undecidable and tol.atol < 1e-3 * 1e-3
    zeros, honest = torch.zeros_like(ref), torch.softmax(torch.log(ref).double(), 0).float()   # float64, rounded
    assert checks.compare_outputs([zeros], [ref], 1e-3, 1e-4).ok                    # the old criterion passes zeros
    assert not checks.compare_outputs([zeros], [ref], [tol.atol], 1e-4).ok
    assert not checks.compare_outputs([torch.full_like(ref, 1 / ref.numel())], [ref], [tol.atol], 1e-4).ok
    assert checks.compare_outputs([honest], [ref], [tol.atol], 1e-4).ok
    assert checks.check_degenerate_reference([[tol]]) == ["degenerate"]


def test_ordinary_and_all_zero_references():
    (plain,) = checks.output_tolerances([torch.randn(8)], 1e-3, 1e-4)
    assert plain == checks.OutputTolerance(1e-3) and checks.check_degenerate_reference([[plain]]) == []
    (zero,) = checks.output_tolerances([torch.zeros(8)], 1e-3, 1e-4)
    assert zero.undecidable and checks.is_undecidable([[zero], [zero]])
    assert not checks.is_undecidable([[zero], [plain]])


def test_plausible_speedup():
    assert checks.check_plausible_speedup(120.0, 50.0) == ["implausible_speedup"]
    assert checks.check_plausible_speedup(3.0, 50.0) == []
    assert checks.check_plausible_speedup(None, 50.0) == []


def test_output_aliases_input_and_views():
    x = torch.randn(4, 4)
    assert defences.output_aliases([x], [x])
    assert defences.output_aliases([x[1:]], [x])
    assert not defences.output_aliases([x.clone()], [x])


def test_poison_allocator_fills_what_it_frees(monkeypatch):
    """The reference's output is freed; the poison blocks of its size are NaN-filled and freed;
    a candidate's same-size allocation right after gets one of those blocks back, NaN-filled.

    Which blocks the poison allocated is recorded (``torch.empty`` wrapped during the call
    only), so the test knows when malloc really handed one back. Rarely (~0.1%) malloc
    picks another chunk: such tries do not count; all of five tries missing would be an
    error. A poison block that comes back must be NaN past its first 32 bytes (malloc's
    free-list links: tcache ``next``/``key``, or bin ``fd``/``bk`` and size links)."""
    returned_poison = 0
    for _ in range(5):
        answer = torch.arange(1, 257, dtype=torch.float32)
        del answer
        poison_blocks = []
        real_empty = torch.empty

        def recording_empty(*args, **kwargs):
            t = real_empty(*args, **kwargs)
            poison_blocks.append(t.data_ptr())
            return t

        with monkeypatch.context() as patch:
            patch.setattr(torch, "empty", recording_empty)
            defences.poison_allocator("cpu", [(256,)], [torch.float32], 0)
        reused = torch.empty(256)
        if reused.data_ptr() in poison_blocks:
            returned_poison += 1
            assert torch.isnan(reused[8:]).all(), reused
    assert returned_poison, "malloc never handed a poison block back (the poison allocated none?)"


def test_tolerances_resolve_row_then_subset_then_language():
    cfg = ReverifyConfig(subset_tolerances={"hip_gpumode": [1e-2, 1e-2]})
    assert cfg.tolerance("hip") == (1e-4, 1e-4)
    assert cfg.tolerance("triton") == (1e-3, 1e-4)
    assert cfg.tolerance("hip", "hip_gpumode") == (1e-2, 1e-2)
    assert cfg.tolerance("hip", "hip_gpumode", row_atol=0.5) == (0.5, 1e-2)
    assert ReverifyConfig(seeds=2).config_hash() != ReverifyConfig(seeds=3).config_hash()
    assert ReverifyConfig(seed=1).config_hash() == ReverifyConfig(seed=2).config_hash()


def _recorded_ops(fn, *args) -> dict:
    """The aten ops ``fn(*args)`` really runs, counted by the worker's own recorder."""
    with defences.torch_op_recorder() as recorder:
        fn(*args)
    return dict(recorder.counts)


def _sealed_then_rewritten() -> tuple:
    """Round A's blob sealed as written, and the blob rewritten afterwards (another answer)."""
    from kvdata.reverify import tensor_blob

    sink = tensor_blob.SealingSink(lambda view: None)
    tensor_blob.dump({"A": [[torch.zeros(16)]]}, sink)
    rewritten = []
    tensor_blob.dump({"A": [[torch.ones(16)]]}, lambda view: rewritten.append(bytes(view)))
    return sink.seal(), b"".join(rewritten)


def _trick_cases() -> dict:
    """flag -> (the named check that raises it, the arguments of a run that tries the trick)."""
    from kvdata.reverify.tensor_blob import fingerprint

    x, ref = torch.randn(64), torch.randn(64)
    right = checks.compare_outputs([ref], [ref], 1e-3, 1e-4)
    wrong = checks.compare_outputs([ref + 1], [ref], 1e-3, 1e-4)
    tolerances = [checks.output_tolerances([ref], 1e-3, 1e-4)]
    w = torch.randn(64, 64)
    return {
        "no_kernel_launch": (checks.check_kernel_launched, ([1, 0, 1],)),
        "inputs_mutated": (checks.check_inputs_unchanged, ([[x]], [[torch.zeros_like(x)]])),
        "output_aliases_input": (checks.check_outputs_not_aliased,
                                 (WorkerReport(output_aliases_input=defences.output_aliases([x[3:]], [x])),)),
        "output_aliases_reference": (checks.check_outputs_not_aliased,
                                     (WorkerReport(output_aliases_reference=defences.output_aliases([ref.view(8, 8)],
                                                                                                 [ref])),)),
        "inconsistent_runs": (checks.check_rerun_after_reference, ([wrong], [right])),
        "tampered_outputs": (checks.check_round_sealed, _sealed_then_rewritten()),
        "kernel_not_needed": (checks.check_kernels_needed,      # knocked out, still the right answer
                              ({"launcher": {"outputs": [[ref.clone()]], "handed": [[]]}}, [[ref]], tolerances, 1e-4)),
        "inconsistent_dispatch": (checks.check_dispatch_consistent,     # pure copy first, torch GEMM after
                                  ([_recorded_ops(torch.clone, x), _recorded_ops(torch.nn.functional.linear, x, w)],)),
        "timed_outputs_mismatch": (checks.check_timed_outputs, ([[torch.zeros(64)]], [[ref]], 1e-3, 1e-4)),
        "background_work": (checks.check_background_work, (WorkerReport(background_work=True),)),
        "state_dict_mismatch": (checks.check_weights_loaded, (WorkerReport(state_dict_mismatch=True),)),
        "out_of_bounds": (checks.check_memory_safe,
                          (sanitize.parse_report(sanitize.SANITIZER_EXIT, "========= Invalid __global__ write of size 4"
                                                 " bytes\n========= ERROR SUMMARY: 1 error\n"),)),
        "degenerate": (checks.check_degenerate_reference,
                       ([checks.output_tolerances([torch.softmax(torch.randn(200_000), 0)], 1e-3, 1e-4)],)),
        "implausible_speedup": (checks.check_plausible_speedup, (120.0, 50.0)),
        "reference_nonfinite": (checks.check_reference_finite, ([torch.tensor([1.0, float("nan")])],)),
        "fixed_inputs": (checks.check_inputs_vary, ([fingerprint([x]), fingerprint([x.clone()])],)),
        "timer_tampered": (checks.check_clocks, (WorkerReport(clock_patched=["time.perf_counter"]),)),
        "global_state_changed": (checks.check_global_state,
                                 (WorkerReport(global_changes=["torch.backends.cudnn.enabled"]),)),
        "recorder_evaded": (checks.check_recorder,
                              (WorkerReport(recorder_evaded=["torch._C._DisableTorchDispatch"]),)),
        "torch_did_the_work": (checks.check_torch_share,         # torch ran the whole matmul
                               (WorkerReport(ref_flops=2 * 64 * 64, torch_flops=[2 * 64 * 64]),)),
        "shape_specialised": (checks.check_configs,              # right on the visible size only
                              ([("larger", "shape", [ref], [torch.zeros(64)], "")], 1e-3, 1e-4)),
        "range_specialised": (checks.check_configs,              # wrong once the inputs are shifted
                              ([("shifted", "range", [ref], [ref + 1], ""), ("larger", "shape", [ref], None,
                                                                             "no size constant")], 1e-3, 1e-4)),
        "torch_compute": (checks.check_torch_compute,
                          (_recorded_ops(lambda a: torch.nn.functional.gelu(torch.nn.functional.linear(a, w)), x),)),
    }


# Flags no named check in checks.py raises yet (issue 9 item 6: every flag is raised by one).
NOT_YET_A_CHECK: dict = {}


@pytest.mark.parametrize("flag", [
    pytest.param(flag, marks=pytest.mark.xfail(strict=True, reason=NOT_YET_A_CHECK[flag]))
    if flag in NOT_YET_A_CHECK else flag
    for flag in sorted(FAILING_FLAGS | WARNING_FLAGS)])
def test_every_flag_is_raised_by_its_named_check(flag):
    """Every flag a run can record (failing or warning) comes out of a documented check in
    checks.py when that check runs on inputs that try the trick: no config entry without a
    check that really raises it."""
    cases = _trick_cases()
    assert flag in cases, f"no check in checks.py is known to raise {flag!r}: add its trick here"
    check, args = cases[flag]
    assert check.__module__ == checks.__name__ and check.__doc__, check
    raised = check(*args)
    raised = raised[0] if isinstance(raised, tuple) else raised         # check_kernels_needed: (flags, result)
    assert flag in raised, f"{check.__name__} on the trick raised {raised}"



def test_rehearsal_runs_the_harness_steps():
    """Spares rehearse on a GPU (none in CI); on the CPU the same code path runs up to the
    device-only steps, so a change to the harness API it calls breaks this test."""
    import subprocess
    import sys

    code = "from kvdata.reverify.rehearsal import rehearse; rehearse('cpu'); print('rehearsed')"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "rehearsed"


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int32", "int64", "uint8",
                                   "complex64"])
def test_max_abs_matches_torch_across_chunks(dtype):
    import math

    import torch

    from kvdata.reverify import checks

    dt = getattr(torch, dtype)
    n = checks.CHUNK_ELEMENTS * 2 + 17                  # three chunks, the last one short
    g = torch.Generator().manual_seed(0)
    if dt.is_floating_point or dt.is_complex:
        t = (torch.randn(n, generator=g, dtype=torch.float64) * 100).to(dt if not dt.is_complex else torch.float32)
        t = torch.complex(t, -t * 3).to(dt) if dt.is_complex else t
    else:
        t = torch.randint(0, 120, (n,), generator=g).to(dt)
    expect = float(torch.view_as_real(t).abs().max() if dt.is_complex else t.double().abs().max())
    assert checks._max_abs(t) == pytest.approx(expect, rel=1e-6)
    if dt.is_floating_point:
        t[-1] = float("nan")                            # a NaN in the last chunk only
        assert math.isnan(checks._max_abs(t))
        t[-1] = float("-inf")
        assert checks._max_abs(t) == math.inf


def test_timed_outputs_must_be_plain_tensors():
    """A subclass that computes on first read would be timed at nothing: the timing refuses it (the timing loop
    itself needs a GPU; this is the check it calls inside the timed region)."""
    from kvdata.reverify.calls import LazyOutput, refuse_lazy

    class ComputesOnRead(torch.Tensor):
        pass

    refuse_lazy([torch.ones(3), torch.nn.Parameter(torch.ones(2))])
    with pytest.raises(LazyOutput, match="not a plain tensor"):
        refuse_lazy([torch.ones(3), torch.ones(3).as_subclass(ComputesOnRead)])


def _timed_calls(outputs_per_call, seed=5):
    from kvdata.reverify.timing import sketch_outputs

    return torch.stack([sketch_outputs(outs, seed, rep) for rep, outs in enumerate(outputs_per_call)])


def test_every_timed_call_is_checked_through_its_sketch():
    """The sketches of every timed call (the timing loop needs a GPU; this is what it computes per call and what
    the parent checks): an honest kernel's errors within the elementwise tolerance pass on every call, over many
    draws; a candidate that does 1/16 of the work except on its last two calls fails, and so do other NaN counts
    and integer outputs that differ."""
    atol, rtol = 1e-3, 1e-3
    g = torch.Generator().manual_seed(0)
    refs = [[torch.randn(64, 300, generator=g), torch.randint(0, 9, (50,), generator=g)] for _ in range(12)]
    tol = checks.output_tolerances(refs[0], atol, rtol)
    exact = [False, True]
    ref_sketch = _timed_calls(refs)

    def honest(r):     # the largest error the tolerance allows, with random signs, on every element
        sign = torch.randint(0, 2, r.shape, generator=g) * 2 - 1
        return r + 0.99 * sign * (atol + rtol * r.abs())

    for seed_shift in range(5):
        cand = [[honest(r), i.clone()] for r, i in refs]
        assert checks.check_timed_sketches(_timed_calls(cand), ref_sketch, tol, exact, rtol) == []
        g.manual_seed(seed_shift + 1)
    sixteenth = [[torch.where(torch.arange(r.numel()).reshape(r.shape) % 16 == 0, r, torch.zeros(())), i]
                 for r, i in refs[:-2]] + [list(c) for c in refs[-2:]]
    assert checks.check_timed_sketches(_timed_calls(sixteenth), ref_sketch, tol, exact, rtol) == \
        ["timed_outputs_mismatch"]
    nan = [[r.clone(), i] for r, i in refs]
    nan[3][0][0, 0] = float("nan")
    assert checks.check_timed_sketches(_timed_calls(nan), ref_sketch, tol, exact, rtol) == ["timed_outputs_mismatch"]
    ints = [[r, (i + 1) % 9] for r, i in refs]
    assert checks.check_timed_sketches(_timed_calls(ints), ref_sketch, tol, exact, rtol) == ["timed_outputs_mismatch"]
    assert checks.check_timed_sketches(None, ref_sketch, tol, exact, rtol) == ["timed_outputs_mismatch"]
    assert checks.check_timed_sketches(None, None, tol, exact, rtol) == []
    fewer = _timed_calls(refs[:5])            # a time budget ended the candidate's loop sooner: the common calls
    assert checks.check_timed_sketches(fewer, ref_sketch, tol, exact, rtol) == []


def test_device_time_far_below_the_host_clock_is_a_tampered_timer():
    """The host-clock cross-check (``timing.time_gpu`` measures the gaps; a GPU is needed for that): a candidate
    whose event times fall short of the host clock by far more than the reference's did has a patched clock."""
    def report(ref_gap, gap, host):
        return WorkerReport(ref_host_gap_ms=ref_gap, kernel_host_gap_ms=gap, kernel_host_ms=host)

    assert checks.check_clocks(report(0.015, 0.022, 0.05)) == []          # a tiny honest kernel
    assert checks.check_clocks(report(0.015, 0.03, 12.0)) == []           # a long honest kernel
    assert checks.check_clocks(report(0.015, 1.9, 2.0)) == ["timer_tampered"]   # elapsed time / 20 on 2 ms
    assert checks.check_clocks(report(None, 1.9, 2.0)) == []              # not timed (CPU): nothing to compare
    assert checks.check_clocks(WorkerReport(clock_patched=["torch.cuda.Event.elapsed_time"])) == ["timer_tampered"]


class _HostEvents:
    """A stand-in for the device clock so that the timing loop runs on a CPU: an event is the host time it was
    recorded at; ``divide`` makes ``elapsed_ms`` lie as a clock patched below Python would."""

    def __init__(self, divide: float = 1.0):
        import time

        self.divide, self.now = divide, time.monotonic

    def monotonic(self):
        return self.now()

    def synchronize(self):
        pass

    def event(self):
        return {}

    def record(self, event):
        event["t"] = self.now()

    def wait(self, event):
        pass

    def elapsed_ms(self, start, end):
        return (end["t"] - start["t"]) * 1e3 / self.divide


def _calls(clocks):
    from kvdata.reverify.calls import CallServer

    return CallServer(clocks, "cpu", events=True)


def test_the_timing_loop_sketches_every_call_and_measures_the_host_gap():
    """``time_gpu`` end to end on the CPU (its events from the host clock here): the sketch of every timed call
    agrees with a second run of the same model; a model that does the work only on its last two calls passes the
    element-by-element check of the kept calls but not the sketches; and a clock dividing the event time by 20
    leaves a host gap far over the honest run's."""
    import time

    from kvdata.reverify.timing import TIMED_CHECKED, time_gpu

    class Slow(torch.nn.Module):                         # about 2 ms a call, so that a lying clock shows
        def forward(self, x):
            end = time.monotonic() + 0.002
            while time.monotonic() < end:
                pass
            return torch.tanh(x) * 2

    class LastCallsOnly(torch.nn.Module):
        calls = 0

        def forward(self, x):
            LastCallsOnly.calls += 1
            full = torch.tanh(x) * 2
            return full if LastCallsOnly.calls > 10 else full * (torch.arange(x.numel()).reshape(x.shape) % 16 == 0)

    timing = {"warmup": 1, "reps": 11, "flush_mb": 1, "max_seconds": 60}
    x = [torch.randn(32, 64)]
    ref = time_gpu(Slow(), x, timing, "cpu", 3, _calls(_HostEvents()))
    assert ref.sketch.shape[:2] == (11, 1) and len(ref.kept) == TIMED_CHECKED
    again = time_gpu(Slow(), x, timing, "cpu", 3, _calls(_HostEvents()))
    tol = checks.output_tolerances(ref.kept[-1], 1e-4, 1e-4)
    assert checks.check_timed_sketches(again.sketch, ref.sketch, tol, [False], 1e-4) == []
    sly = time_gpu(LastCallsOnly(), x, timing, "cpu", 3, _calls(_HostEvents()))
    assert checks.check_timed_outputs(sly.kept, ref.kept, 1e-4, 1e-4) == []
    assert checks.check_timed_sketches(sly.sketch, ref.sketch, tol, [False], 1e-4) == ["timed_outputs_mismatch"]
    lying = time_gpu(Slow(), x, timing, "cpu", 3, _calls(_HostEvents(divide=20)))
    assert checks.check_clocks(WorkerReport(ref_host_gap_ms=ref.host_gap_ms, kernel_host_gap_ms=again.host_gap_ms,
                                            kernel_host_ms=again.host_ms)) == []
    assert checks.check_clocks(WorkerReport(ref_host_gap_ms=ref.host_gap_ms, kernel_host_gap_ms=lying.host_gap_ms,
                                            kernel_host_ms=lying.host_ms)) == ["timer_tampered"]
