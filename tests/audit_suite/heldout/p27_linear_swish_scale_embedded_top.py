import math
import time
from contextlib import contextmanager
from typing import Callable, Dict, List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


class SwishProjection(nn.Module):
    """
    Projection block used in the adapter: Linear -> Swish -> constant gain.
    """

    def __init__(self, in_features: int, out_features: int, scaling_factor: float):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features)
        self.scale = scaling_factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.proj(x)).mul(self.scale)


batch_size = 16
in_features = 96
out_features = 64
scaling_factor = 2.0


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]


# ----------------------------------------------------------------------------
# everything below is benchmarking / bookkeeping glue
# ----------------------------------------------------------------------------
@contextmanager
def timer(label: str, sink: Optional[Dict[str, float]] = None):
    t0 = time.perf_counter()
    try:
        yield
    finally:
        dt = time.perf_counter() - t0
        if sink is not None:
            sink[label] = sink.get(label, 0.0) + dt
        else:
            print(f"[{label}] {dt * 1e3:.2f} ms")


def benchmark(fn: Callable, *args, warmup: int = 3, iters: int = 10) -> float:
    for _ in range(warmup):
        fn(*args)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn(*args)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / iters


def flops_linear(batch: int, d_in: int, d_out: int) -> int:
    return 2 * batch * d_in * d_out


def achieved_tflops(flops: int, seconds: float) -> float:
    return flops / max(seconds, 1e-12) / 1e12


class LowRankAdapter(nn.Module):
    """LoRA-style low rank update: x -> B(A(x)) * (alpha / r)."""

    def __init__(self, d_in: int, d_out: int, rank: int = 8, alpha: float = 16.0):
        super().__init__()
        self.down = nn.Linear(d_in, rank, bias=False)
        self.up = nn.Linear(rank, d_out, bias=False)
        self.scaling = alpha / rank
        nn.init.kaiming_uniform_(self.down.weight, a=math.sqrt(5))
        nn.init.zeros_(self.up.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.up(self.down(x)) * self.scaling


def merge_lora(base: nn.Linear, adapter: LowRankAdapter) -> nn.Linear:
    merged = nn.Linear(base.in_features, base.out_features, bias=base.bias is not None)
    with torch.no_grad():
        delta = adapter.up.weight @ adapter.down.weight * adapter.scaling
        merged.weight.copy_(base.weight + delta)
        if base.bias is not None:
            merged.bias.copy_(base.bias)
    return merged


def freeze(module: nn.Module) -> nn.Module:
    for p in module.parameters():
        p.requires_grad_(False)
    return module


def unfreeze(module: nn.Module) -> nn.Module:
    for p in module.parameters():
        p.requires_grad_(True)
    return module


def grad_norm(params, norm_type: float = 2.0) -> float:
    grads = [p.grad.detach().flatten() for p in params if p.grad is not None]
    if not grads:
        return 0.0
    return float(torch.linalg.vector_norm(torch.cat(grads), ord=norm_type))


def clip_and_step(optimizer, params, max_norm: float = 1.0) -> float:
    total = torch.nn.utils.clip_grad_norm_(params, max_norm)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return float(total)


def parameter_groups(model: nn.Module, weight_decay: float = 0.01) -> List[Dict]:
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim < 2 or name.endswith("bias") else decay).append(p)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]


def describe(model: nn.Module) -> str:
    lines = []
    for name, p in model.named_parameters():
        lines.append(f"{name:40s} {str(tuple(p.shape)):20s} {p.dtype}")
    return "\n".join(lines)


def to_half_if_cuda(t: torch.Tensor) -> torch.Tensor:
    return t.half() if t.is_cuda else t


def report(results: Dict[str, float]) -> None:
    width = max(len(k) for k in results) if results else 0
    for k, v in sorted(results.items(), key=lambda kv: -kv[1]):
        print(f"{k:<{width}}  {v * 1e3:8.3f} ms")


if __name__ == "__main__":
    m = SwishProjection(*get_init_inputs())
    (x,) = get_inputs()
    print(m(x).shape, benchmark(m, x))
