"""--sanitize (issue #9): one seed under compute-sanitizer memcheck, without PyTorch's caching allocator.

The GPU test runs where an NVIDIA GPU and compute-sanitizer exist (the H200 run): the bundled
``2_GELU__no_bound_check`` HIP sample, translated to CUDA, passes every output comparison (its
stray writes land in allocator slack) and must still come out not correct; the bounded
``2_GELU`` must stay correct. On this CPU box only the parts that need no GPU run.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kvdata.reverify import checks, reverify, sanitize
from kvdata.reverify.config import ReverifyConfig
from kvdata.reverify.runner import Verifier
from kvdata.reverify.samples import Sample
from kvdata.reverify.store import read_results

GPUMODE = Path(__file__).resolve().parents[1] / "builders" / "sample" / "hip_gpumode"


def _gpu_and_sanitizer() -> bool:
    try:
        import torch

        return torch.cuda.is_available() and sanitize.find_sanitizer() is not None
    except ImportError:
        return False


def test_memcheck_report_is_read_from_its_summary():
    found = sanitize.parse_report(sanitize.SANITIZER_EXIT, "========= COMPUTE-SANITIZER\n"
                                  "========= Invalid __global__ write of size 4 bytes\n"
                                  "=========     at gelu_kernel+0x1b0\n"
                                  "========= ERROR SUMMARY: 3 errors\n")
    assert found.ran and found.errors == 3 and checks.check_memory_safe(found) == ["out_of_bounds"]
    assert "Invalid __global__ write of size 4 bytes" in found.summary()
    clean = sanitize.parse_report(0, "========= ERROR SUMMARY: 0 errors\n")
    assert clean.ran and checks.check_memory_safe(clean) == [] and clean.summary() == "memcheck: 0 errors"
    assert not sanitize.parse_report(None, "", timed_out=True).ran
    assert not sanitize.parse_report(1, "Traceback ...\n========= ERROR SUMMARY: 0 errors").ran


def test_sanitize_defaults_to_portability_runs_on_a_gpu():
    from kvdata.reverify.backends import create_backend

    default, on, off = Verifier(ReverifyConfig()), Verifier(ReverifyConfig(sanitize=True)), \
        Verifier(ReverifyConfig(sanitize=False))
    portability, triton_gpu, interpreter = (create_backend(n) for n in
                                            ("cuda-portability", "triton-gpu", "triton-interpreter"))
    assert default.sanitize_enabled(portability) and not default.sanitize_enabled(triton_gpu)
    assert on.sanitize_enabled(triton_gpu) and not off.sanitize_enabled(portability)
    assert not on.sanitize_enabled(interpreter)          # the CPU has nothing to sanitize
    assert ReverifyConfig(sanitize=True).config_hash() != ReverifyConfig().config_hash()


@pytest.mark.skipif(not _gpu_and_sanitizer(), reason="needs an NVIDIA GPU and compute-sanitizer")
def test_sanitize_catches_the_unbounded_gelu(tmp_path):
    functional = (GPUMODE / "pytorch_code_functional" / "2_GELU.py").read_text()
    module = (GPUMODE / "pytorch_code_module" / "2_GELU.py")
    samples = [Sample(id=name, language="hip", kernel_code=(GPUMODE / "hip_code" / f"{name}.hip").read_text(),
                      pytorch_code=module.read_text() if module.exists() else functional,
                      pytorch_functional_code=functional)
               for name in ("2_GELU", "2_GELU__no_bound_check")]
    out = tmp_path / "results.jsonl"
    reverify(samples, out, ReverifyConfig(backend="cuda-portability", seeds=2, timeout_s=600), workers=1,
             cache_root=tmp_path / "cache", progress=False)
    rows = {r["id"]: r for r in read_results(out)}
    bad, good = rows["2_GELU__no_bound_check"], rows["2_GELU"]
    assert "out_of_bounds" in bad["flags"] and not bad["correct"], (bad["status"], bad.get("sanitizer"))
    assert good["status"] == "correct" and good["sanitizer"] == "memcheck: 0 errors", (good["message"], good.get("sanitizer"))
