"""HIP re-verification backends: real hipcc/clang/nvcc compiles of the bundled HIP samples.

Compiles are the slow part on 2 cores: one precompiled torch/extension.h per pass (about a
minute each, built once by ``prepare``), then a few seconds per pass. The module runs one
4-pass compile of a correct sample (host + gfx90a + gfx940 [+ gfx942]), one 2-pass compile of
a broken one, a verifier run whose compiler crashes, and one nvcc device compile; everything
else reuses the cache.
"""
from __future__ import annotations

import multiprocessing
import os
import re
import struct
from pathlib import Path

import pytest

from kvdata.reverify.backends import hip_compile
from kvdata.reverify.backends.cuda_portability import (CudaPortabilityBackend, HipTranslationError,
                                                       nvcc_device_compile, translate_for_cuda)
from kvdata.reverify.backends.hip_compile import HipCompileBackend, HipCompileError
from kvdata.reverify.backends.rocm import RocmBackend, _amd_arch, make_module_factory
from kvdata.reverify.compile_cache import CompileCache, cache_key
from kvdata.reverify import toolchain
from kvdata.reverify.backends.base import ToolchainError
from kvdata.reverify.hipify import reverse_mapping, translate
from kvdata.reverify.toolchain import find_clang, find_nvcc, find_rocm

REPO = Path(__file__).resolve().parents[1]
GPUMODE = REPO / "builders" / "sample" / "hip_gpumode"
BUNDLED_HIP = sorted((REPO / "builders" / "sample").rglob("*.hip"))
EM_AMDGPU = 224

needs_hipcc = pytest.mark.skipif(find_clang() is None or find_rocm(find_clang().path) is None,
                                 reason="clang >= 17 with Debian's ROCm 5.2 (hipcc package) not installed")


def bundled(name: str) -> str:
    return (GPUMODE / "hip_code" / f"{name}.hip").read_text()


def functional(name: str) -> str:
    return (GPUMODE / "pytorch_code_functional" / f"{name}.py").read_text()


def amdgpu_code_object_target(path: str) -> str:
    """The target of an AMDGPU code object (what clang --cuda-device-only -c --no-gpu-bundle-output writes)."""
    data = Path(path).read_bytes()
    assert data.startswith(b"\x7fELF"), f"{path} is not an ELF code object"
    assert struct.unpack("<H", data[18:20])[0] == EM_AMDGPU
    return re.search(rb"amdgcn-amd-amdhsa--(gfx\w+)", data).group(1).decode()


# ---------------------------------------------------------------------------- hip-compile
@pytest.fixture(scope="module")
def compile_cache_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("compile-cache")


@pytest.fixture(scope="module")
def prepared_header_cache(tmp_path_factory) -> dict:
    """What the parent does once per run: ``prepare`` builds the precompiled headers, ``worker_env`` names them."""
    archs = ("gfx90a", "gfx940") + (("gfx942",) if find_clang() and "gfx942" in find_clang().archs else ())
    backend = HipCompileBackend(archs=archs)
    shared = tmp_path_factory.mktemp("shared-cache")
    backend.prepare(shared)
    env = backend.worker_env()
    assert env == {hip_compile.HEADER_CACHE_ENV: str(shared / hip_compile.HEADER_CACHE_SUBDIR)}
    return {"archs": archs, "env": env, "headers": CompileCache(shared / hip_compile.HEADER_CACHE_SUBDIR)}


@pytest.fixture
def worker(prepared_header_cache, monkeypatch) -> dict:
    for k, v in prepared_header_cache["env"].items():
        monkeypatch.setenv(k, v)
    return prepared_header_cache


