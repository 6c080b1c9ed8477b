"""
misc_utils.py -- assorted helpers shared by the training scripts.

Contents:
    * seeding / device helpers
    * a cosine learning-rate schedule with warm-up
    * an exponential moving average of model weights
    * the feature normaliser used by the retrieval head
    * rotary position embedding helpers
    * a padding collate function
"""
import math
import os
import random
from typing import Dict, List, Optional, Sequence

import torch
import torch.nn as nn


# --------------------------------------------------------------------------- #
# reproducibility
# --------------------------------------------------------------------------- #
def seed_everything(seed: int = 0) -> None:
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def pick_device(prefer_cuda: bool = True) -> torch.device:
    if prefer_cuda and torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


def count_parameters(module: nn.Module, trainable_only: bool = True) -> int:
    return sum(p.numel() for p in module.parameters() if p.requires_grad or not trainable_only)


# --------------------------------------------------------------------------- #
# schedules
# --------------------------------------------------------------------------- #
class WarmupCosine:
    """Linear warm-up followed by cosine decay to `min_lr`."""

    def __init__(self, optimizer, warmup_steps: int, total_steps: int, base_lr: float, min_lr: float = 0.0):
        self.optimizer = optimizer
        self.warmup_steps = max(1, warmup_steps)
        self.total_steps = max(total_steps, self.warmup_steps + 1)
        self.base_lr = base_lr
        self.min_lr = min_lr
        self.step_num = 0

    def lr_at(self, step: int) -> float:
        if step < self.warmup_steps:
            return self.base_lr * (step + 1) / self.warmup_steps
        progress = (step - self.warmup_steps) / (self.total_steps - self.warmup_steps)
        progress = min(1.0, progress)
        return self.min_lr + 0.5 * (self.base_lr - self.min_lr) * (1.0 + math.cos(math.pi * progress))

    def step(self) -> float:
        lr = self.lr_at(self.step_num)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.step_num += 1
        return lr


class ModelEMA:
    """Keeps an exponential moving average of a model's floating point state."""

    def __init__(self, model: nn.Module, decay: float = 0.999):
        self.decay = decay
        self.shadow: Dict[str, torch.Tensor] = {
            k: v.detach().clone() for k, v in model.state_dict().items() if v.dtype.is_floating_point
        }

    @torch.no_grad()
    def update(self, model: nn.Module) -> None:
        for k, v in model.state_dict().items():
            if k in self.shadow:
                self.shadow[k].mul_(self.decay).add_(v.detach(), alpha=1.0 - self.decay)

    def copy_to(self, model: nn.Module) -> None:
        model.load_state_dict({**model.state_dict(), **self.shadow})


# --------------------------------------------------------------------------- #
# retrieval head normaliser
# --------------------------------------------------------------------------- #
class MaxAbsNormalizer(nn.Module):
    """
    Rescales every feature vector (dim 1) by the largest absolute value of its
    entries, so that max(|x|) == 1 for each row.
    """

    def __init__(self):
        super().__init__()

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        denom = feats.abs().amax(dim=1, keepdim=True)
        return feats / denom


# --------------------------------------------------------------------------- #
# rotary embeddings
# --------------------------------------------------------------------------- #
def rotary_frequencies(head_dim: int, max_len: int, base: float = 10000.0) -> torch.Tensor:
    inv = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    t = torch.arange(max_len, dtype=torch.float32)
    return torch.outer(t, inv)  # (max_len, head_dim // 2)


def apply_rotary(q: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    """q: (..., seq, head_dim); freqs: (seq, head_dim // 2)."""
    q1, q2 = q[..., 0::2], q[..., 1::2]
    cos, sin = freqs.cos(), freqs.sin()
    out = torch.empty_like(q)
    out[..., 0::2] = q1 * cos - q2 * sin
    out[..., 1::2] = q1 * sin + q2 * cos
    return out


# --------------------------------------------------------------------------- #
# batching
# --------------------------------------------------------------------------- #
def pad_collate(batch: Sequence[torch.Tensor], pad_value: float = 0.0) -> Dict[str, torch.Tensor]:
    lengths = torch.tensor([b.shape[0] for b in batch])
    max_len = int(lengths.max())
    feat = batch[0].shape[1:]
    out = torch.full((len(batch), max_len, *feat), pad_value, dtype=batch[0].dtype)
    for i, b in enumerate(batch):
        out[i, : b.shape[0]] = b
    mask = torch.arange(max_len)[None, :] < lengths[:, None]
    return {"values": out, "mask": mask, "lengths": lengths}


def chunked(seq: List, size: int) -> List[List]:
    return [seq[i : i + size] for i in range(0, len(seq), size)]


def moving_average(values: Sequence[float], window: int = 10) -> List[float]:
    out, acc = [], 0.0
    for i, v in enumerate(values):
        acc += v
        if i >= window:
            acc -= values[i - window]
        out.append(acc / min(i + 1, window))
    return out


def format_bytes(n: int) -> str:
    for unit in ["B", "KiB", "MiB", "GiB"]:
        if n < 1024:
            return f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def maybe_compile(module: nn.Module, enabled: Optional[bool] = None) -> nn.Module:
    if enabled is None:
        enabled = os.environ.get("USE_COMPILE", "0") == "1"
    return torch.compile(module) if enabled else module


batch_size = 64
feature_dim = 512


def get_inputs():
    return [torch.rand(batch_size, feature_dim)]


def get_init_inputs():
    return []
