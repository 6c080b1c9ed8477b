"""The reference backend: build a HIP torch extension with ROCm torch and run it on an AMD GPU.

Sample convention: ``kernel_code`` is a torch extension whose ``PYBIND11_MODULE`` binds
``forward``; it replaces ``module_fn`` in ``pytorch_functional_code``, whose
``Model.forward(self, *args, fn=module_fn)`` calls ``fn(*args, <its parameters>)``.

What ``make_module(init_inputs)`` returns: the functional ``Model(*init_inputs)`` itself,
with its ``forward`` bound to pass ``fn=<extension forward>``. Being the functional model,
it has exactly its parameter names, so the harness can load the reference ``Model``'s
state_dict into it; the extension only sees tensors the model hands it.

Launch counting: a HIP extension's kernels launch from C++, out of Python's sight. The
The extension's ``forward`` is called through a kernel gate (``knockout.KernelGate``), which
counts its calls and, in the knockout round, poisons what it returns: that proves the
extension's results matter, not that it launched a kernel of its own (it could call
``torch::matmul`` and return). Counting device kernels needs a profiler (rocprof/kineto),
too slow to keep on during timed runs; this is documented, not hidden.

Builds go through ``torch.utils.cpp_extension.load`` into a compile-cache entry keyed by
source, arch (``gcnArchName``, e.g. gfx942) and toolchain (ROCm, torch, compiler), so a
rerun loads the cached ``.so`` without invoking ninja or hipcc. The source is written as
``.hip``: it already is HIP, and under ROCm torch compiles ``.hip`` with hipcc directly,
whereas a ``.cu`` would first go through torch's hipify into a renamed copy.

The helpers that do not depend on the GPU vendor (loading the functional model, binding
the extension, the cached extension build) live here and are reused by the
cuda-portability backend.
"""
from __future__ import annotations

import functools
import importlib.util
import logging
import os
import sys
import types
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from kvdata.reverify.backends.base import Backend, BackendUnavailable, Candidate
from kvdata.reverify.compile_cache import CacheEntry, CompileCache, cache_key
from kvdata.reverify.knockout import KernelGate

logger = logging.getLogger(__name__)

HOST_FLAGS = ("-O3",)


# ---------------------------------------------------------------------------- the functional model
def load_functional_module(functional_code: str, name: str = "kvdata_functional_ref") -> types.ModuleType:
    """Execute ``pytorch_functional_code`` as a fresh module (inside the sandboxed worker)."""
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    exec(compile(functional_code, module.__file__, "exec"), module.__dict__)
    if not isinstance(module.__dict__.get("Model"), type):
        raise ValueError("pytorch_functional_code defines no class Model")
    return module


class GatedExtensionCall:
    """The extension's ``forward`` behind a kernel gate: every call is counted, and in a
    knockout round its results are poisoned (``knockout.KernelGate.call``)."""

    def __init__(self, fn: Callable, gate: KernelGate):
        self.fn = fn
        self.gate = gate
        functools.update_wrapper(self, fn, updated=())

    def __call__(self, *args, **kwargs):
        return self.gate.call(self.fn, args, kwargs)


def bind_extension(model: Any, ext_forward: Callable) -> Any:
    """Make ``model(*inputs)`` run ``Model.forward(model, *inputs, fn=ext_forward)``.

    Setting ``forward`` on the instance (not a wrapper module) keeps the parameter names,
    hence the state_dict, identical to the functional model's.
    """
    object.__setattr__(model, "forward", functools.partial(type(model).forward, model, fn=ext_forward))
    return model


def make_module_factory(functional_code: str, ext_forward: Callable) -> Callable[[tuple], Any]:
    module = load_functional_module(functional_code)

    def make_module(init_inputs: Sequence = ()) -> Any:
        return bind_extension(module.Model(*init_inputs), ext_forward)
    return make_module


# ---------------------------------------------------------------------------- cached extension build
def extension_name(key: str) -> str:
    """A module name unique to the content: two extensions in one process must not share one."""
    return f"kvdata_ext_{key[:16]}"


def _find_shared_object(directory: Path, name: str) -> Optional[Path]:
    for suffix in (".so", ".pyd"):
        path = directory / f"{name}{suffix}"
        if path.exists():
            return path
    return None


