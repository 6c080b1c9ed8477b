"""Compile-only HIP checks for AMD targets, on machines without an AMD GPU.

A HIP sample is a torch extension; without ROCm torch and an AMD GPU it cannot run, but
it can still be compiled for the AMD archs the corpus claims, which catches samples that
no longer build (syntax errors, removed APIs, arch-specific builtins) after a toolchain
change. Results are ``compile_ok`` / ``compile_error`` per arch, never ``correct``.

How one sample is compiled (what works on a Debian box with a CPU or CUDA torch wheel):

One clang >= 17 (``clang++-19``) runs every pass, against Debian's ROCm 5.2 headers and
device libraries (``--rocm-path``/``--rocm-device-lib-path``, ``toolchain.find_rocm``), in
the C++ standard torch's own headers demand (``toolchain.torch_cxx_standard``: C++17 for
torch 2.13, C++20 for 2.14). Debian's hipcc (clang-15) is not used: it segfaults parsing
torch's headers in C++20 mode.

1. one host pass, ``--cuda-host-only -fsyntax-only``: the host half of the translation unit
   (the torch binding, launch code) through the whole front end (parsing, overloads,
   template instantiation) against torch's headers, without x86 code generation, which
   costs most of a host compile and checks nothing a sample gets wrong. An arch is
   compile_ok only if the host pass and its device pass both succeed.
2. one device pass per arch, all passes side by side (``jobs`` at a time, default all cores):
   - archs with ROCm device libraries (gfx90a, gfx940), when clang's lld is installed:
     ``--cuda-device-only -c --no-gpu-bundle-output``: code generation and a link against the
     device libs, i.e. a loadable AMDGPU code object, an ELF ("device-object");
   - otherwise (gfx942: ROCm 5.2 has no device libraries for it; or no lld):
     ``--cuda-device-only -S``: full code generation to assembly ("device-asm"),
     ``-nogpulib`` where the arch has no device libraries.

Speed. Parsing torch/extension.h and instantiating the templates it uses is nearly all of
each pass. A sample that starts with ``#include <torch/extension.h>`` is compiled against a
precompiled header of clang's HIP wrapper + torch/extension.h, one per pass (host, each
arch; a header is valid only for the target it was built for), built with
``-fpch-instantiate-templates`` so that the header's own template instantiations are done
once, in the header, instead of in every sample. Headers are cached under the toolchain
fingerprint, the pass's flags and the mtime of torch's headers: built once per toolchain and
reused by every sample. ``prepare`` builds them, in the parent of a ``kvdata reverify`` run,
into the backend's shared cache, which confined workers read but cannot write; without
``prepare`` (or when a worker finds none there) passes compile without one. A sample with
anything before that include (a ``#define`` that could change torch's headers) is compiled
without it.
``-Xclang -fno-cxx-modules`` is needed for the header in C++20 mode: clang 19's C++20
declaration merging takes a ``__host__`` and a ``__device__`` overload (``min``, placement
``operator new`` in clang's own wrappers) for one function with two bodies and rejects the
header; torch uses no C++20 modules. ``-nogpuinc`` plus an explicit include of
``__clang_hip_runtime_wrapper.h`` puts the wrapper in the header, where clang's implicit
``-include`` would parse it a second time.

Statuses: a pass the sample breaks is ``compile_error`` (``HipCompileError``, cached so a
rerun does not recompile). A pass the toolchain breaks (the compiler crashed or could not
run, the HIP/torch headers are missing or do not compile, a flag or standard is unknown to
it) raises ``base.ToolchainError`` (status ``toolchain_error``) and is not cached: fixing the
toolchain must not need a cache purge.

Work-around, needed here and harmless on a real ROCm install:
``-DTHRUST_DEVICE_SYSTEM=4`` (THRUST_DEVICE_SYSTEM_CPP): torch's complex.h includes
``<thrust/complex.h>`` under ``__HIPCC__``; Debian's thrust is NVIDIA's, whose CUDA backend
wants ``cuda_runtime_api.h``. The CPP backend only needs the complex type.
"""
from __future__ import annotations

