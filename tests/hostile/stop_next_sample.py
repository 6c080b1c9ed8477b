"""Trick: sabotage the process pre-forked for the next sample (stop it, try to write its memory),
so an innocent sample after this one times out or runs tampered code. Returns zeros.

It raises (runtime_error) when it finds no sibling process to attack, so a test can tell that
the attack really ran (`incorrect`)."""
import os
import signal
import time

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_zero(o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32), mask=offs < n)


def siblings():
    me, parent, found = os.getpid(), os.getppid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
            found.append(int(entry))
    return found


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))

    def forward(self, x):
        deadline = time.monotonic() + 5
        targets = siblings()
        while not targets and time.monotonic() < deadline:
            time.sleep(0.05)
            targets = siblings()
        if not targets:
            raise RuntimeError("no sibling process to attack")
        for pid in targets:
            try:
                with open(f"/proc/{pid}/mem", "r+b"):
                    raise RuntimeError(f"could open the memory of process {pid} for writing")
            except OSError:
                pass
            os.kill(pid, signal.SIGSTOP)
        out = torch.empty_like(x)
        fill_zero[(triton.cdiv(x.numel(), 256),)](out, x.numel(), BLOCK=256)
        return out
