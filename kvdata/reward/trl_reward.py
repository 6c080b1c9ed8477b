"""TRL's reward-function form: ``reward_fn(prompts, completions, **columns) -> list[float]``.

TRL's ``GRPOTrainer`` (1.16, ``_calculate_rewards``) calls every reward function with the whole generation batch:
``prompts``, ``completions`` (strings, or for a conversational dataset such as ``kvdata export --format rl``'s, one
message list per completion), ``completion_ids``, and every other dataset column repeated per completion
(``data_source``, ``reward_model``, ``extra_info``, ``ability``), plus ``trainer_state``, ``log_extra`` and
``log_metric``. The batch is verified concurrently on the warm workers. Each verdict's reason goes to the
completions table (``log_extra("kvdata_reason", ...)``), and the batch's compile, correct, hack and unparsed rates
to the trainer's metrics (``log_metric("kvdata/...")``).

``kernel_reward`` is the default (the paper's reward; settings from the ``KVDATA_REWARD_*`` environment, read at
each call);
``make_trl_reward(**options)`` builds one with other ``RewardConfig`` / ``ServeConfig`` fields. The function's
``last_verdicts`` holds the full verdicts of its latest call.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from kvdata.reward.config import configs_from
from kvdata.reward.items import items_from_columns

#: What TRL passes besides dataset columns.
TRL_KEYWORDS = frozenset({"completion_ids", "trainer_state", "log_extra", "log_metric", "environments"})


def make_trl_reward(name: str = "kvdata_kernel_reward", **options) -> Callable[..., list[float]]:
    """A TRL reward function named ``name`` (TRL logs ``rewards/<name>/mean``) with these options."""
    configs_from(options)          # a misspelt option fails here, not at the first batch

    def reward_fn(prompts: Optional[list] = None, completions: Optional[list] = None, **kwargs: Any) -> list[float]:
        from kvdata.reward.service import service_for

        if completions is None:
            raise ValueError("TRL passes `completions`: call the reward with completions=[...] and the dataset's "
                             "columns")
        columns = {k: v for k, v in kwargs.items() if k not in TRL_KEYWORDS}
        verdicts = service_for(*configs_from(options)).score(items_from_columns(list(completions), columns))
        reward_fn.last_verdicts = verdicts
        log_metric, log_extra = kwargs.get("log_metric"), kwargs.get("log_extra")
        n = max(1, len(verdicts))
        if callable(log_metric):
            log_metric("kvdata/compiled", sum(v.compiled for v in verdicts) / n)
            log_metric("kvdata/correct", sum(v.correct for v in verdicts) / n)
            log_metric("kvdata/hacked", sum(v.hacked for v in verdicts) / n)
            log_metric("kvdata/unparsed", sum(v.status == "unparsed" for v in verdicts) / n)
            log_metric("kvdata/cache_hits", sum(v.cache_hit for v in verdicts) / n)
        if callable(log_extra):
            log_extra("kvdata_reason", [v.reason for v in verdicts])
        return [v.score for v in verdicts]

    reward_fn.__name__ = reward_fn.__qualname__ = name
    reward_fn.last_verdicts = []
    return reward_fn


kernel_reward = make_trl_reward()
