"""What a verdict is worth (``RewardConfig``) and how verdicts are obtained (``ServeConfig``): two small frozen
dataclasses, hashable, so that a process keeps one warm service per distinct setting.

The default reward is the paper's hierarchy: 0.4 for compiling, +1.0 for being correct, + a capped speedup term
(``formula.py`` has the formula and why). A flag the verifier raises can lower the ceiling of a reward
(``flag_costs``): ``"compile"`` keeps at most the compile term, ``"zero"`` leaves nothing, ``"no_speedup"`` drops
only the speedup term. Every failing flag of ``kvdata.reverify.config.FAILING_FLAGS`` has a cost of ``compile`` or
``zero`` (``DEFAULT_FLAG_COSTS``), so no hack earns more than the compile term; a mapping that leaves one out is
completed with ``compile`` (a cost can be lowered to ``zero``, never removed).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Optional

from kvdata.reverify.config import FAILING_FLAGS

COSTS = ("zero", "compile", "no_speedup")

# Tampering with the harness itself cannot be an honest mistake: nothing at all. The rest of the failing flags can
# come from a kernel that is only wrong (an in-place op, a size it does not handle, a torch fallback), so they keep
# the compile term, which an honest wrong kernel earns too: a hack is never worth more than being wrong.
DEFAULT_FLAG_COSTS: Mapping[str, str] = MappingProxyType({
    **{flag: "compile" for flag in sorted(FAILING_FLAGS)},
    "tampered_outputs": "zero",            # rewrote round A's sealed outputs, or withheld the seal
    "timer_tampered": "zero",              # replaced a timing entry point
    "global_state_changed": "zero",        # a global module hook or a process-wide torch setting changed
    "output_aliases_reference": "zero",    # handed back the reference's own output
    "implausible_speedup": "no_speedup",   # correct, but faster than ReverifyConfig.speedup_limit: no speedup term
})


def _frozen_costs(costs: Optional[Mapping[str, str]]) -> tuple[tuple[str, str], ...]:
    merged = dict(DEFAULT_FLAG_COSTS)
    for flag, cost in (costs or {}).items():
        if cost not in COSTS:
            raise ValueError(f"flag cost for {flag!r} is {cost!r}; expected one of {', '.join(COSTS)}")
        if flag in FAILING_FLAGS and cost == "no_speedup":
            raise ValueError(f"{flag} is a failing flag: its cost can be 'compile' or 'zero', not 'no_speedup' "
                             "(a hack never earns more than the compile term)")
        merged[flag] = cost
    return tuple(sorted(merged.items()))


@dataclass(frozen=True)
class RewardConfig:
    """The reward's terms. ``speedup_weight`` is the most the speedup term adds, reached at ``speedup_cap``×
    (``formula.speedup_term``); ``flag_costs``: flag -> ``zero`` | ``compile`` | ``no_speedup`` (a dict is accepted
    and completed with ``DEFAULT_FLAG_COSTS``); ``max_code_chars``: longer extracted code is not run (reward 0)."""

    compile_reward: float = 0.4
    correct_reward: float = 1.0
    speedup_weight: float = 1.0
    speedup_cap: float = 4.0
    flag_costs: tuple = field(default=())
    max_code_chars: int = 200_000

    def __post_init__(self):
        costs = self.flag_costs
        if isinstance(costs, tuple) and costs and all(isinstance(c, tuple) and len(c) == 2 for c in costs):
            costs = dict(costs)
        object.__setattr__(self, "flag_costs", _frozen_costs(costs or None))
        if self.speedup_cap <= 1.0:
            raise ValueError(f"speedup_cap must be above 1 (got {self.speedup_cap}): the term reaches its weight there")
        if min(self.compile_reward, self.correct_reward, self.speedup_weight) < 0:
            raise ValueError("reward terms must not be negative")

    def cost_of(self, flag: str) -> Optional[str]:
        """What ``flag`` costs (None: nothing)."""
        return dict(self.flag_costs).get(flag)

    @property
    def max_reward(self) -> float:
        return self.compile_reward + self.correct_reward + self.speedup_weight

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["flag_costs"] = dict(self.flag_costs)
        return d


@dataclass(frozen=True)
class ServeConfig:
    """How verdicts are obtained: the reverify harness, every check on (knockout, other sizes and value ranges,
    several seeds, timing on a GPU), in ``workers`` warm sandboxed slots on the CPU or one per GPU (``gpus``), or on
    a Ray actor pool (``ray_address``: the actors ``kvdata reward serve --ray`` started, found by ``namespace``;
    or, with ``ray_actors`` > 0, that many actors the service starts itself, each with ``workers`` / ``gpus``
    slots). ``ray_address=""`` is a Ray started in this process.

    ``backend``: None picks per language (the Triton interpreter without a GPU). ``timeout_s`` and ``memory_mb``
    bound one completion's run. ``cache_dir``: where verdicts persist across processes (SQLite); None keeps them
    in memory only. ``seed``: fixes the verifier's seeds (tests and benchmarks only: fixed seeds can be
    special-cased)."""

    backend: Optional[str] = None
    workers: int = 2
    gpus: Optional[int] = None
    seeds: int = 3
    timeout_s: float = 120.0
    memory_mb: int = 4096
    cache_dir: Optional[str] = None
    cache_size: int = 100_000
    verifier_cache_root: Optional[str] = None     # compile caches (None: ~/.cache/kvdata/reverify)
    ray_address: Optional[str] = None
    ray_actors: int = 0                           # > 0: start this many actors of its own; 0: use the served ones
    namespace: str = "kvdata-reward"
    seed: Optional[int] = None
    timing: bool = True

    def reverify_config(self):
        """The ``ReverifyConfig`` every verdict is made under: the harness's defaults, checks all on."""
        from kvdata.reverify.config import ReverifyConfig, TimingConfig

        return ReverifyConfig(backend=self.backend, seeds=self.seeds, seed=self.seed, timeout_s=self.timeout_s,
                              memory_mb=self.memory_mb, timing=TimingConfig(enabled=self.timing))


