"""Backend registry: names map to ``module:Class`` and are imported only when asked for.

Lazy imports keep ``kvdata --help`` fast and let a backend whose toolchain is missing
(no hipcc, no GPU) fail only when someone actually picks it.
"""
from __future__ import annotations

import importlib
import shutil
from typing import Optional

from kvdata.reverify.backends.base import Backend, BackendUnavailable, Candidate  # noqa: F401

BACKENDS: dict[str, str] = {
    "triton-gpu": "kvdata.reverify.backends.triton:TritonGpuBackend",
    "triton-interpreter": "kvdata.reverify.backends.triton:TritonInterpreterBackend",
    "rocm": "kvdata.reverify.backends.rocm:RocmBackend",
    "hip-compile": "kvdata.reverify.backends.hip_compile:HipCompileBackend",
    "cuda-portability": "kvdata.reverify.backends.cuda_portability:CudaPortabilityBackend",
}


def backend_class(name: str) -> type[Backend]:
    if name not in BACKENDS:
        raise BackendUnavailable(f"unknown backend {name!r}; expected one of {', '.join(BACKENDS)}")
    module, cls = BACKENDS[name].split(":")
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as e:
        raise BackendUnavailable(f"backend {name!r} cannot be loaded: {e}") from e


def create_backend(name: str) -> Backend:
    return backend_class(name)()


def _gpu_present() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:  # noqa: BLE001 - a broken driver means no GPU
        return False


def default_backend(language: str) -> str:
    """The backend a sample of ``language`` gets on this machine when none is asked for.

    triton: the GPU when torch sees one (NVIDIA or ROCm), else the CPU interpreter.
    hip: ROCm when torch is a ROCm build with a GPU; else a CUDA portability run on an
    NVIDIA GPU with nvcc; else compile-only with hipcc.
    """
    language = language.lower()
    if language == "triton":
        return "triton-gpu" if _gpu_present() else "triton-interpreter"
    if language == "hip":
        import torch

        if getattr(torch.version, "hip", None) and _gpu_present():
            return "rocm"
        if getattr(torch.version, "cuda", None) and _gpu_present() and shutil.which("nvcc"):
            return "cuda-portability"
        return "hip-compile"
    raise BackendUnavailable(f"no backend for language {language!r}")


def resolve_backend(language: str, requested: Optional[str] = None) -> str:
    """``requested`` if it serves ``language``, else the default for ``language``."""
    if requested:
        cls = backend_class(requested)
        if cls.language != language.lower():
            raise BackendUnavailable(f"backend {requested!r} runs {cls.language} samples, not {language}")
        return requested
    return default_backend(language)