import functools
import logging
import os
import re
import subprocess
import sysconfig
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional, Sequence

from kvdata.reverify.backends.base import Backend, Candidate, ToolchainError
from kvdata.reverify.compile_cache import CompileCache, cache_key
from kvdata.reverify.toolchain import (Compiler, RocmInstall, compiler_for_arch, find_clang, find_rocm,
                                       toolchain_fingerprint, torch_cxx_standard, torch_versions)

logger = logging.getLogger(__name__)

DEFAULT_ARCHS = ("gfx90a", "gfx940")
EXTENSION_NAME = "kvdata_hip_ext"        # TORCH_EXTENSION_NAME seen by the sample's PYBIND11_MODULE
COMPAT_DEFINES = ("-DTHRUST_DEVICE_SYSTEM=4",)
HIP_WRAPPER = "__clang_hip_runtime_wrapper.h"
CLANG_FLAGS = ("-x", "hip", "-O3", "-fPIC", "-nogpuinc", "-Xclang", "-fno-cxx-modules")
# The precompiled header's text; a sample may use it when its first directive is torch/extension.h's include.
PCH_HEADER = f"#include <{HIP_WRAPPER}>\n#include <torch/extension.h>\n"
PCH_FILE = "torch.pch"
HEADER_CACHE_SUBDIR = "hip-pch"              # prepare() builds the precompiled headers here
HEADER_CACHE_ENV = "KVDATA_HIP_PCH_CACHE"    # ... and worker_env() tells the workers where
# A compiler that crashed or could not run, or a toolchain without its own headers: not the sample's fault.
TOOLCHAIN_MARKERS = ("PLEASE submit a bug report", "Segmentation fault", "unable to execute command",
                     "Stack dump:", "clang frontend command failed", "error: invalid value", "error: unknown argument",
                     f"'{HIP_WRAPPER}' file not found", "'hip/hip_runtime.h' file not found",
                     "'torch/extension.h' file not found", "precompiled header", "PCH file", "cannot find ROCm")


@dataclass
class ArchCompileResult:
    """How one AMD arch (or the host pass) fared for one sample."""

    arch: str
    compile_ok: bool
    compiler: Optional[str]         # "clang 19.1.7 (3~deb12u1); ROCm 5.2.21153"
    mode: str                       # "host-syntax" | "device-object" (linked code object) | "device-asm" (-S)
    log: str
    cache_hit: bool = False
    seconds: float = 0.0
    artifact: Optional[str] = None
    precompiled_header: bool = False

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


def _torch_headers_stamp() -> str:
    """mtime of torch's ATen.h: a reinstalled torch of the same version invalidates precompiled headers."""
    from torch.utils.cpp_extension import include_paths

    aten = Path(include_paths()[0]) / "ATen" / "ATen.h"
    return str(aten.stat().st_mtime_ns) if aten.exists() else "none"


def starts_with_torch_extension(source: str) -> bool:
    """True if ``#include <torch/extension.h>`` is the source's first line of code (comments aside).

    Only then is compiling against the precompiled header the same as compiling the text:
    nothing the sample defines can reach torch's headers first.
    """
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.S)
    first = next((line.strip() for line in code.splitlines() if line.strip()), "")
    return re.fullmatch(r"#\s*include\s*<torch/extension\.h>", first) is not None


def toolchain_failure(log: str, returncode: int, source: Path) -> bool:
    """The compiler was killed, or its log says the toolchain failed (crash, missing toolchain
    headers, unknown flag), not the sample.

    Diagnostics located in the sample and the source lines clang quotes are not read: a
    sample's ``#error Segmentation fault`` stays its own compile error.
    """
    if returncode < 0 or returncode >= 128:
        return True
    toolchain_lines = [line for line in log.splitlines()
                       if not line.startswith(str(source)) and not re.match(r"\s*\d*\s*\|", line)]
    return any(m in line for line in toolchain_lines for m in TOOLCHAIN_MARKERS)


