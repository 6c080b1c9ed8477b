"""A Ray actor pool for multi-node rewards: each actor is one node's ``LocalPool`` (reverify's ``LocalExecutor``
with warm zygotes, ``workers`` CPU slots or ``gpus`` GPUs), kept up across batches.

Two ways to get one:

- ``kvdata reward serve --ray ADDRESS --actors N``: detached, named actors (``<namespace>/kvdata-reward-<i>``) that
  outlive the command with ``--detach``, or until Ctrl-C without it. Trainers find them by namespace:
  ``ServeConfig(ray_address=ADDRESS)`` (``KVDATA_REWARD_RAY=ADDRESS`` for ``compute_score`` in veRL's reward
  workers). Every trainer process then shares the same warm workers.
- ``ServeConfig(ray_address=..., ray_actors=N)`` in the driver: the service starts N actors of its own and kills
  them when it closes.

``verify`` spreads a batch over the actors in proportion to their slots. An actor that dies (its node lost) costs
the samples it held their verdicts (reported, never raised); the samples of the other actors are unaffected.
Results cross Ray's process boundary as ``ResultRow`` / ``Sample`` dataclasses.
"""
from __future__ import annotations

import logging
import socket
from typing import Sequence

from kvdata.reward.config import ServeConfig
from kvdata.reward.pool import Verified

logger = logging.getLogger(__name__)

NAME_PREFIX = "kvdata-reward-"


class PoolActor:
    """The actor's body (``ray.remote`` is applied in ``_actor_class``): one ``LocalPool`` on its node."""

    def __init__(self, serve: ServeConfig):
        from kvdata.reward.pool import LocalPool

        self.pool = LocalPool(serve)

    def info(self) -> dict:
        return {"host": socket.gethostname(), "slots": self.pool.slots}

    def verify(self, samples: list) -> Verified:
        return self.pool.verify(samples)

    def close(self) -> None:
        self.pool.close()


def _actor_class(serve: ServeConfig):
    import ray

    return ray.remote(num_cpus=0 if serve.gpus else serve.workers, num_gpus=serve.gpus or 0,
                      max_concurrency=4 * (serve.gpus or serve.workers))(PoolActor)


def _init(serve: ServeConfig) -> None:
    import ray

    if not ray.is_initialized():
        ray.init(address=serve.ray_address or None, namespace=serve.namespace, ignore_reinit_error=True,
                 log_to_driver=False, include_dashboard=False)


class RayPool:
    """``verify(samples) -> Verified`` over Ray actors."""

    def __init__(self, actors: list, slots: list[int], owned: bool):
        self.actors, self.actor_slots, self.owned = actors, slots, owned

    @property
    def slots(self) -> int:
        return sum(self.actor_slots)

    # ------------------------------------------------------------------ getting a pool
    @classmethod
    def start(cls, serve: ServeConfig, actors: int, detached: bool = False) -> "RayPool":
        """Start ``actors`` actors (named and detached when ``detached``: ``kvdata reward serve``)."""
        import ray

        _init(serve)
        remote = _actor_class(serve)
        handles = []
        for i in range(actors):
            options = {"name": f"{NAME_PREFIX}{i}", "namespace": serve.namespace, "lifetime": "detached",
                       "get_if_exists": True} if detached else {}
            handles.append(remote.options(**options).remote(serve))
        infos = ray.get([h.info.remote() for h in handles])
        return cls(handles, [int(i["slots"]) for i in infos], owned=not detached)

    @classmethod
    def attach(cls, serve: ServeConfig) -> "RayPool":
        """The actors ``kvdata reward serve`` started in ``serve.namespace`` (ValueError when there are none)."""
        import ray

        _init(serve)
        names = sorted(a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
                       if a.get("namespace") == serve.namespace and a["name"].startswith(NAME_PREFIX))
        if not names:
            raise ValueError(f"no kvdata reward actors in Ray namespace {serve.namespace!r} at "
                             f"{serve.ray_address or 'the local Ray'}: start them with "
                             f"`kvdata reward serve --ray {serve.ray_address or 'ADDRESS'}`")
        handles = [ray.get_actor(n, namespace=serve.namespace) for n in names]
        infos = ray.get([h.info.remote() for h in handles])
        return cls(handles, [int(i["slots"]) for i in infos], owned=False)

    @classmethod
    def connect(cls, serve: ServeConfig) -> "RayPool":
        """Actors of its own (``serve.ray_actors`` > 0) or the served ones."""
        if serve.ray_actors:
            return cls.start(serve, serve.ray_actors)
        return cls.attach(serve)

    # ------------------------------------------------------------------ work
    def verify(self, samples: Sequence) -> Verified:
        import ray

        turns = [i for i, n in enumerate(self.actor_slots) for _ in range(max(1, n))]
        shares: dict[int, list] = {}
        for n, sample in enumerate(samples):
            shares.setdefault(turns[n % len(turns)], []).append(sample)
        refs = {self.actors[i].verify.remote(share): i for i, share in shares.items()}
        rows, errors = {}, []
        for ref, i in refs.items():
            try:
                got = ray.get(ref)
            except Exception as e:  # noqa: BLE001 - a lost actor costs its share, not the batch
                logger.exception("kvdata.reward: Ray actor %d failed", i)
                got = Verified(error=f"Ray actor {i}: {type(e).__name__}: {e}")
            rows.update(got.rows)
            if got.error:
                errors.append(got.error)
        return Verified(rows, "; ".join(errors) or None)

    def stop(self) -> None:
        """Close the actors' workers and kill the actors."""
        import ray

        for h in self.actors:
            try:
                ray.get(h.close.remote(), timeout=60)
            except Exception:  # noqa: BLE001 - a dead actor has nothing left to close
                pass
            ray.kill(h)
        self.actors, self.actor_slots = [], []

    def close(self) -> None:
        """Stop the actors this pool started; leave the served ones to ``kvdata reward serve``."""
        if self.owned:
            self.stop()
