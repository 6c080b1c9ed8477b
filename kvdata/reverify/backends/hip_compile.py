"""Compile-only HIP checks for AMD targets, on machines without an AMD GPU.

A HIP sample is a torch extension; without ROCm torch and an AMD GPU it cannot run, but
it can still be compiled for the AMD archs the corpus claims, which catches samples that
no longer build (syntax errors, removed APIs, arch-specific builtins) after a toolchain
change. Results are ``compile_ok`` / ``compile_error`` per arch, never ``correct``.

How one sample is compiled (what works on a Debian box with the CPU torch wheel):

1. one host pass — ``hipcc --cuda-host-only`` — checks the host half of the translation
   unit (the torch binding, launch code) against torch's headers. An arch is compile_ok
   only if the host pass and its device pass both succeed.
2. one device pass per arch (run in parallel with the host pass, ``jobs`` at a time):
   - archs with ROCm device libraries (gfx90a, gfx940 with Debian's ROCm 5.2):
     ``hipcc --cuda-device-only -c``: code generation and a link against the device libs,
     i.e. a loadable code object;
   - archs only a newer clang knows (gfx942 with clang-19): ``clang++ -x hip
     --cuda-device-only -S -nogpulib``: full code generation to assembly, without the
     device libraries (ROCm 5.2 ships none for gfx942) and without lld.

Work-arounds, each needed here and harmless on a real ROCm install:
- ``-DTHRUST_DEVICE_SYSTEM=4`` (THRUST_DEVICE_SYSTEM_CPP): torch's complex.h includes
  ``<thrust/complex.h>`` under ``__HIPCC__``; Debian's thrust is NVIDIA's, whose CUDA
  backend wants ``cuda_runtime_api.h``. The CPP backend only needs the complex type.
- ``-std=c++17`` for hipcc: clang-15 crashes (segfault) parsing torch 2.13's headers in
  C++20 mode; in C++17 they parse with two extension warnings. clang-19 uses C++20, as
  torch's own cpp_extension does.
- ``--offload-arch`` is passed to the host pass too: without it hipcc runs
  ``rocm_agent_enumerator``, which fails noisily without ``/sys/class/kfd``.
"""
from __future__ import annotations

import functools
import logging
import os
import subprocess
import sysconfig
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional, Sequence

from kvdata.reverify.backends.base import Backend, Candidate
from kvdata.reverify.compile_cache import CompileCache, cache_key
from kvdata.reverify.toolchain import (Compiler, compiler_for_arch, find_clang, find_hipcc, hip_env,
                                       toolchain_fingerprint, torch_versions)

logger = logging.getLogger(__name__)

DEFAULT_ARCHS = ("gfx90a", "gfx940")
EXTENSION_NAME = "kvdata_hip_ext"        # TORCH_EXTENSION_NAME seen by the sample's PYBIND11_MODULE
COMPAT_DEFINES = ("-DTHRUST_DEVICE_SYSTEM=4",)
HIPCC_FLAGS = ("-O3", "-fPIC", "-std=c++17", "-Wno-c++20-extensions")
CLANG_FLAGS = ("-x", "hip", "-O3", "-fPIC", "-std=c++20", "-nogpulib")
ICE_MARKERS = ("PLEASE submit a bug report", "Segmentation fault", "unable to execute command",
               "Stack dump:")


@dataclass
class ArchCompileResult:
    """How one AMD arch fared for one sample."""

    arch: str
    compile_ok: bool
    compiler: Optional[str]         # "hipcc HIP 5.2.21153-0 (clang 15.0.6)", "clang 19.1.7 ..."
    mode: str                       # "device-object" (hipcc, linked device libs) | "device-asm" (clang -S)
    log: str
    cache_hit: bool = False
    seconds: float = 0.0
    artifact: Optional[str] = None

    def to_dict(self) -> dict:
        return asdict(self)


class HipCompileError(RuntimeError):
    """At least one requested arch failed to compile; ``results`` holds every arch's outcome."""

    def __init__(self, message: str, results: list[ArchCompileResult]):
        super().__init__(message)
        self.results = results


