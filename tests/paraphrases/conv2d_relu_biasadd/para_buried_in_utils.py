"""Assorted training utilities: config, timing, seeding, small layers.

The model that matters is ``FeatureBlock`` near the bottom; everything else is filler that a real utility
module would carry.
"""
import contextlib
import logging
import math
import os
import random
import time
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

log = logging.getLogger("utils")


@dataclass
class TrainConfig:
    lr: float = 3e-4
    weight_decay: float = 0.01
    warmup_steps: int = 500
    max_steps: int = 10_000
    grad_clip: float = 1.0
    tags: List[str] = field(default_factory=list)

    def schedule(self, step: int) -> float:
        if step < self.warmup_steps:
            return self.lr * (step + 1) / self.warmup_steps
        progress = (step - self.warmup_steps) / max(1, self.max_steps - self.warmup_steps)
        return self.lr * 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))


def seed_everything(seed: int = 1234) -> None:
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    torch.manual_seed(seed)


@contextlib.contextmanager
def timed(label: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        log.info("%s took %.3f s", label, time.perf_counter() - start)


def count_parameters(module: nn.Module, trainable_only: bool = True) -> int:
    return sum(p.numel() for p in module.parameters() if p.requires_grad or not trainable_only)


class MovingAverage:
    """Exponential moving average of a scalar metric."""

    def __init__(self, decay: float = 0.99):
        self.decay = decay
        self.value: Optional[float] = None

    def update(self, x: float) -> float:
        self.value = x if self.value is None else self.decay * self.value + (1 - self.decay) * x
        return self.value


def flatten_dict(d: Dict, prefix: str = "") -> Dict[str, float]:
    out = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict):
            out.update(flatten_dict(v, key))
        else:
            out[key] = v
    return out


class ChannelGate(nn.Module):
    """Squeeze-and-excitation gate (unused by FeatureBlock; kept for other experiments)."""

    def __init__(self, channels: int, reduction: int = 4):
        super().__init__()
        hidden = max(1, channels // reduction)
        self.fc1 = nn.Linear(channels, hidden)
        self.fc2 = nn.Linear(hidden, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = x.mean(dim=(2, 3))
        w = torch.sigmoid(self.fc2(F.silu(self.fc1(w))))
        return x * w[:, :, None, None]


class _Unit(nn.Module):
    """A bare convolution, wrapped so that it can be swapped for a grouped one later."""

    def __init__(self, cin: int, cout: int, k: int):
        super().__init__()
        self.op = nn.Conv2d(cin, cout, k, stride=1, padding=0, bias=True)

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        return self.op(t)


def clip_gradients(module: nn.Module, max_norm: float) -> float:
    params = [p for p in module.parameters() if p.grad is not None]
    if not params:
        return 0.0
    total = torch.norm(torch.stack([p.grad.detach().norm() for p in params]))
    scale = max_norm / (total + 1e-6)
    if scale < 1:
        for p in params:
            p.grad.mul_(scale)
    return float(total)


def describe(module: nn.Module) -> str:
    lines = [f"{type(module).__name__}: {count_parameters(module):,} parameters"]
    for name, child in module.named_children():
        lines.append(f"  {name}: {type(child).__name__}")
    return "\n".join(lines)


class FeatureBlock(nn.Module):
    """Feature extractor stage: unit -> rectifier -> channel offset."""

    def __init__(self, in_ch: int, out_ch: int, k: int, bias_shape=None):
        super().__init__()
        self.unit = _Unit(in_ch, out_ch, k)
        self.channel_offset = nn.Parameter(torch.randn(bias_shape or (out_ch, 1, 1)))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        y = self.unit(images)
        y = y.clamp_min(0) if False else F.relu(y)
        return torch.add(y, self.channel_offset)


def build_optimizer(model: nn.Module, cfg: TrainConfig) -> torch.optim.Optimizer:
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim < 2 or name.endswith("offset") else decay).append(p)
    groups = [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=cfg.lr)


def infinite(loader) -> Iterator:
    while True:
        for batch in loader:
            yield batch


def get_inputs():
    return [torch.rand([4, 6, 40, 40])]


def get_init_inputs():
    return [[], {"in_ch": 6, "out_ch": 10, "k": 3, "bias_shape": (10, 1, 1)}]
