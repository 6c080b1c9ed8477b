"""HIP re-verification backends: real hipcc/clang/nvcc compiles of the bundled HIP samples.

Compiles are the slow part (10-30 s each on 2 cores): the whole module runs one 4-pass
compile of a correct sample (host + gfx90a + gfx940 [+ gfx942]), one 2-pass compile of a
broken one, and one nvcc device compile; everything else reuses the cache.
"""
from __future__ import annotations

import multiprocessing
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
from kvdata.reverify.hipify import reverse_mapping, translate
from kvdata.reverify.toolchain import find_clang, find_hipcc, find_nvcc

REPO = Path(__file__).resolve().parents[1]
GPUMODE = REPO / "builders" / "sample" / "hip_gpumode"
BUNDLED_HIP = sorted((REPO / "builders" / "sample").rglob("*.hip"))
EM_AMDGPU = 224

needs_hipcc = pytest.mark.skipif(find_hipcc() is None, reason="hipcc (Debian ROCm 5.2) not installed")


def bundled(name: str) -> str:
    return (GPUMODE / "hip_code" / f"{name}.hip").read_text()


def functional(name: str) -> str:
    return (GPUMODE / "pytorch_code_functional" / f"{name}.py").read_text()


def amdgpu_code_object_target(path: str) -> str:
    """The target id in a clang offload bundle (what hipcc --cuda-device-only -c writes)."""
    data = Path(path).read_bytes()
    assert data.startswith(b"__CLANG_OFFLOAD_BUNDLE__"), f"{path} is not an offload bundle"
    elf = data.find(b"\x7fELF")
    assert elf > 0 and struct.unpack("<H", data[elf + 18:elf + 20])[0] == EM_AMDGPU
    return re.search(rb"amdgcn-amd-amdhsa--(gfx\w+)", data).group(1).decode()


# ---------------------------------------------------------------------------- hip-compile
@pytest.fixture(scope="module")
def compile_cache_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("compile-cache")


@needs_hipcc
def test_bundled_sample_compiles_for_each_amd_arch_then_hits_the_cache(compile_cache_dir, tmp_path, monkeypatch):
    archs = ("gfx90a", "gfx940") + (("gfx942",) if find_clang() and "gfx942" in find_clang().archs else ())
    backend = HipCompileBackend(archs=archs)
    ok, why = backend.is_available()
    assert ok, why
    sample = {"kernel_code": bundled("5_Softmax")}

    first = backend.build(sample, tmp_path / "w1", compile_cache_dir)
    results = {r["arch"]: r for r in first.arch_results}
    assert list(results) == list(archs)
    assert all(r["compile_ok"] for r in results.values()), first.compile_log
    assert first.cache_hit is False and first.make_module is None
    for arch in ("gfx90a", "gfx940"):           # hipcc: linked AMDGPU code objects
        assert amdgpu_code_object_target(results[arch]["artifact"]) == arch
    if "gfx942" in results:                     # clang-19: gfx942 assembly of the kernel
        asm = Path(results["gfx942"]["artifact"]).read_text()
        assert ".amdgcn_target \"amdgcn-amd-amdhsa--gfx942" in asm and "softmax_rows" in asm
    env = backend.environment()
    assert env["arch"] == ",".join(archs) and env["rocm_version"].startswith("5.2")

    # Rerun: every pass is a cache hit and no compiler runs.
    def no_compiler(*args, **kwargs):
        raise AssertionError("the compiler ran on a cache hit")
    monkeypatch.setattr(hip_compile, "_run_compiler", no_compiler)
    second = HipCompileBackend(archs=archs).build(sample, tmp_path / "w2", compile_cache_dir)
    assert second.cache_hit is True
    assert [r["compile_ok"] for r in second.arch_results] == [True] * len(archs)
    stats = CompileCache(compile_cache_dir).stats()
    assert stats["hits"] >= len(archs) + 1 and stats["misses"] == len(archs) + 1


@needs_hipcc
def test_syntax_error_is_a_compile_error_with_the_compilers_message(compile_cache_dir, tmp_path, monkeypatch):
    source = bundled("3_Add")
    broken = source.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + b[i]", 1)   # drop one semicolon
    assert broken != source
    backend = HipCompileBackend(archs=("gfx90a",))
    with pytest.raises(HipCompileError) as err:
        backend.build({"kernel_code": broken}, tmp_path / "w", compile_cache_dir)
    (result,) = err.value.results
    assert result.arch == "gfx90a" and not result.compile_ok
    assert "error: expected ';'" in str(err.value)

    # A deterministic compile failure is cached: the rerun reports it without compiling.
    monkeypatch.setattr(hip_compile, "_run_compiler", lambda *a, **k: pytest.fail("compiler ran"))
    with pytest.raises(HipCompileError, match="expected ';'"):
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
    reference = make_module_factory(code, lambda *a: pytest.fail("reference must use module_fn"))
    namespace: dict = {}
    exec(code, namespace)
    ref = namespace["Model"](64, 48)
    assert set(candidate.state_dict()) == set(ref.state_dict()) == {"weight", "bias"}
    candidate.load_state_dict(ref.state_dict())
    x = torch.randn(5, 64)
    torch.testing.assert_close(candidate(x), ref(x))
    assert calls == [torch.Size([5, 64])]
    assert reference is not None


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
