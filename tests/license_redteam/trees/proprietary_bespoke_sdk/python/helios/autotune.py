"""Autotuning utilities for Helios kernels."""

import itertools
import time


def sweep(fn, space, repeats=5):
    """Run ``fn`` over the cartesian product of ``space`` and return the best config."""
    best, best_t = None, float("inf")
    keys = sorted(space)
    for values in itertools.product(*(space[k] for k in keys)):
        cfg = dict(zip(keys, values))
        t0 = time.perf_counter()
        for _ in range(repeats):
            fn(**cfg)
        t = (time.perf_counter() - t0) / repeats
        if t < best_t:
            best, best_t = cfg, t
    return best, best_t