@dataclass
class HipCompileCandidate(Candidate):
    """A compile-only candidate: nothing to run, one result per arch."""

    arch_results: Optional[list] = None


def torch_include_flags() -> list[str]:
    """-I flags for torch's C++ headers and Python's, as cpp_extension would pass them."""
    from torch.utils.cpp_extension import include_paths

    return [f"-I{p}" for p in [*include_paths(), sysconfig.get_paths()["include"]]]


def _strip_noise(log: str) -> str:
    """Drop hipcc's rocm_agent_enumerator traceback (no /sys/class/kfd here) from compiler logs."""
    lines, skipping = [], False
    for line in log.splitlines():
        if line.startswith("Traceback") and not skipping:
            skipping = True
            continue
        if skipping:
            if line.startswith(("  ", "FileNotFoundError", "PermissionError")):
                continue
            skipping = False
        lines.append(line)
    return "\n".join(lines)


def _run_compiler(argv: Sequence[str], cwd: Path, timeout_s: float) -> tuple[bool, str, float]:
    """Run one compile; (succeeded, log, seconds). A timeout raises (never cached)."""
    start = time.perf_counter()
    proc = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=timeout_s,
                          env={**os.environ, **hip_env()})
    seconds = time.perf_counter() - start
    log = _strip_noise(proc.stdout + proc.stderr).strip()
    return proc.returncode == 0, f"$ {' '.join(argv)}\n{log}".strip(), seconds