def import_extension(so_path: Path, name: str) -> types.ModuleType:
    """Import a built extension from its .so without any build step (the cache-hit path)."""
    if name in sys.modules:
        return sys.modules[name]
    import torch  # noqa: F401  (the .so links against libtorch; load it first)

    spec = importlib.util.spec_from_file_location(name, so_path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load extension {so_path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module


class ExtensionBuildError(RuntimeError):
    """The compiler rejected the extension; the message carries its log."""


def build_extension(cache: CompileCache, key: str, source: str, suffix: str, cflags: Sequence[str],
                    device_flags: Sequence[str], verbose: bool = False, **info) -> tuple[types.ModuleType, CacheEntry, bool]:
    """Compile ``source`` with torch's cpp_extension into the cache entry for ``key``; import it.

    Returns (extension module, cache entry, cache hit). A compile failure is cached
    (same source + toolchain fails the same way) and raised as ``ExtensionBuildError``.
    """
    name = extension_name(key)
    loaded: dict[str, types.ModuleType] = {}

    def compile_into(stage: Path) -> dict:
        from torch.utils.cpp_extension import load

        src = stage / f"{name}{suffix}"
        src.write_text(source)
        try:
            loaded["module"] = load(name=name, sources=[str(src)], extra_cflags=list(cflags),
                                    extra_cuda_cflags=list(device_flags), build_directory=str(stage),
                                    verbose=verbose, with_cuda=True)
        except RuntimeError as exc:      # cpp_extension puts ninja's output (the compiler log) in the message
            return {"ok": False, "log": str(exc)}
        so = _find_shared_object(stage, name)
        return {"ok": so is not None, "so": so.name if so else None, "log": "built with torch.utils.cpp_extension"}

    entry, hit = cache.get_or_build(key, compile_into, **info)
    if not entry.ok:
        raise ExtensionBuildError(entry.meta.get("log", "extension build failed"))
    module = loaded.get("module") or import_extension(entry.file(entry.meta["so"]), name)
    return module, entry, hit


def extension_candidate(sample: dict, module: types.ModuleType, entry: CacheEntry, hit: bool,
                        log_prefix: str = "") -> Candidate:
    """The Candidate for a built extension: functional Model + gated ``ext.forward``."""
    if not hasattr(module, "forward"):
        raise AttributeError("the extension's PYBIND11_MODULE binds no 'forward'")
    gate = KernelGate(modes=("poison", "zero", "raise", "perturb"))   # kernels launch from C++: never skipped
    make_module = make_module_factory(sample["pytorch_functional_code"], GatedExtensionCall(module.forward, gate))
    log = (log_prefix + "\n" if log_prefix else "") + entry.meta.get("log", "")
    return Candidate(make_module=make_module, kernel_gate=gate, compile_log=log.strip(),
                     artifact=str(entry.file(entry.meta["so"])), cache_hit=hit)


# ---------------------------------------------------------------------------- the backend
def _amd_arch(props: Any) -> str:
    """'gfx942:sramecc+:xnack-' → 'gfx942' (the feature suffix is not an offload-arch value)."""
    return str(getattr(props, "gcnArchName", "")).split(":")[0]


class RocmBackend(Backend):
    name = "rocm"
    language = "hip"

    def __init__(self, device_index: int = 0, verbose: bool = False):
        self.device_index = device_index
        self.verbose = verbose

    def is_available(self) -> tuple[bool, str]:
        import torch

        if getattr(torch.version, "hip", None) is None:
            build = f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU-only"
            return False, f"torch {torch.__version__} is a {build} build, not ROCm (torch.version.hip is None)"
        if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
            return False, "ROCm torch sees no AMD GPU (torch.cuda.is_available() is False)"
        arch = self.arch()
        if not arch.startswith("gfx"):
            return False, f"device 0 reports no gfx arch ({arch!r})"
        return True, f"{torch.cuda.get_device_name(self.device_index)} ({arch}), ROCm {torch.version.hip}"

    def arch(self) -> str:
        import torch

        return _amd_arch(torch.cuda.get_device_properties(self.device_index))

    def environment(self) -> dict[str, Optional[str]]:
        import torch

        ok, _ = self.is_available()
        hipcc = _hipcc_version()
        return {"hardware": torch.cuda.get_device_name(self.device_index) if ok else None,
                "arch": self.arch() if ok else None,
                "rocm_version": getattr(torch.version, "hip", None), "torch_version": torch.__version__,
                "triton_version": None, "compiler": hipcc}

    def device_flags(self, arch: str) -> list[str]:
        """hipcc flags: optimise, and only the device's arch (torch would otherwise build every arch it knows)."""
        return ["-O3", f"--offload-arch={arch}"]

    def toolchain(self) -> str:
        import torch

        return f"torch={torch.__version__};rocm={torch.version.hip};compiler={_hipcc_version()}"

    def cache_key(self, source: str, arch: str) -> str:
        return cache_key(source, self.name, arch, self.toolchain(), [*HOST_FLAGS, *self.device_flags(arch)])

    def build(self, sample: dict, workdir: Path, cache_dir: Path) -> Candidate:
        ok, why = self.is_available()
        if not ok:
            raise BackendUnavailable(why)
        arch = self.arch()
        source = sample["kernel_code"]
        cache = CompileCache(cache_dir)
        os.environ.setdefault("PYTORCH_ROCM_ARCH", arch)
        module, entry, hit = build_extension(cache, self.cache_key(source, arch), source, ".hip", HOST_FLAGS,
                                             self.device_flags(arch), verbose=self.verbose,
                                             backend=self.name, arch=arch)
        return extension_candidate(sample, module, entry, hit, log_prefix=f"rocm {arch}")


@functools.lru_cache(maxsize=1)
def _hipcc_version() -> Optional[str]:
    """The hipcc that ROCm torch's cpp_extension uses (ROCM_HOME/bin/hipcc), else the one on PATH."""
    import shutil
    import subprocess

    rocm_home = os.environ.get("ROCM_HOME") or os.environ.get("ROCM_PATH") or "/opt/rocm"
    hipcc = os.path.join(rocm_home, "bin", "hipcc")
    if not os.path.exists(hipcc):
        hipcc = shutil.which("hipcc")
    if hipcc is None:
        return None
    try:
        out = subprocess.run([hipcc, "--version"], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "HIP_PLATFORM": "amd"}).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.splitlines():
        if line.startswith("HIP version"):
            return "hipcc " + line.split(":", 1)[1].strip()
    return None
