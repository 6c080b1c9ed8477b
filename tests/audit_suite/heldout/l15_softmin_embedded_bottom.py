# -*- coding: utf-8 -*-
"""
Classification head utilities: label smoothing, metrics, calibration and the
probability head exported to the inference server.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class RunningMeter:
    name: str
    total: float = 0.0
    count: int = 0
    history: List[float] = field(default_factory=list)

    def update(self, value: float, n: int = 1) -> None:
        self.total += value * n
        self.count += n
        self.history.append(value)

    @property
    def avg(self) -> float:
        return self.total / max(1, self.count)

    def __repr__(self) -> str:
        return f"{self.name}: {self.avg:.4f} ({self.count} samples)"


def smooth_one_hot(targets: torch.Tensor, num_classes: int, smoothing: float = 0.1) -> torch.Tensor:
    """Builds label-smoothed target distributions of shape (N, num_classes)."""
    off = smoothing / (num_classes - 1)
    out = torch.full((targets.shape[0], num_classes), off, device=targets.device)
    out.scatter_(1, targets.unsqueeze(1), 1.0 - smoothing)
    return out


def topk_accuracy(logits: torch.Tensor, targets: torch.Tensor, ks: Tuple[int, ...] = (1, 5)) -> Dict[int, float]:
    maxk = min(max(ks), logits.shape[1])
    _, pred = logits.topk(maxk, dim=1)
    correct = pred.eq(targets.unsqueeze(1))
    return {k: correct[:, : min(k, maxk)].any(dim=1).float().mean().item() for k in ks}


def confusion_matrix(pred: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    idx = targets * num_classes + pred
    return torch.bincount(idx, minlength=num_classes * num_classes).view(num_classes, num_classes)


def expected_calibration_error(probs: torch.Tensor, targets: torch.Tensor, n_bins: int = 15) -> float:
    conf, pred = probs.max(dim=1)
    acc = pred.eq(targets).float()
    bins = torch.linspace(0, 1, n_bins + 1)
    ece = torch.zeros(())
    for lo, hi in zip(bins[:-1], bins[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            ece += m.float().mean() * (conf[m].mean() - acc[m].mean()).abs()
    return float(ece)


class TemperatureScaler(nn.Module):
    """Post-hoc calibration: divides logits by a learned temperature."""

    def __init__(self, init_temperature: float = 1.5):
        super().__init__()
        self.log_t = nn.Parameter(torch.tensor(math.log(init_temperature)))

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        return logits / self.log_t.exp()

    def fit(self, logits: torch.Tensor, targets: torch.Tensor, steps: int = 50, lr: float = 0.01) -> float:
        opt = torch.optim.LBFGS([self.log_t], lr=lr, max_iter=steps)

        def closure():
            opt.zero_grad()
            loss = F.cross_entropy(self(logits), targets)
            loss.backward()
            return loss

        opt.step(closure)
        return float(self.log_t.exp())


def iterate_minibatches(x: torch.Tensor, y: torch.Tensor, bs: int, shuffle: bool = True) -> Iterable:
    idx = torch.randperm(x.shape[0]) if shuffle else torch.arange(x.shape[0])
    for s in range(0, x.shape[0], bs):
        j = idx[s : s + bs]
        yield x[j], y[j]


def class_weights_from_counts(counts: torch.Tensor, beta: float = 0.999) -> torch.Tensor:
    """'Effective number of samples' re-weighting (Cui et al. 2019)."""
    eff = 1.0 - torch.pow(beta, counts.float())
    w = (1.0 - beta) / eff.clamp_min(1e-12)
    return w / w.sum() * counts.numel()


def entropy_of(probs: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    return -(probs * (probs + eps).log()).sum(dim=-1)


def margin_of(probs: torch.Tensor) -> torch.Tensor:
    top2 = probs.topk(2, dim=-1).values
    return top2[..., 0] - top2[..., 1]


def summarize(meters: Iterable[RunningMeter]) -> str:
    return " | ".join(repr(m) for m in meters)


def greedy_labels(probs: torch.Tensor, names: List[str]) -> List[str]:
    return [names[i] for i in probs.argmax(dim=-1).tolist()]


def brier_score(probs: torch.Tensor, targets: torch.Tensor) -> float:
    onehot = F.one_hot(targets, probs.shape[-1]).to(probs.dtype)
    return float(((probs - onehot) ** 2).sum(dim=-1).mean())


def save_head(module: nn.Module, path: str) -> None:
    torch.save({k: v.cpu() for k, v in module.state_dict().items()}, path)


def load_head(module: nn.Module, path: str) -> nn.Module:
    module.load_state_dict(torch.load(path, map_location="cpu"))
    return module


# --------------------------------------------------------------------------- #
# exported probability head
# --------------------------------------------------------------------------- #
class Model(nn.Module):
    """
    Converts a batch of distances (N, C) into class probabilities
    (smaller distance means more likely). Computed in
    log-space first (log-softmax is fused and stable) and exponentiated.
    """

    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        return torch.exp(F.log_softmax(-logits, dim=-1))


batch_size = 32
num_classes = 1000


def get_inputs():
    return [torch.rand(batch_size, num_classes)]


def get_init_inputs():
    return []
