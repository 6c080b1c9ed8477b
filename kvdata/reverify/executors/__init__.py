"""Executors schedule samples onto workers; they know nothing of how a sample is verified.

``local`` (threads, one warm worker per GPU or CPU slot) and ``ray`` (batches as Ray tasks).
"""
from __future__ import annotations

from kvdata.reverify.executors.shard import parse_shard, select_shard, shard_of  # noqa: F401


def make_executor(kind: str, config, workers: int = 1, gpus=None, cache_root=None, scratch_root=None,
                  ray_address=None):
    if kind == "local":
        from kvdata.reverify.executors.local import LocalExecutor

        return LocalExecutor(config, workers=workers, gpus=gpus, cache_root=cache_root, scratch_root=scratch_root)
    if kind == "ray":
        from kvdata.reverify.executors.ray_executor import RayExecutor

        return RayExecutor(config, address=ray_address, gpus_per_task=1 if gpus else 0, cache_root=cache_root)
    raise ValueError(f"unknown executor {kind!r}; expected local or ray")
