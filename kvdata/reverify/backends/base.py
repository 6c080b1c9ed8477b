"""The Backend contract: how a sample's kernel code becomes something the harness can run.

The harness (worker side) owns inputs, seeds, checks and timing; a backend only knows
how to turn ``kernel_code`` into a candidate ``nn.Module`` on its device, and what
environment it runs in. Backends are constructed in the parent (``is_available``,
``environment``, ``prepare``, ``worker_env``) and again inside the sandboxed worker (``build``).
"""
from __future__ import annotations

import abc
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar, Optional


@dataclass
class Candidate:
    """What ``Backend.build`` returns.

    ``make_module(init_inputs)`` builds the candidate model with the reference's
    constructor arguments; the harness then loads ``Model``'s state_dict into it.
    ``kernel_gate`` (a ``knockout.KernelGate``) is what the candidate's launches pass
    through: its ``count`` catches candidates that launch nothing, and the knockout
    rounds disable the launches through it. None when the backend has none (compile-only).
    """

    make_module: Optional[Callable[[tuple], Any]] = None
    kernel_gate: Optional[Any] = None
    compile_log: str = ""
    artifact: Optional[str] = None        # path of the compiled artifact, if any
    cache_hit: Optional[bool] = None      # compiled artifact came from the content-hash cache


class ToolchainError(RuntimeError):
    """The toolchain, not the sample, failed: a compiler crash or internal compiler error, a
    compiler that cannot run, its own headers missing, a flag or C++ standard it does not know.

    ``Backend.build`` raises it (this exact class: the harness records only the type's name)
    and the harness records status ``toolchain_error``, never the sample's ``compile_error``:
    the sample was not judged. Backends do not cache it, so a fixed toolchain recompiles.
    """


class BackendUnavailable(RuntimeError):
    """Raised when a backend cannot run on this machine; the message says why."""


class Backend(abc.ABC):
    name: ClassVar[str]                  # "triton-gpu", "triton-interpreter", "rocm", "hip-compile", "cuda-portability"
    language: ClassVar[str]              # "triton" | "hip"
    compile_only: ClassVar[bool] = False   # True: build, record compile_ok, never run
    portability: ClassVar[bool] = False    # True: not an AMD verification (e.g. HIP run on NVIDIA)

    @abc.abstractmethod
    def is_available(self) -> tuple[bool, str]:
        """(usable here?, reason) — checked in the parent before any worker starts."""

    @abc.abstractmethod
    def environment(self) -> dict[str, Optional[str]]:
        """hardware, arch, rocm_version, torch_version, triton_version, compiler (schema.Verification names)."""

    def device(self) -> str:
        """torch device string the harness allocates inputs on ("cuda" also covers ROCm)."""
        return "cuda"

    def prepare(self, cache_dir: Path) -> None:
        """In the parent, once, before any worker starts: build what every sample shares (hip-compile's
        precompiled headers) into ``cache_dir``, which workers can read but, once confined, not write.

        Call it before ``worker_env``, which may point workers at what it built.
        """

    def worker_env(self) -> dict[str, str]:
        """Extra environment for the sandboxed worker (e.g. TRITON_INTERPRET=1)."""
        return {}

    @abc.abstractmethod
    def build(self, sample: dict, workdir: Path, cache_dir: Path) -> Candidate:
        """Inside the worker: compile/load ``sample['kernel_code']`` into a Candidate.

        Raise an exception for a compile error; the harness records ``compile_error``.
        Raise ``ToolchainError`` when the toolchain failed; the harness records ``toolchain_error``.
        """
