"""Filler a utility module carries: config, seeding, timing, metrics. The tests put a model at its top, middle
or bottom (at the marker line)."""
import contextlib
import json
import logging
import math
import random
import time
from collections import defaultdict
from typing import Dict, Iterator, List

import torch
import torch.nn as nn

log = logging.getLogger(__name__)
DEFAULTS = {"lr": 3e-4, "epochs": 10, "warmup": 100}


def seed_all(seed: int = 0) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


@contextlib.contextmanager
def stopwatch(label: str) -> Iterator[None]:
    t0 = time.perf_counter()
    yield
    log.info("%s: %.3fs", label, time.perf_counter() - t0)


class History:
    def __init__(self):
        self.values: Dict[str, List[float]] = defaultdict(list)

    def log(self, **kw: float) -> None:
        for k, v in kw.items():
            self.values[k].append(float(v))

    def to_json(self) -> str:
        return json.dumps(self.values)
# --- MODEL ---


def warmup_cosine(step: int, total: int, warmup: int = 100) -> float:
    if step < warmup:
        return (step + 1) / warmup
    return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))


def count_params(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def freeze(module: nn.Module) -> nn.Module:
    for p in module.parameters():
        p.requires_grad_(False)
    return module


def get_inputs():
    return [torch.randn(4, 10)]


def get_init_inputs():
    return [10, 6]
