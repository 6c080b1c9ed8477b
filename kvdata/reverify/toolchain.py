"""Which HIP/CUDA compilers this machine has, their versions, and the GPU archs each can target.

Every re-verification result records the toolchain it was built with, and the compile
cache keys on it, so a ROCm or torch upgrade never reuses a stale artifact. Probing runs
a compiler once per process (``functools.lru_cache``).

What matters:

- a clang >= 17 (``clang++-19`` from Debian) drives every HIP pass of the hip-compile
  backend: the host pass and the device pass of each arch. It parses torch's headers in
  C++17 and C++20 mode (clang-15, under Debian's hipcc, segfaults on them in C++20 mode,
  which torch >= 2.14 requires). With ``lld`` beside it (Debian: ``lld-19``) it links
  device code objects; without, device passes stop at assembly.
- the ROCm install (``find_rocm``): Debian's ROCm 5.2 headers (``/usr/include/hip``) and its
  device libraries (bitcode per ISA: gfx90a, gfx940, not gfx942), found the way clang finds
  them, so the version recorded is the one compiled against.
- ``nvcc``: the cuda-portability backend.
- the C++ standard torch's headers demand (``torch_cxx_standard``): read from ATen.h's own
  ``#error`` guard, so a torch upgrade that raises it needs no code change here.
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

# Where Debian's rocm-device-libs puts the per-ISA bitcode a HIP device pass links against.
DEVICE_LIB_DIRS = ("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode", "/opt/rocm/amdgcn/bitcode",
                   "/opt/rocm/lib/llvm/lib/clang/*/lib/amdgcn/bitcode")
# clang drivers to try for HIP, newest first (find_clang keeps the first >= 17).
CLANG_CANDIDATES = tuple(f"clang++-{v}" for v in range(22, 16, -1)) + ("clang++",)


@dataclass(frozen=True)
class Compiler:
    """One compiler found on this machine."""

    name: str                      # "clang", "nvcc"
    path: str
    version: str                   # the compiler's own version, e.g. "19.1.7 (3~deb12u1)", "CUDA 12.4.131"
    archs: tuple[str, ...] = field(default_factory=tuple)   # offload targets it can compile for
    links_amdgpu: bool = False     # clang: its own lld is installed, so device passes can link code objects

    def describe(self) -> str:
        return f"{self.name} {self.version}"


def _run_version(argv: list[str]) -> str:
    """A probe's stdout and stderr; empty when the program cannot run or hangs."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout + "\n" + proc.stderr


def _device_lib_archs() -> tuple[str, ...]:
    """gfx targets that have an ``oclc_isa_version_*.bc`` in the installed ROCm device libraries."""
    archs = set()
    for pattern in DEVICE_LIB_DIRS:
        for d in glob.glob(pattern):
            for bc in glob.glob(os.path.join(d, "oclc_isa_version_*.bc")):
                archs.add("gfx" + os.path.basename(bc)[len("oclc_isa_version_"):-3])
    return tuple(sorted(archs))


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
        lld = os.path.join(os.path.dirname(os.path.realpath(path)), "lld")
        return Compiler("clang", path, f"{match.group(1)}.{match.group(2)}", _clang_amdgpu_archs(path),
                        links_amdgpu=os.access(lld, os.X_OK))
    return None


@dataclass(frozen=True)
class RocmInstall:
    """The ROCm headers and device libraries a clang compiles HIP against."""

    path: str                      # --rocm-path (Debian: /usr)
    hip_version: str               # "5.2.21153"
    device_lib_dir: Optional[str]  # --rocm-device-lib-path, None when no device libraries are installed
    archs: tuple[str, ...]         # archs with an oclc_isa_version_*.bc there

    def clang_flags(self) -> list[str]:
        flags = [f"--rocm-path={self.path}"]
        return flags + ([f"--rocm-device-lib-path={self.device_lib_dir}"] if self.device_lib_dir else [])


@functools.lru_cache(maxsize=None)
def find_rocm(clang_path: str) -> Optional[RocmInstall]:
    """The HIP installation ``clang_path`` detects (``Found HIP installation: /usr, version 5.2.x``)."""
    out = _run_version([clang_path, "-x", "hip", "-v", "-fsyntax-only", "--cuda-host-only", "-nogpulib",
                        "--offload-arch=gfx90a", "/dev/null"])
    match = re.search(r"Found HIP installation:\s*(\S+?),\s*version\s*(\S+)", out)
    if match is None:
        return None
    lib_dir = next((d for pattern in DEVICE_LIB_DIRS for d in sorted(glob.glob(pattern))
                    if glob.glob(os.path.join(d, "oclc_isa_version_*.bc"))), None)
    return RocmInstall(match.group(1), match.group(2), lib_dir, _device_lib_archs())


@functools.lru_cache(maxsize=None)
def torch_cxx_standard() -> str:
    """The ``-std=`` torch's headers demand: ATen.h stops with ``#error`` when ``__cplusplus < YYYYMML``.

    torch 2.13 guards with 201703L (C++17), torch 2.14 with 202002L (C++20). Compiling with
    the standard the headers themselves name is what torch declares it supports; headers
    without the guard get C++17.
    """
    from torch.utils.cpp_extension import include_paths

    for include in include_paths():
        aten = os.path.join(include, "ATen", "ATen.h")
        if os.path.exists(aten):
            with open(aten) as fh:
                match = re.search(r"__cplusplus\s*<\s*(\d{4})(\d{2})L", fh.read())
            if match:
                return f"c++{match.group(1)[2:]}"
    return "c++17"


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
    """The compiler for an AMD ``arch``: the newest clang (>= 17), if it knows the arch."""
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