@needs_hipcc
def test_bundled_sample_compiles_for_each_amd_arch_then_hits_the_cache(worker, compile_cache_dir, tmp_path,
                                                                       monkeypatch):
    archs = worker["archs"]
    assert worker["headers"].stats() == {"hits": 0, "misses": len(archs) + 1}    # one header per pass
    backend = HipCompileBackend(archs=archs)
    ok, why = backend.is_available()
    assert ok, why
    sample = {"kernel_code": bundled("5_Softmax")}

    first = backend.build(sample, tmp_path / "w1", compile_cache_dir)
    results = {r["arch"]: r for r in first.arch_results}
    assert list(results) == list(archs)
    assert all(r["compile_ok"] for r in results.values()), first.compile_log
    assert all(r["precompiled_header"] for r in results.values()), first.compile_log
    assert "-include-pch" in first.compile_log and "-fsyntax-only" in first.compile_log
    assert first.cache_hit is False and first.make_module is None
    for arch in ("gfx90a", "gfx940"):           # linked AMDGPU code objects (assembly where lld-19 is missing)
        if find_clang().links_amdgpu:
            assert results[arch]["mode"] == "device-object"
            assert amdgpu_code_object_target(results[arch]["artifact"]) == arch
        else:
            assert results[arch]["mode"] == "device-asm"
            assert f'.amdgcn_target "amdgcn-amd-amdhsa--{arch}' in Path(results[arch]["artifact"]).read_text()
    if "gfx942" in results:                     # no ROCm 5.2 device libraries: gfx942 assembly of the kernel
        asm = Path(results["gfx942"]["artifact"]).read_text()
        assert ".amdgcn_target \"amdgcn-amd-amdhsa--gfx942" in asm and "softmax_rows" in asm
    env = backend.environment()
    assert env["arch"] == ",".join(archs) and env["rocm_version"].startswith("5.2")
    assert env["compiler"].endswith(f"-std={toolchain.torch_cxx_standard()}")
    # the sample's cache holds its passes only; the headers stayed in the shared cache, which was only read
    assert CompileCache(compile_cache_dir).stats() == {"hits": 0, "misses": len(archs) + 1}
    assert not list(compile_cache_dir.glob("pch-headers"))
    assert worker["headers"].stats()["misses"] == len(archs) + 1

    # Rerun: every pass is a cache hit and no compiler runs.
    def no_compiler(*args, **kwargs):
        raise AssertionError("the compiler ran on a cache hit")
    monkeypatch.setattr(hip_compile, "_run_compiler", no_compiler)
    second = HipCompileBackend(archs=archs).build(sample, tmp_path / "w2", compile_cache_dir)
    assert second.cache_hit is True
    assert [r["compile_ok"] for r in second.arch_results] == [True] * len(archs)
    assert CompileCache(compile_cache_dir).stats() == {"hits": len(archs) + 1, "misses": len(archs) + 1}


def test_torch_cxx_standard_is_the_one_atens_guard_demands():
    import torch

    major_minor = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
    assert toolchain.torch_cxx_standard() == ("c++20" if major_minor >= (2, 14) else "c++17")


def test_only_a_source_that_starts_with_torch_extension_uses_the_precompiled_header():
    assert hip_compile.starts_with_torch_extension("// c\n/* x */\n#include <torch/extension.h>\n#include <x>")
    assert hip_compile.starts_with_torch_extension("#  include   <torch/extension.h>\n")
    assert not hip_compile.starts_with_torch_extension("#define N 4\n#include <torch/extension.h>\n")
    assert not hip_compile.starts_with_torch_extension("#include <hip/hip_runtime.h>\n")


FAKE_CRASHING_CLANG = """#!/bin/sh
# A clang that reports a version and its AMD targets, finds ROCm, and segfaults on every compile.
case "$*" in
  *--version*) echo "clang version 22.0.0"; exit 0;;
  *-mcpu=help*) echo "gfx90a gfx940 gfx942"; exit 0;;
  *-v\\ -fsyntax-only*) echo "Found HIP installation: /usr, version 5.2.21153" >&2; exit 0;;
esac
kill -SEGV $$
"""


