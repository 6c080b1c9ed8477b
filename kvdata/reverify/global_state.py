"""Process-wide torch state a candidate may not change: global module hooks and backend settings.

Runs inside the sample's process. The public catalogs slow or bend what runs beside the candidate through state
every module shares: a global ``nn.Module`` forward pre-hook that sleeps before every other module (a reference
timed in the same process looks slower), ``torch.backends.cudnn.enabled = False`` at import (a reference
convolution falls back to PyTorch's slow path), TF32 switched on or off for everyone. The harness times the
reference before any candidate code exists, so these do not reach its timing; they are still tampering, and they
reach anything the process runs later (the bait reference, the parent's view of what the sample is).

:meth:`GlobalState.capture` reads every setting in ``SETTINGS`` and the size of every global hook table in
``HOOK_TABLES`` before the candidate is imported; :meth:`GlobalState.changed` names those that differ now. A
change is ``global_state_changed`` (``checks.check_global_state``): the sample fails. Reading state rather than
wrapping the setters means no way of changing it is missed (an attribute assignment has no function to wrap).
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SETTINGS", "HOOK_TABLES", "GlobalState"]

SETTINGS = (
    "torch.backends.cudnn.enabled", "torch.backends.cudnn.benchmark", "torch.backends.cudnn.deterministic",
    "torch.backends.cudnn.allow_tf32", "torch.backends.cuda.matmul.allow_tf32",
    "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
    "torch.get_float32_matmul_precision", "torch.are_deterministic_algorithms_enabled",
)
HOOK_TABLES = (
    "_global_forward_pre_hooks", "_global_forward_hooks", "_global_forward_hooks_always_called",
    "_global_backward_pre_hooks", "_global_backward_hooks", "_global_buffer_registration_hooks",
    "_global_module_registration_hooks", "_global_parameter_registration_hooks",
)


def _read(dotted: str):
    """The setting's value now (a function is called); ``None`` where it does not exist in this torch."""
    import torch

    obj = torch
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    try:
        return obj() if callable(obj) else obj
    except Exception:  # noqa: BLE001 - a setting this build cannot report is not compared
        return None


def _hook_counts() -> dict:
    from torch.nn.modules import module

    return {f"torch.nn.modules.module.{name}": len(getattr(module, name))
            for name in HOOK_TABLES if hasattr(getattr(module, name, None), "__len__")}


@dataclass
class GlobalState:
    """The settings and hook-table sizes as they were when captured."""

    values: dict = field(default_factory=dict)

    @classmethod
    def capture(cls) -> "GlobalState":
        return cls({**{name: _read(name) for name in SETTINGS}, **_hook_counts()})

    def changed(self) -> list[str]:
        """The settings and hook tables that differ from the capture."""
        now = {**{name: _read(name) for name in SETTINGS}, **_hook_counts()}
        return sorted(name for name, value in self.values.items() if now.get(name) != value)
