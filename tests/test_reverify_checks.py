"""Each check against the trick it names, on real tensors (the end-to-end versions run in
tests/test_reverify_hostile.py)."""
from __future__ import annotations

import pytest
import torch

from kvdata.reverify import checks
from kvdata.reverify.config import ReverifyConfig


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


def test_degenerate_reference():
    assert checks.check_degenerate_reference([torch.full((8,), 1e-5)], 1e-3, 1e-4) == ["degenerate"]
    assert checks.check_degenerate_reference([torch.randn(8)], 1e-3, 1e-4) == []


def test_plausible_speedup():
    assert checks.check_plausible_speedup(120.0, 50.0) == ["implausible_speedup"]
    assert checks.check_plausible_speedup(3.0, 50.0) == []
    assert checks.check_plausible_speedup(None, 50.0) == []


def test_output_aliases_input_and_views():
    x = torch.randn(4, 4)
    assert checks.output_aliases([x], [x])
    assert checks.output_aliases([x[1:]], [x])
    assert not checks.output_aliases([x.clone()], [x])


def test_poison_allocator_fills_what_it_frees():
    """The poison blocks are NaN-filled before being freed; a same-size allocation right
    after is either that block (NaN) or fresh zero pages — never a stale right answer."""
    answer = torch.arange(1, 257, dtype=torch.float32)
    del answer
    checks.poison_allocator("cpu", [(256,)], [torch.float32], 0)
    reused = torch.empty(256)
    assert not torch.equal(reused, torch.arange(1, 257, dtype=torch.float32))


def test_tolerances_resolve_row_then_subset_then_language():
    cfg = ReverifyConfig(subset_tolerances={"hip_gpumode": [1e-2, 1e-2]})
    assert cfg.tolerance("hip") == (1e-4, 1e-4)
    assert cfg.tolerance("triton") == (1e-3, 1e-4)
    assert cfg.tolerance("hip", "hip_gpumode") == (1e-2, 1e-2)
    assert cfg.tolerance("hip", "hip_gpumode", row_atol=0.5) == (0.5, 1e-2)
    assert ReverifyConfig(seeds=2).config_hash() != ReverifyConfig(seeds=3).config_hash()
    assert ReverifyConfig(seed=1).config_hash() == ReverifyConfig(seed=2).config_hash()


@pytest.mark.parametrize("flag", sorted(ReverifyConfig().failing_flags))
def test_failing_flags_are_documented_checks(flag):
    """Every flag that fails a sample is raised by a named check in checks.py (no dead config entries)."""
    import inspect

    from kvdata.reverify import checks

    raisers = [name for name, fn in inspect.getmembers(checks, inspect.isfunction)
               if fn.__module__ == checks.__name__ and f'"{flag}"' in inspect.getsource(fn)]
    assert raisers, f"no check in checks.py raises {flag!r}"
    assert all(getattr(checks, name).__doc__ for name in raisers)



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
