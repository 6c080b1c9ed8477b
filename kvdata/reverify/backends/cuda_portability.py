"""HIP samples on NVIDIA GPUs: translate to CUDA, compile with nvcc, run like the ROCm backend.

These are portability runs (``portability = True``): they tell whether a sample's
algorithm survives the move to 32-lane warps and NVIDIA's compiler, not whether it is
correct on AMD hardware. Results must never be reported as AMD verification.

Translation is ``kvdata.reverify.hipify.translate`` (torch's hipify tables, reversed, plus
the launch/intrinsic rewrites). A translation with AMD-only builtins is rejected before
nvcc runs; wavefront-64 warnings go into the compile log so a wrong answer can be traced
to them. The extension is built with ``torch.utils.cpp_extension.load`` from a ``.cu``
file for the device's ``sm_XY`` and cached like the ROCm build (key: translated source,
arch, torch + CUDA + nvcc versions).
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

from kvdata.reverify.backends.base import Backend, BackendUnavailable, Candidate
from kvdata.reverify.backends.rocm import HOST_FLAGS, build_extension, extension_candidate
from kvdata.reverify.compile_cache import CompileCache, cache_key
from kvdata.reverify.hipify import Translation, translate
from kvdata.reverify.toolchain import find_nvcc

logger = logging.getLogger(__name__)


class HipTranslationError(RuntimeError):
    """The HIP source uses AMD-only features that have no CUDA equivalent."""


def translate_for_cuda(kernel_code: str) -> Translation:
    """Translate, and refuse what cannot compile for NVIDIA (raises ``HipTranslationError``)."""
    translation = translate(kernel_code)
    if translation.blocking:
        raise HipTranslationError("HIP→CUDA translation is not possible:\n" + translation.report())
    return translation


def nvcc_arch_flags(major: int, minor: int) -> list[str]:
    """Code for exactly this GPU (sm_90 on H100/H200), as real binary: no PTX JIT at load time."""
    return [f"-gencode=arch=compute_{major}{minor},code=sm_{major}{minor}"]


def nvcc_device_compile(cuda_source: str, workdir: Path, arch: str = "sm_90",
                        timeout_s: float = 600.0) -> tuple[bool, str]:
    """Compile a translation's device code with nvcc (``-cubin``), no GPU needed: (ok, log).

    The portability check that runs on a CPU box. Device-only, because host compilation
    of torch's headers doubles the time and is already covered on the GPU run; sources
    that include ``ATen/cuda`` or ``c10/cuda`` headers need a CUDA build of torch (the CPU
    wheel lacks ``cuda_cmake_macros.h``) and a toolkit with cuSPARSE/cuBLAS headers.
    """
    import subprocess
    import sysconfig

    from torch.utils.cpp_extension import include_paths

    nvcc = find_nvcc()
    if nvcc is None:
        raise BackendUnavailable("nvcc not found")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    src = workdir / "translated.cu"
    src.write_text(cuda_source)
    includes = [f"-I{p}" for p in [*include_paths(), sysconfig.get_paths()["include"]]]
    argv = [nvcc.path, "-cubin", "-std=c++20", "-O3", f"-arch={arch}", *includes,
            "-DTORCH_EXTENSION_NAME=kvdata_portability_ext", str(src), "-o", str(workdir / "translated.cubin")]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, cwd=workdir)
    return proc.returncode == 0, f"$ {' '.join(argv)}\n{proc.stdout}{proc.stderr}".strip()


class CudaPortabilityBackend(Backend):
    name = "cuda-portability"
    language = "hip"
    portability = True

    def __init__(self, device_index: int = 0, verbose: bool = False):
        self.device_index = device_index
        self.verbose = verbose

    def is_available(self) -> tuple[bool, str]:
        import torch

        if getattr(torch.version, "cuda", None) is None:
            return False, f"torch {torch.__version__} has no CUDA support (torch.version.cuda is None)"
        if not torch.cuda.is_available():
            return False, "CUDA torch sees no NVIDIA GPU (torch.cuda.is_available() is False)"
        if find_nvcc() is None:
            return False, "nvcc not found (set CUDA_HOME or put nvcc on PATH)"
        return True, f"portability run on {torch.cuda.get_device_name(self.device_index)} ({self.arch()})"

    def arch(self) -> str:
        import torch

        major, minor = torch.cuda.get_device_capability(self.device_index)
        return f"sm_{major}{minor}"

    def environment(self) -> dict[str, Optional[str]]:
        import torch

        ok, _ = self.is_available()
        nvcc = find_nvcc()
        return {"hardware": torch.cuda.get_device_name(self.device_index) if ok else None,
                "arch": self.arch() if ok else None, "rocm_version": None,
                "torch_version": torch.__version__, "triton_version": None,
                "compiler": nvcc.describe() if nvcc else None}

    def device_flags(self) -> list[str]:
        import torch

        return ["-O3", *nvcc_arch_flags(*torch.cuda.get_device_capability(self.device_index))]

    def toolchain(self) -> str:
        import torch

        nvcc = find_nvcc()
        return f"torch={torch.__version__};cuda={torch.version.cuda};nvcc={nvcc.version if nvcc else None}"

    def build(self, sample: dict, workdir: Path, cache_dir: Path) -> Candidate:
        ok, why = self.is_available()
        if not ok:
            raise BackendUnavailable(why)
        translation = translate_for_cuda(sample["kernel_code"])
        Path(workdir).mkdir(parents=True, exist_ok=True)
        (Path(workdir) / "translated.cu").write_text(translation.source)   # kept for inspection
        arch, flags = self.arch(), self.device_flags()
        key = cache_key(translation.source, self.name, arch, self.toolchain(), [*HOST_FLAGS, *flags])
        module, entry, hit = build_extension(CompileCache(cache_dir), key, translation.source, ".cu", HOST_FLAGS,
                                             flags, verbose=self.verbose, backend=self.name, arch=arch)
        return extension_candidate(sample, module, entry, hit,
                                   log_prefix=f"portability run (HIP translated to CUDA, {arch})\n"
                                              + translation.report())