def _run_compiler(argv: Sequence[str], cwd: Path, timeout_s: float) -> tuple[int, str, float]:
    """Run one compile; (returncode, log, seconds). A timeout raises (never cached)."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=timeout_s)
    except OSError as e:            # the compiler itself cannot be executed
        raise ToolchainError(f"cannot run {argv[0]}: {e}") from e
    seconds = time.perf_counter() - start
    log = (proc.stdout + proc.stderr).strip()
    return proc.returncode, f"$ {' '.join(argv)}\n{log}".strip(), seconds


@dataclass(frozen=True)
class Pass:
    """One compiler invocation of a sample: the host half, or one arch's device half."""

    name: str                      # "host" or the arch
    mode: str                      # "host-syntax" | "device-object" | "device-asm"
    action: tuple[str, ...]        # what the compiler makes: "-fsyntax-only", "-c ...", "-S"
    flags: tuple[str, ...]         # language, target and include flags, shared with its precompiled header
    output: Optional[str]          # the artifact's file name (None: a syntax check writes nothing)

    @property
    def header_flags(self) -> tuple[str, ...]:
        """The flags that build this pass's precompiled header: same language and target, a PCH out.

        The driver needs an output kind to run the front end for the right side: ``-c`` on
        the host, ``-S`` on the device (``-c`` would hand the PCH to the linker).
        """
        kind = "-c" if self.name == "host" else "-S"
        return (kind, *self.flags, "-fpch-instantiate-templates", "-Xclang", "-emit-pch")