class HipCompileBackend(Backend):
    name = "hip-compile"
    language = "hip"
    compile_only = True

    def __init__(self, archs: Sequence[str] = DEFAULT_ARCHS, timeout_s: float = 600.0,
                 jobs: Optional[int] = None):
        self.archs = tuple(archs)
        self.timeout_s = timeout_s
        self.jobs = jobs or os.cpu_count() or 1     # compiler processes run at once for one sample

    # ------------------------------------------------------------------ parent side
    def is_available(self) -> tuple[bool, str]:
        if find_hipcc() is None:
            return False, "hipcc not found (Debian: apt-get install hipcc); it also runs the host pass"
        missing = [a for a in self.archs if compiler_for_arch(a) is None]
        if missing:
            known = sorted(set(find_hipcc().archs) | set(find_clang().archs if find_clang() else ()))
            return False, (f"no compiler here targets {', '.join(missing)} (hipcc covers its ROCm device "
                           f"libraries; gfx942 needs clang >= 17, e.g. apt-get install clang-19); "
                           f"targets available: {', '.join(known)}")
        return True, "compile-only: " + ", ".join(f"{a} via {compiler_for_arch(a).name}" for a in self.archs)

    def environment(self) -> dict[str, Optional[str]]:
        hipcc = find_hipcc()
        compilers = {c.describe() for c in (compiler_for_arch(a) for a in self.archs) if c is not None}
        return {"hardware": "none (compile-only)", "arch": ",".join(self.archs),
                "rocm_version": hipcc.version.split()[1] if hipcc else None,   # "HIP 5.2.x (clang ..)"
                "torch_version": torch_versions()["torch_version"], "triton_version": None,
                "compiler": "; ".join(sorted(compilers)) or None}

    def device(self) -> str:
        return "cpu"

    def worker_env(self) -> dict[str, str]:
        return hip_env()

    # ------------------------------------------------------------------ worker side
    def build(self, sample: dict, workdir: Path, cache_dir: Path) -> Candidate:
        source = sample["kernel_code"]
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        src = workdir / f"{EXTENSION_NAME}.hip"
        src.write_text(source)
        cache = CompileCache(cache_dir)
        includes = torch_include_flags() + [f"-DTORCH_EXTENSION_NAME={EXTENSION_NAME}", *COMPAT_DEFINES]

        # The host pass and one device pass per arch are independent: run them side by side.
        jobs = [lambda: self._compile_host(cache, source, src, includes)]
        jobs += [functools.partial(self._compile_device, cache, source, src, includes, a) for a in self.archs]
        with ThreadPoolExecutor(max_workers=max(1, min(len(jobs), self.jobs))) as pool:
            host, *device = list(pool.map(lambda job: job(), jobs))
        results = [r if host.compile_ok else self._result_from_host_failure(r, host) for r in device]
        summary = "\n".join(f"{r.arch}: {'compile_ok' if r.compile_ok else 'compile_error'}"
                            f" ({r.compiler}, {r.mode}{', cache hit' if r.cache_hit else ''})" for r in results)
        log = "\n\n".join([summary, f"[host] {host.log}", *(f"[{r.arch}] {r.log}" for r in results)])
        if not all(r.compile_ok for r in results):
            raise HipCompileError(log, results)
        return HipCompileCandidate(make_module=None, launch_counter=None, compile_log=log,
                                   artifact=results[0].artifact if results else None,
                                   cache_hit=host.cache_hit and all(r.cache_hit for r in results),
                                   arch_results=[r.to_dict() for r in results])

    def _cached_compile(self, cache: CompileCache, source: str, compiler: Compiler, pass_name: str,
                        flags: list[str], src: Path, out_name: str) -> ArchCompileResult:
        key = cache_key(source, self.name, pass_name, toolchain_fingerprint(compiler), flags)

        def compile_into(stage: Path) -> dict:
            argv = [compiler.path, *flags, str(src), "-o", str(stage / out_name)]
            ok, log, seconds = _run_compiler(argv, src.parent, self.timeout_s)
            crashed = any(m in log for m in ICE_MARKERS)
            return {"ok": ok, "log": log, "seconds": seconds, "compiler_crash": crashed,
                    "artifact": out_name if ok else None}

        entry, hit = cache.get_or_build(key, compile_into, backend=self.name, arch=pass_name)
        artifact = str(entry.file(entry.meta["artifact"])) if entry.meta.get("artifact") else None
        return ArchCompileResult(pass_name, entry.ok, compiler.describe(),
                                 "device-object" if compiler.name == "hipcc" else "device-asm",
                                 entry.meta.get("log", ""), hit, entry.meta.get("seconds", 0.0), artifact)

    def _compile_host(self, cache: CompileCache, source: str, src: Path, includes: list[str]) -> ArchCompileResult:
        hipcc = find_hipcc()
        if hipcc is None:
            raise RuntimeError("hipcc not found: the host pass needs it")
        arch = next((a for a in self.archs if a in hipcc.archs), hipcc.archs[0] if hipcc.archs else "gfx90a")
        flags = ["-c", *HIPCC_FLAGS, "--cuda-host-only", f"--offload-arch={arch}", *includes]
        result = self._cached_compile(cache, source, hipcc, "host", flags, src, "host.o")
        result.mode = "host-object"
        return result

    def _compile_device(self, cache: CompileCache, source: str, src: Path, includes: list[str],
                        arch: str) -> ArchCompileResult:
        compiler = compiler_for_arch(arch)
        if compiler is None:
            return ArchCompileResult(arch, False, None, "none", f"no compiler on this machine targets {arch}")
        if compiler.name == "hipcc":
            flags = ["-c", *HIPCC_FLAGS, "--cuda-device-only", f"--offload-arch={arch}", *includes]
            return self._cached_compile(cache, source, compiler, arch, flags, src, f"device-{arch}.o")
        flags = [*CLANG_FLAGS, "--cuda-device-only", "-S", f"--offload-arch={arch}", *includes]
        return self._cached_compile(cache, source, compiler, arch, flags, src, f"device-{arch}.s")

    @staticmethod
    def _result_from_host_failure(device: ArchCompileResult, host: ArchCompileResult) -> ArchCompileResult:
        """An arch compiles only if the host half does too: fold the host failure into its result."""
        device.compile_ok = False
        device.log = "host pass failed (see [host] log)\n" + device.log
        return device