def put_crashing_clang_first_on_path(bin_dir: Path, monkeypatch) -> Path:
    """A clang++-22 (newer than any installed, so find_clang picks it) that crashes; the probes forget the real one."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    fake = bin_dir / "clang++-22"
    fake.write_text(FAKE_CRASHING_CLANG)
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    for probe in (toolchain.find_clang, toolchain.find_rocm):
        probe.cache_clear()
    return fake


@pytest.fixture
def forget_probed_toolchain():
    yield
    for probe in (toolchain.find_clang, toolchain.find_rocm):
        probe.cache_clear()


def test_a_crashing_compiler_is_a_toolchain_error_and_is_not_cached(tmp_path, monkeypatch, forget_probed_toolchain):
    fake = put_crashing_clang_first_on_path(tmp_path / "bin", monkeypatch)
    assert find_clang().path == str(fake)
    backend = HipCompileBackend(archs=("gfx90a",))          # not prepared: no precompiled header
    assert backend.is_available()[0]
    with pytest.raises(ToolchainError, match="the toolchain failed") as err:
        backend.build({"kernel_code": bundled("3_Add")}, tmp_path / "w", tmp_path / "cache")
    assert not isinstance(err.value, HipCompileError)
    assert CompileCache(tmp_path / "cache").stats()["misses"] == 0       # nothing cached: a fixed toolchain recompiles


@needs_hipcc
def test_a_crashing_compiler_is_status_toolchain_error_in_a_verifier_run(tmp_path, monkeypatch,
                                                                         forget_probed_toolchain):
    """End to end: the sandboxed worker finds the crashing clang on PATH; the row is toolchain_error."""
    from kvdata.reverify.config import ReverifyConfig
    from kvdata.reverify.runner import Verifier
    from kvdata.reverify.samples import Sample

    verifier = Verifier(ReverifyConfig(backend="hip-compile"), cache_root=tmp_path / "cache",
                        scratch_root=tmp_path / "scratch")
    sample = Sample.from_row({"id": "crash-1", "language": "hip", "kernel_code": bundled("3_Add"),
                              "pytorch_code": functional("3_Add")})
    verifier._backend("hip-compile")                 # the parent probes the real clang
    # the worker sees only the backend's cache (bound into its sandbox) and PATH: put the crashing clang there
    put_crashing_clang_first_on_path(verifier.cache_dir("hip-compile") / "bin", monkeypatch)
    try:
        row = verifier.verify(sample)
    finally:
        verifier.close()
    assert row.status == "toolchain_error" and not row.correct, row
    assert row.message.startswith("ToolchainError: the toolchain failed (exit -11)"), row.message


@needs_hipcc
def test_a_standard_the_compiler_does_not_know_is_a_toolchain_error(tmp_path, monkeypatch):
    monkeypatch.setattr(hip_compile, "torch_cxx_standard", lambda: "c++99x")
    with pytest.raises(ToolchainError, match="invalid value 'c\\+\\+99x'"):
        HipCompileBackend(archs=("gfx90a",)).build({"kernel_code": bundled("1_ReLU")}, tmp_path / "w",
                                                   tmp_path / "cache")
    assert CompileCache(tmp_path / "cache").stats()["misses"] == 0


BROKEN_SAMPLES = {
    "missing_semicolon": (("c[i] = a[i] + b[i];", "c[i] = a[i] + b[i]"), "error: expected ';'"),
    # a sample that prints the toolchain's crash banner is still the one that failed
    "errors_like_a_crash": (("#include <hip/hip_runtime.h>", "#include <hip/hip_runtime.h>\n"
                             "#error Segmentation fault (PLEASE submit a bug report; Stack dump:)"),
                            "error: Segmentation fault"),
}


@needs_hipcc
@pytest.mark.parametrize("name", BROKEN_SAMPLES)
def test_a_broken_sample_is_a_compile_error_with_the_compilers_message(name, worker, compile_cache_dir, tmp_path,
                                                                        monkeypatch):
    (old, new), message = BROKEN_SAMPLES[name]
    source = bundled("3_Add")
    broken = source.replace(old, new, 1)
    assert broken != source
    backend = HipCompileBackend(archs=("gfx90a",))
    with pytest.raises(HipCompileError) as err:
        backend.build({"kernel_code": broken}, tmp_path / "w", compile_cache_dir)
    assert not isinstance(err.value, ToolchainError)
    (result,) = err.value.results
    assert result.arch == "gfx90a" and not result.compile_ok and result.precompiled_header
    assert message in str(err.value)

    # A deterministic compile failure is cached: the rerun reports it without compiling.
    monkeypatch.setattr(hip_compile, "_run_compiler", lambda *a, **k: pytest.fail("compiler ran"))
    with pytest.raises(HipCompileError, match=re.escape(message)):
        backend.build({"kernel_code": broken}, tmp_path / "w2", compile_cache_dir)


def test_unknown_arch_is_unavailable_with_a_reason():
    ok, why = HipCompileBackend(archs=("gfx90a", "gfx1234")).is_available()
    assert not ok and "gfx1234" in why


# ---------------------------------------------------------------------------- rocm
def test_rocm_backend_says_why_it_cannot_run_here():
    import torch

    backend = RocmBackend()
    ok, why = backend.is_available()
    if torch.version.hip is None:
        assert not ok and "torch.version.hip is None" in why
    assert backend.device_flags("gfx942") == ["-O3", "--offload-arch=gfx942"]
    assert _amd_arch(type("P", (), {"gcnArchName": "gfx942:sramecc+:xnack-"})()) == "gfx942"
    src = bundled("1_ReLU")
    key = backend.cache_key(src, "gfx942")
    assert key == backend.cache_key(src, "gfx942")
    assert key != backend.cache_key(src, "gfx950") and key != backend.cache_key(src + " ", "gfx942")


def test_make_module_is_the_functional_model_with_the_extension_as_fn():
    import torch
    import torch.nn.functional as F

    calls = []

    def ext_forward(x, weight, bias):        # stands in for the compiled extension's forward
        calls.append(x.shape)
        return F.linear(x, weight, bias)

    code = functional("12_Gemm")
    make_module = make_module_factory(code, ext_forward)
    candidate = make_module((64, 48))
    namespace: dict = {}
    exec(code, namespace)
    ref = namespace["Model"](64, 48)
    assert set(candidate.state_dict()) == set(ref.state_dict()) == {"weight", "bias"}
    candidate.load_state_dict(ref.state_dict())
    x = torch.randn(5, 64)
    torch.testing.assert_close(candidate(x), ref(x))
    assert calls == [torch.Size([5, 64])]      # the forward went through the extension, once


# ---------------------------------------------------------------------------- hipify / cuda-portability
def test_reverse_mapping_comes_from_torch_tables():
    mapping = reverse_mapping()
    assert mapping.identifiers["hipMalloc"] == "cudaMalloc"          # runtime API beats cuMemAlloc
    assert mapping.identifiers["hipStream_t"] == "cudaStream_t"
    assert mapping.identifiers["hipError_t"] == "cudaError_t"
    assert "int" not in mapping.identifiers                          # nvtxRangeId_t -> int is not reversed
    assert mapping.includes["hip/hip_runtime.h"] == "cuda_runtime.h"
    assert mapping.namespaces["hipcub::"] == "cub::"
    assert len(mapping.identifiers) > 1000


@pytest.mark.parametrize("path", BUNDLED_HIP, ids=lambda p: str(p.relative_to(REPO / "builders" / "sample")))
def test_every_bundled_hip_sample_translates(path):
    hip = path.read_text()
    cuda = translate(hip)
    launches = len(re.findall(r"\bhipLaunchKernelGGL\s*\(", hip))
    assert cuda.source.count("<<<") == launches + hip.count("<<<")
    code = re.sub(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"", "", cuda.source, flags=re.S)
    assert not re.search(r"\bhip[A-Z_]\w*|hip/hip_runtime", code), code
    assert not cuda.blocking


HIP_FIXTURE = """#include <torch/extension.h>
#include <hip/hip_runtime.h>
#include <ATen/hip/HIPContext.h>
#define WARP_SIZE 64
template <typename T, int N>
__global__ void row_sum(const T* x, T* out, int cols) {
    HIP_DYNAMIC_SHARED(float, smem);
    T acc = x[threadIdx.x];
    for (int offset = 32; offset > 0; offset >>= 1) acc += __shfl_down(acc, offset);
    if (threadIdx.x % 64 == 0) smem[threadIdx.x / 64] = acc;   // "hipMalloc" stays in comments
}
void launch(const float* x, float* out, int rows, int cols) {
    hipStream_t stream = at::hip::getCurrentHIPStreamMasqueradingAsCUDA();
    hipLaunchKernelGGL(HIP_KERNEL_NAME(row_sum<float, 4>), dim3(rows), dim3(256), 4 * sizeof(float), stream,
                       x, out, cols);
    TORCH_CHECK(hipGetLastError() == hipSuccess, "launch failed");
}
"""


def test_translation_rewrites_launches_intrinsics_and_flags_wave64():
    cuda = translate(HIP_FIXTURE)
    src = cuda.source
    assert "row_sum<float, 4><<<dim3(rows), dim3(256), 4 * sizeof(float), stream>>>(x, out, cols);" in src
    assert "__shfl_down_sync(0xffffffff, acc, offset)" in src
    assert "extern __shared__ float smem[]" in src
    assert "#include <cuda_runtime.h>" in src and "#include <ATen/cuda/CUDAContext.h>" in src
    assert "cudaStream_t stream = at::cuda::getCurrentCUDAStream();" in src
    assert "cudaGetLastError() == cudaSuccess" in src
    assert '"hipMalloc" stays in comments' in src and "int cols" in src
    wave64 = {i.line for i in cuda.issues if i.kind == "wave64"}
    assert {4, 9, 10} <= wave64


def test_amd_only_builtins_block_the_translation():
    hip = HIP_FIXTURE.replace("T acc = x[threadIdx.x];", "T acc = __builtin_amdgcn_readfirstlane(x[0]);")
    with pytest.raises(HipTranslationError, match="__builtin_amdgcn_readfirstlane"):
        translate_for_cuda(hip)


def test_cuda_portability_backend_is_labelled_and_says_why_not_here():
    import torch

    backend = CudaPortabilityBackend()
    assert backend.portability is True and backend.language == "hip"
    ok, why = backend.is_available()
    if not torch.cuda.is_available():
        assert not ok and why


@pytest.mark.skipif(find_nvcc() is None, reason="nvcc not installed")
def test_translated_bundled_sample_compiles_with_nvcc(tmp_path):
    translation = translate_for_cuda(bundled("5_Softmax"))
    ok, log = nvcc_device_compile(translation.source, tmp_path, arch="sm_90")
    assert ok, log
    assert (tmp_path / "translated.cubin").stat().st_size > 0


# ---------------------------------------------------------------------------- compile cache
def _build_in_process(root: str, key: str, marker_dir: str) -> bool:
    def build(stage: Path) -> dict:
        (Path(marker_dir) / f"built-{multiprocessing.current_process().pid}").write_text("x")
        (stage / "artifact.bin").write_bytes(b"code")
        return {"ok": True}
    _, hit = CompileCache(root).get_or_build(key, build)
    return hit


def test_parallel_workers_build_a_key_once(tmp_path):
    key = cache_key("src", "hip-compile", "gfx90a", "tc", ["-O3"])
    markers = tmp_path / "markers"
    markers.mkdir()
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(4) as pool:
        hits = pool.starmap(_build_in_process, [(str(tmp_path / "cache"), key, str(markers))] * 8)
    assert len(list(markers.iterdir())) == 1 and hits.count(False) == 1
    entry = CompileCache(tmp_path / "cache").lookup(key)
    assert entry.ok and entry.file("artifact.bin").read_bytes() == b"code"
    assert CompileCache(tmp_path / "cache").stats() == {"hits": 7, "misses": 1}


def test_cache_key_depends_on_every_input():
    base = ("src", "rocm", "gfx942", "torch=2.13;rocm=6.4", ("-O3",))
    keys = {cache_key(*base)}
    for i, changed in enumerate(["src2", "hip-compile", "gfx950", "torch=2.14;rocm=6.4", ("-O2",)]):
        args = list(base)
        args[i] = changed
        keys.add(cache_key(*args))
    assert len(keys) == 6


def test_a_failed_build_is_not_cached(tmp_path):
    cache = CompileCache(tmp_path)

    def crash(stage: Path) -> dict:
        raise TimeoutError("compiler hung")
    with pytest.raises(TimeoutError):
        cache.get_or_build("ab" * 32, crash)
    assert cache.lookup("ab" * 32) is None
    assert not any(p.name.startswith(".") for p in (tmp_path / "ab").iterdir())
