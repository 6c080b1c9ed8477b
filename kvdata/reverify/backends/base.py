"""The Backend contract: how a sample's kernel code becomes something the harness can run.

The harness (worker side) owns inputs, seeds, checks and timing; a backend only knows
how to turn ``kernel_code`` into a candidate ``nn.Module`` on its device, and what
environment it runs in. Backends are constructed in the parent (``is_available``,
``environment``, ``worker_env``) and again inside the sandboxed worker (``build``).
"""
from __future__ import annotations

import abc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Optional


@dataclass
class Candidate:
    """What ``Backend.build`` returns.

    ``make_module(init_inputs)`` builds the candidate model with the reference's
    constructor arguments; the harness then loads ``Model``'s state_dict into it.
    ``launch_counter()`` returns how many GPU/Triton kernels the candidate has launched
    so far (None when the backend cannot tell); the harness uses it to catch
    candidates that launch nothing.
    """

    make_module: Optional[Callable[[tuple], Any]] = None
    launch_counter: Optional[Callable[[], Optional[int]]] = None
    compile_log: str = ""
    artifact: Optional[str] = None        # path of the compiled artifact, if any
    cache_hit: Optional[bool] = None      # compiled artifact came from the content-hash cache


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

    def worker_env(self) -> dict[str, str]:
        """Extra environment for the sandboxed worker (e.g. TRITON_INTERPRET=1)."""
        return {}

    @abc.abstractmethod
    def build(self, sample: dict, workdir: Path, cache_dir: Path) -> Candidate:
        """Inside the worker: compile/load ``sample['kernel_code']`` into a Candidate.

        Raise an exception for a compile error; the harness records ``compile_error``.
        """