class HipCompileBackend(Backend):
    name = "hip-compile"
    language = "hip"
    compile_only = True

    def __init__(self, archs: Sequence[str] = DEFAULT_ARCHS, timeout_s: float = 600.0,
                 jobs: Optional[int] = None):
        self.archs = tuple(archs)
        self.timeout_s = timeout_s
        self.jobs = jobs or os.cpu_count() or 1     # compiler processes run at once for one sample
        # Where the precompiled headers are: set by prepare() here, named to workers by worker_env().
        self.header_cache_dir: Optional[Path] = None

    # ------------------------------------------------------------------ parent side
    def is_available(self) -> tuple[bool, str]:
        clang = find_clang()
        if clang is None:
            return False, "no clang >= 17 found (Debian: apt-get install clang-19 lld-19); it runs every pass"
        if find_rocm(clang.path) is None:
            return False, f"{clang.path} finds no HIP installation (Debian: apt-get install hipcc)"
        missing = [a for a in self.archs if compiler_for_arch(a) is None]
        if missing:
            return False, (f"no compiler here targets {', '.join(missing)}; "
                           f"targets available: {', '.join(clang.archs)}")
        return True, "compile-only: " + ", ".join(f"{p.name} {p.mode}" for p in self._passes())

    def environment(self) -> dict[str, Optional[str]]:
        clang = find_clang()
        rocm = find_rocm(clang.path) if clang else None
        return {"hardware": "none (compile-only)", "arch": ",".join(self.archs),
                "rocm_version": rocm.hip_version if rocm else None,
                "torch_version": torch_versions()["torch_version"], "triton_version": None,
                "compiler": f"{clang.describe()} -std={torch_cxx_standard()}" if clang else None}

    def device(self) -> str:
        return "cpu"

    def prepare(self, cache_dir: Path) -> None:
        """Build every pass's precompiled header into ``cache_dir/hip-pch`` (all passes at once), for
        this backend's builds and, through ``worker_env``, the workers'. Without it nothing is precompiled.

        A toolchain that cannot build them is logged, not raised: every sample's passes then
        compile without headers and each row records the failure as ``toolchain_error``.
        """
        cache = CompileCache(Path(cache_dir) / HEADER_CACHE_SUBDIR)
        try:
            with ThreadPoolExecutor(max_workers=self.jobs) as pool:
                list(pool.map(lambda p: self._precompiled_header(cache, p), self._passes()))
        except ToolchainError as e:
            logger.warning("hip-compile: no precompiled headers: %s", e)
            return
        self.header_cache_dir = cache.root

    def worker_env(self) -> dict[str, str]:
        return {HEADER_CACHE_ENV: str(self.header_cache_dir)} if self.header_cache_dir else {}

    # ------------------------------------------------------------------ worker side
    def _toolchain(self) -> tuple[Compiler, RocmInstall]:
        clang = find_clang()
        rocm = find_rocm(clang.path) if clang else None
        if clang is None or rocm is None:
            raise ToolchainError(self.is_available()[1])
        return clang, rocm

    def _passes(self) -> list[Pass]:
        """The host pass and one device pass per arch, with their full flags."""
        clang, rocm = self._toolchain()
        includes = torch_include_flags() + [f"-DTORCH_EXTENSION_NAME={EXTENSION_NAME}", *COMPAT_DEFINES]
        common = (*CLANG_FLAGS, f"-std={torch_cxx_standard()}", *rocm.clang_flags(), *includes)
        first_arch = self.archs[0] if self.archs else "gfx90a"
        passes = [Pass("host", "host-syntax", ("-fsyntax-only",),
                       (*common, "--cuda-host-only", f"--offload-arch={first_arch}"), None)]
        for arch in self.archs:
            linked = arch in rocm.archs and clang.links_amdgpu
            nogpulib = () if arch in rocm.archs else ("-nogpulib",)
            action = ("-c", "--no-gpu-bundle-output") if linked else ("-S",)     # a bare code object, unbundled
            passes.append(Pass(arch, "device-object" if linked else "device-asm", action,
                               (*common, *nogpulib, "--cuda-device-only", f"--offload-arch={arch}"),
                               f"device-{arch}.{'o' if linked else 's'}"))
        return passes

    def build(self, sample: dict, workdir: Path, cache_dir: Path) -> Candidate:
        unknown = [a for a in self.archs if compiler_for_arch(a) is None]
        if unknown:
            raise ToolchainError(f"no compiler on this machine targets {', '.join(unknown)}")
        source = sample["kernel_code"]
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        src = workdir / f"{EXTENSION_NAME}.hip"
        src.write_text(source)
        cache = CompileCache(cache_dir)
        header_dir = self.header_cache_dir or os.environ.get(HEADER_CACHE_ENV)
        header_cache = CompileCache(header_dir) if header_dir and starts_with_torch_extension(source) else None

        # The host pass and one device pass per arch are independent: run them side by side.
        jobs = [functools.partial(self._compile_pass, cache, header_cache, source, src, p) for p in self._passes()]
        with ThreadPoolExecutor(max_workers=max(1, min(len(jobs), self.jobs))) as pool:
            host, *device = list(pool.map(lambda job: job(), jobs))
        results = [r if host.compile_ok else self._result_from_host_failure(r, host) for r in device]
        summary = "\n".join(f"{r.arch}: {'compile_ok' if r.compile_ok else 'compile_error'}"
                            f" ({r.compiler}, {r.mode}{', cache hit' if r.cache_hit else ''})" for r in results)
        log = "\n\n".join([summary, f"[host] {host.log}", *(f"[{r.arch}] {r.log}" for r in results)])
        if not all(r.compile_ok for r in results):
            raise HipCompileError(log, results)
        return HipCompileCandidate(make_module=None, compile_log=log,
                                   artifact=results[0].artifact if results else None,
                                   cache_hit=host.cache_hit and all(r.cache_hit for r in results),
                                   arch_results=[r.to_dict() for r in results])

    def _fingerprint(self) -> str:
        clang, rocm = self._toolchain()
        return f"{toolchain_fingerprint(clang)};rocm={rocm.hip_version}@{rocm.path}"

    def _invoke(self, argv: list[str], cwd: Path, source: Path) -> tuple[bool, str, float]:
        """Run one compile of ``source``: (ok, log, seconds); a toolchain failure raises ToolchainError (never cached)."""
        returncode, log, seconds = _run_compiler(argv, cwd, self.timeout_s)
        if returncode != 0 and toolchain_failure(log, returncode, source):
            raise ToolchainError(f"the toolchain failed (exit {returncode}), not the sample:\n{log[-3000:]}")
        return returncode == 0, log, seconds

    def _precompiled_header(self, cache: CompileCache, compile_pass: Pass) -> Optional[Path]:
        """The pass's precompiled header of clang's HIP wrapper + torch/extension.h, built once per toolchain.

        Keyed like a compile (toolchain fingerprint, flags) plus the mtime of torch's
        headers. The header text lives at a fixed path beside the entry, because clang
        checks at use that the header it was built from is still there, unchanged. None when
        the header is not in ``cache`` and ``cache`` cannot be written (a confined worker
        whose parent's headers are for another toolchain): the pass then compiles without it.
        """
        key = cache_key(PCH_HEADER, self.name, f"pch-{compile_pass.name}",
                        f"{self._fingerprint()};torch_headers={_torch_headers_stamp()}", compile_pass.header_flags)
        header = cache.root / "pch-headers" / f"{key}.h"
        entry = cache.lookup(key)
        if entry is not None:
            return entry.file(PCH_FILE)

        def build_header(stage: Path) -> dict:
            if not header.exists():
                header.parent.mkdir(parents=True, exist_ok=True)
                tmp = header.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(PCH_HEADER)
                os.replace(tmp, header)
            argv = [self._toolchain()[0].path, *compile_pass.header_flags, str(header), "-o", str(stage / PCH_FILE)]
            ok, log, seconds = self._invoke(argv, stage, header)
            if not ok:     # torch's own headers do not compile: no sample can, and it is not theirs to fix
                raise ToolchainError(f"torch/extension.h does not compile for the {compile_pass.name} pass:\n"
                                     f"{log[-3000:]}")
            return {"ok": True, "log": log, "seconds": seconds, "artifact": PCH_FILE}

        try:
            entry, _ = cache.get_or_build(key, build_header, backend=self.name, arch=f"pch-{compile_pass.name}")
        except PermissionError as e:
            logger.warning("no precompiled header for the %s pass (%s is read-only here: %s); compiling without",
                           compile_pass.name, cache.root, e)
            return None
        return entry.file(PCH_FILE)

    def _compile_pass(self, cache: CompileCache, header_cache: Optional[CompileCache], source: str, src: Path,
                      compile_pass: Pass) -> ArchCompileResult:
        """One pass through the cache; against the precompiled header when ``header_cache`` has or can build it."""
        clang = self._toolchain()[0]
        header = self._precompiled_header(header_cache, compile_pass) if header_cache is not None else None
        prefix = ["-include-pch", str(header)] if header else ["-include", HIP_WRAPPER]
        # The header is named in the key by what it is (built from PCH_HEADER), not by its path.
        key_flags = [*compile_pass.action, *compile_pass.flags, "precompiled-header" if header else f"-include{HIP_WRAPPER}"]
        key = cache_key(source, self.name, compile_pass.name, self._fingerprint(), key_flags)

        def compile_into(stage: Path) -> dict:
            output = ["-o", str(stage / compile_pass.output)] if compile_pass.output else []
            argv = [clang.path, *compile_pass.action, *compile_pass.flags, *prefix, str(src), *output]
            ok, log, seconds = self._invoke(argv, src.parent, src)
            return {"ok": ok, "log": log, "seconds": seconds, "artifact": compile_pass.output if ok else None,
                    "precompiled_header": header is not None}

        entry, hit = cache.get_or_build(key, compile_into, backend=self.name, arch=compile_pass.name)
        artifact = str(entry.file(entry.meta["artifact"])) if entry.meta.get("artifact") else None
        return ArchCompileResult(compile_pass.name, entry.ok, clang.describe(), compile_pass.mode,
                                 entry.meta.get("log", ""), hit, entry.meta.get("seconds", 0.0), artifact,
                                 bool(entry.meta.get("precompiled_header")))

    @staticmethod
    def _result_from_host_failure(device: ArchCompileResult, host: ArchCompileResult) -> ArchCompileResult:
        """An arch compiles only if the host half does too: fold the host failure into its result."""
        device.compile_ok = False
        device.log = "host pass failed (see [host] log)\n" + device.log
        return device
