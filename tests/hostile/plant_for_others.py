"""Trick: plant files where other samples will find them: a compiled kernel in another
sample's compile cache, a file in the worker's shared Triton cache (its driver module lives
there), and a file in the worker's job directory, where the next sample's job dir will be
made. Returns zeros.

It raises (runtime_error) if any write lands, so a test can tell the writes were refused
(`incorrect`) from a sandbox that let them through."""
import os
from pathlib import Path

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_zero(o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32), mask=offs < n)


def targets():
    own_cache = Path(os.environ["TRITON_CACHE_DIR"])          # .../by-source/<digest>/triton
    job_dir = Path(os.environ["HOME"]).parent                 # .../jobs/<token>/home
    return [own_cache.parents[1] / "0123456789abcdef" / "triton" / "planted_kernel",
            own_cache.parents[2] / "triton" / "planted_driver",
            job_dir.parent / "planted_next_job",
            job_dir.parents[1] / "planted_in_scratch"]


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))

    def forward(self, x):
        for path in targets():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("planted")
            except OSError:
                continue
            raise RuntimeError(f"planted {path}")
        out = torch.empty_like(x)
        fill_zero[(triton.cdiv(x.numel(), 256),)](out, x.numel(), BLOCK=256)
        return out