#: Environment variables the default service reads (veRL's reward workers are separate processes: this is how a
#: setting reaches them besides ``custom_reward_function.reward_kwargs``), and the ServeConfig field each sets.
ENV = {"KVDATA_REWARD_RAY": "ray_address", "KVDATA_REWARD_NAMESPACE": "namespace",
       "KVDATA_REWARD_WORKERS": "workers", "KVDATA_REWARD_GPUS": "gpus", "KVDATA_REWARD_BACKEND": "backend",
       "KVDATA_REWARD_CACHE": "cache_dir", "KVDATA_REWARD_TIMEOUT": "timeout_s", "KVDATA_REWARD_SEEDS": "seeds"}


def configs_from(options: Optional[Mapping] = None, env: Optional[Mapping[str, str]] = None,
                 ignore: frozenset = frozenset()) -> tuple[RewardConfig, ServeConfig]:
    """``(RewardConfig, ServeConfig)`` from keyword options named like their fields (veRL's ``reward_kwargs``, the
    TRL helper's keywords), over the ``KVDATA_REWARD_*`` environment (``ENV``), over the defaults. A name neither
    dataclass has (and not in ``ignore``) is a ValueError: a typo in a trainer's config must not pass silently."""
    import os

    env = os.environ if env is None else env
    reward_fields = {f.name: f for f in dataclasses.fields(RewardConfig)}
    serve_fields = {f.name: f for f in dataclasses.fields(ServeConfig)}
    serve_kw: dict = {}
    for var, name in ENV.items():
        value = env.get(var)
        if value not in (None, ""):
            serve_kw[name] = _convert(name, value, serve_fields[name])
    reward_kw: dict = {}
    for name, value in (options or {}).items():
        if name in ignore:
            continue
        if name in reward_fields:
            reward_kw[name] = dict(value) if name == "flag_costs" and isinstance(value, Mapping) else value
        elif name in serve_fields:
            serve_kw[name] = value
        else:
            raise ValueError(f"unknown kvdata.reward option {name!r}; known: "
                             f"{', '.join(sorted(reward_fields) + sorted(serve_fields))}")
    return RewardConfig(**reward_kw), ServeConfig(**serve_kw)


def _convert(name: str, value: str, f) -> object:
    kind = str(f.type)
    try:
        if "int" in kind:
            return int(value)
        if "float" in kind:
            return float(value)
    except ValueError:
        raise ValueError(f"{name}: {value!r} is not a number") from None
    return value
