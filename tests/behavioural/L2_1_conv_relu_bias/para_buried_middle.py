"""Experiment helpers: config, seeding, metering, plus the feature stage in the middle of it all."""
import json
import math
import os
import random
import time
from dataclasses import asdict, dataclass
from typing import Dict, List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class RunConfig:
    name: str = "baseline"
    epochs: int = 3
    lr: float = 1e-3
    batch: int = 32
    seed: int = 0

    def dump(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(asdict(self), f, indent=2)


def set_seed(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


class Meter:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def add(self, value: float, n: int = 1) -> None:
        self.total += value * n
        self.count += n

    @property
    def mean(self) -> float:
        return self.total / max(1, self.count)


class Squeeze(nn.Module):
    """Squeeze-excitation gate, kept for ablations."""

    def __init__(self, channels: int, ratio: int = 4):
        super().__init__()
        self.down = nn.Linear(channels, max(1, channels // ratio))
        self.up = nn.Linear(max(1, channels // ratio), channels)

    def forward(self, x):
        s = x.mean(dim=(2, 3))
        return x * torch.sigmoid(self.up(F.relu(self.down(s))))[:, :, None, None]


class Stage(nn.Module):
    def __init__(self, cin: int, cout: int, k: int, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k)
        self.shift = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return F.relu(self.conv(x)) + self.shift


def cosine_lr(step: int, total: int, base: float) -> float:
    return 0.5 * base * (1 + math.cos(math.pi * min(step, total) / total))


def save_checkpoint(model: nn.Module, path: str, extra: Optional[Dict] = None) -> None:
    state = {"model": model.state_dict(), "extra": extra or {}, "time": time.time()}
    torch.save(state, path)


def list_runs(root: str) -> List[str]:
    return sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))


def param_norms(model: nn.Module) -> Dict[str, float]:
    return {n: float(p.detach().norm()) for n, p in model.named_parameters()}


def get_inputs():
    return [torch.rand(3, 4, 30, 30)]


def get_init_inputs():
    return [4, 9, 5, (9, 1, 1)]
