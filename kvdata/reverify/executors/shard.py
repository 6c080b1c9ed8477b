"""``--shard i/N``: a stable split of samples by a hash of their id, for job arrays.

The hash is sha1 of the id (not Python's salted ``hash``), so every array task computes
the same partition on every machine and every run.
"""
from __future__ import annotations

import hashlib
from typing import Iterable, TypeVar

T = TypeVar("T")


def parse_shard(spec: str) -> tuple[int, int]:
    """'i/N' → (i, N) with 0 <= i < N."""
    try:
        i, n = (int(x) for x in spec.split("/"))
    except ValueError:
        raise ValueError(f"--shard expects i/N (e.g. 0/4), got {spec!r}") from None
    if n < 1 or not 0 <= i < n:
        raise ValueError(f"--shard {spec}: need 0 <= i < N")
    return i, n


def shard_of(sample_id: str, num_shards: int) -> int:
    digest = hashlib.sha1(sample_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % num_shards


def select_shard(samples: Iterable[T], index: int, num_shards: int) -> list[T]:
    return [s for s in samples if shard_of(s.id, num_shards) == index]
