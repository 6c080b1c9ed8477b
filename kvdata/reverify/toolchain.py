"""Which HIP/CUDA compilers this machine has, their versions, and the GPU archs each can target.

Every re-verification result records the toolchain it was built with, and the compile
cache keys on it, so a ROCm or torch upgrade never reuses a stale artifact. Probing runs
a compiler once per process (``functools.lru_cache``): ``hipcc --version`` alone takes
about a second because it calls ``rocm_agent_enumerator``.

Three compilers matter:

- ``hipcc`` (Debian ships ROCm 5.2's, a Perl driver over clang-15): full host+device HIP
  compiles for the archs its device libraries cover (gfx90a, gfx940 here). It needs
  ``HIP_PLATFORM=amd``, otherwise it silently switches to nvcc.
- a newer clang (``clang++-19`` from Debian): knows gfx942, for which ROCm 5.2 has no device
  libraries, so it is used for device-only code generation with ``-nogpulib``.
- ``nvcc``: the cuda-portability backend.
"""
from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Optional

# Where Debian's rocm-device-libs puts the per-ISA bitcode hipcc links against.
DEVICE_LIB_DIRS = ("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode", "/opt/rocm/amdgcn/bitcode",
                   "/opt/rocm/lib/llvm/lib/clang/*/lib/amdgcn/bitcode")
# Newer clang drivers to try for AMD archs the system hipcc does not cover, newest first.
CLANG_CANDIDATES = tuple(f"clang++-{v}" for v in range(22, 16, -1)) + ("clang++",)


@dataclass(frozen=True)
class Compiler:
    """One compiler found on this machine."""

    name: str                      # "hipcc", "clang", "nvcc"
    path: str
    version: str                   # the compiler's own version line, e.g. "HIP 5.2.21153-0 (clang 15.0.6)"
    archs: tuple[str, ...] = field(default_factory=tuple)   # offload targets it can compile for

    def describe(self) -> str:
        return f"{self.name} {self.version}"


def _run_version(argv: list[str], env: Optional[dict] = None) -> str:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                              env={**os.environ, **(env or {})})
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout + "\n" + proc.stderr


def hip_env() -> dict[str, str]:
    """Environment hipcc needs to target AMD GPUs rather than falling back to nvcc."""
    return {"HIP_PLATFORM": "amd"}


def _device_lib_archs() -> tuple[str, ...]:
    """gfx targets that have an ``oclc_isa_version_*.bc`` in the installed ROCm device libraries."""
    archs = set()
    for pattern in DEVICE_LIB_DIRS:
        for d in glob.glob(pattern):
            for bc in glob.glob(os.path.join(d, "oclc_isa_version_*.bc")):
                archs.add("gfx" + os.path.basename(bc)[len("oclc_isa_version_"):-3])
    return tuple(sorted(archs))


@functools.lru_cache(maxsize=None)
def find_hipcc() -> Optional[Compiler]:
    path = shutil.which("hipcc")
    if path is None:
        return None
    out = _run_version([path, "--version"], env=hip_env())
    hip = re.search(r"HIP version:\s*(\S+)", out)
    clang = re.search(r"clang version\s*(\S+)", out)
    if hip is None:
        return None
    version = f"HIP {hip.group(1)}" + (f" (clang {clang.group(1)})" if clang else "")
    return Compiler("hipcc", path, version, _device_lib_archs())


def _clang_amdgpu_archs(path: str) -> tuple[str, ...]:
    out = _run_version([path, "--target=amdgcn-amd-amdhsa", "-nogpulib", "-mcpu=help",
                        "-x", "c", "/dev/null", "-c", "-o", "/dev/null"])
    return tuple(sorted(set(re.findall(r"\b(gfx\d+[a-z]?)\b", out))))


@functools.lru_cache(maxsize=None)
def find_clang(min_major: int = 17) -> Optional[Compiler]:
    """The newest clang (>= ``min_major``, the first with gfx942) on PATH, with its AMD targets."""
    for candidate in CLANG_CANDIDATES:
        path = shutil.which(candidate)
        if path is None:
            continue
        match = re.search(r"clang version\s*(\d+)\.(\S+)", _run_version([path, "--version"]))
        if match is None or int(match.group(1)) < min_major:
            continue
        return Compiler("clang", path, f"{match.group(1)}.{match.group(2)}", _clang_amdgpu_archs(path))
    return None


@functools.lru_cache(maxsize=None)
def find_nvcc() -> Optional[Compiler]:
    path = shutil.which("nvcc")
    if path is None:
        for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
            if home and os.path.exists(os.path.join(home, "bin", "nvcc")):
                path = os.path.join(home, "bin", "nvcc")
                break
    if path is None:
        return None
    match = re.search(r"release\s+([\d.]+),\s*V([\d.]+)", _run_version([path, "--version"]))
    if match is None:
        return None
    return Compiler("nvcc", path, f"CUDA {match.group(2)}")


def compiler_for_arch(arch: str) -> Optional[Compiler]:
    """The compiler that builds the most complete code for an AMD ``arch``.

    hipcc first (host + device, linked against the device libraries); the newer clang
    for archs hipcc's ROCm does not know (device code generation only).
    """
    hipcc = find_hipcc()
    if hipcc is not None and arch in hipcc.archs:
        return hipcc
    clang = find_clang()
    if clang is not None and arch in clang.archs:
        return clang
    return None


@functools.lru_cache(maxsize=None)
def torch_versions() -> dict[str, Optional[str]]:
    """torch, and the HIP/CUDA runtime it was built for (None on a CPU wheel)."""
    import torch

    return {"torch_version": torch.__version__,
            "rocm_version": getattr(torch.version, "hip", None),
            "cuda_version": getattr(torch.version, "cuda", None)}


def toolchain_fingerprint(*compilers: Optional[Compiler]) -> str:
    """One string naming every version a compiled artifact depends on (part of the cache key)."""
    versions = torch_versions()
    parts = [f"torch={versions['torch_version']}", f"hip={versions['rocm_version']}",
             f"cuda={versions['cuda_version']}"]
    parts += [c.describe() for c in compilers if c is not None]
    return ";".join(parts)
