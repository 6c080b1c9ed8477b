"""Triton backends: any Triton GPU target (NVIDIA, ROCm) and the CPU interpreter.

``kernel_code`` defines ``class ModelNew(nn.Module)`` with ``Model``'s constructor; its
forward launches ``@triton.jit`` kernels on whatever device its tensors live on. The
backend imports that code from a file (Triton reads kernel source with ``inspect``) and
routes every launch through a kernel gate (``knockout.KernelGate``) wrapped around the launch
entry points of Triton's JIT and interpreter: the harness counts launches (a candidate that
launches nothing is flagged) and knocks them out (a candidate whose answer does not need them is).
"""
from __future__ import annotations

import functools
import platform
from pathlib import Path
from typing import Optional

from kvdata.reverify.backends.base import Backend, BackendUnavailable, Candidate
from kvdata.reverify.knockout import KNOCKOUT_MODES, KernelGate


class TritonLaunchGate(KernelGate):
    """The kernel gate over Triton's launchers, in this process.

    Wraps ``JITFunction.run`` and ``InterpretedFunction.run`` at class level (every
    ``kernel[grid](...)`` and every autotuner trial goes through them; ``warmup=True``
    compiles without launching and is neither counted nor knocked out). Installed once per
    worker process, before any candidate code is imported.
    """

    def __init__(self) -> None:
        super().__init__(KNOCKOUT_MODES)
        self._installed = False

    def install(self) -> "TritonLaunchGate":
        if self._installed:
            return self
        import triton.runtime.jit as jit

        classes = [jit.JITFunction]
        try:
            from triton.runtime.interpreter import InterpretedFunction

            classes.append(InterpretedFunction)
        except ImportError:
            pass
        for cls in classes:
            self._wrap(cls)
        self._installed = True
        return self

    def _wrap(self, cls) -> None:
        import torch

        original = cls.run
        gate = self

        def run(fn_self, *args, **kwargs):
            if kwargs.get("warmup", False):
                return original(fn_self, *args, **kwargs)
            tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
            return gate.launch(lambda: original(fn_self, *args, **kwargs), tensors)

        # Dressed as Triton's own method (name, module, docs, code object's file): a sample that
        # computes honestly only while it sees a wrapper does not see this one by those looks.
        functools.update_wrapper(run, original)
        del run.__wrapped__
        run.__code__ = run.__code__.replace(co_filename=original.__code__.co_filename, co_name=original.__name__)
        cls.run = run


_GATE = TritonLaunchGate()


def load_model_new(sample: dict, workdir: Path):
    """Import ``kernel_code`` as a module and return its ``ModelNew`` class."""
    from kvdata.reverify.harness import load_source_module

    module = load_source_module(sample["kernel_code"], Path(workdir) / "kernel_candidate.py", "kernel_candidate")
    cls = getattr(module, "ModelNew", None)
    if cls is None:
        raise AttributeError("kernel_code defines no `ModelNew` class")
    return cls


def _versions() -> dict[str, Optional[str]]:
    import torch

    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    return {"torch_version": torch.__version__, "triton_version": triton_version,
            "rocm_version": getattr(torch.version, "hip", None)}


class TritonGpuBackend(Backend):
    name = "triton-gpu"
    language = "triton"

    def is_available(self) -> tuple[bool, str]:
        try:
            import torch
            import triton  # noqa: F401
        except ImportError as e:
            return False, f"triton not importable: {e}"
        if not torch.cuda.is_available():
            return False, "no GPU visible to torch"
        return True, "ok"

    def environment(self) -> dict[str, Optional[str]]:
        import torch

        env = _versions()
        props = torch.cuda.get_device_properties(0)
        arch = getattr(props, "gcnArchName", None) if env["rocm_version"] else f"sm_{props.major}{props.minor}"
        env.update({"hardware": props.name, "arch": (arch or "").split(":")[0] or None,
                    "compiler": f"triton {env['triton_version']}"})
        return env

    def device(self) -> str:
        return "cuda"

    def build(self, sample: dict, workdir: Path, cache_dir: Path) -> Candidate:
        gate = _GATE.install()
        cls = load_model_new(sample, workdir)
        return Candidate(make_module=lambda init_inputs: cls(*init_inputs), kernel_gate=gate)


class TritonInterpreterBackend(Backend):
    name = "triton-interpreter"
    language = "triton"

    def is_available(self) -> tuple[bool, str]:
        try:
            import triton  # noqa: F401
        except ImportError as e:
            return False, f"triton not importable: {e}"
        return True, "ok"

    def environment(self) -> dict[str, Optional[str]]:
        env = _versions()
        env.update({"hardware": "cpu-interpreter", "arch": platform.machine(),
                    "compiler": f"triton-interpreter {env['triton_version']}"})
        return env

    def device(self) -> str:
        return "cpu"

    def worker_env(self) -> dict[str, str]:
        return {"TRITON_INTERPRET": "1"}

    def build(self, sample: dict, workdir: Path, cache_dir: Path) -> Candidate:
        import os

        if os.environ.get("TRITON_INTERPRET") != "1":
            raise BackendUnavailable("TRITON_INTERPRET=1 was not set before triton was imported")
        gate = _GATE.install()
        cls = load_model_new(sample, workdir)
        return Candidate(make_module=lambda init_inputs: cls(*init_inputs), kernel_gate=gate)
