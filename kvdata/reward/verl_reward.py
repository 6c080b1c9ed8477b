"""veRL's custom reward function: ``compute_score(data_source, solution_str, ground_truth, extra_info)``.

veRL (0.9.1, ``verl/trainer/ppo/reward.py``) loads it with ``reward.custom_reward_function.path`` /
``.name``; the reward manager calls it once per response with the row's ``data_source``,
``reward_model.ground_truth`` and ``extra_info`` and the decoded response, merging ``reward_kwargs`` from the
config into its keywords. A dict return must hold ``score``; veRL logs its other keys (``Verdict.to_verl``: the
same scalar keys for every response). The default ``naive`` manager of veRL's reward loop calls it for every
response of a batch at the same time (one thread each): the calls share one warm service, so the batch is verified
concurrently on its slots. ``compute_score_batch`` is the plural form veRL's ``BatchRewardManager`` calls
(``data_sources``, ``solution_strs``, ``ground_truths``, ``extra_infos``), verified as one batch.

Settings: ``reward_kwargs`` named like ``RewardConfig`` / ``ServeConfig`` fields, or the ``KVDATA_REWARD_*``
environment (``config.ENV``; e.g. ``KVDATA_REWARD_RAY`` to use ``kvdata reward serve``'s actors).
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from kvdata.reward.config import configs_from
from kvdata.reward.items import make_item

#: Keywords veRL may pass besides ``reward_kwargs`` (its reward-model router, sandbox-fusion settings): not ours.
VERL_KEYWORDS = frozenset({"reward_router_address", "reward_model_tokenizer", "sandbox_fusion_url",
                           "concurrent_semaphore", "memory_limit_mb"})


def _service(options: dict):
    from kvdata.reward.service import service_for

    return service_for(*configs_from(options, ignore=VERL_KEYWORDS))


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Optional[dict] = None,
                  **kwargs) -> dict:
    """One response's reward: ``{"score": float, ...verdict fields}`` (``Verdict.to_verl``)."""
    item = make_item(solution_str, data_source, ground_truth, extra_info)
    return _service(kwargs).score([item])[0].to_verl()


def compute_score_batch(data_sources: Sequence[str], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Optional[Sequence[Optional[dict]]] = None, **kwargs) -> list[dict]:
    """A batch's rewards (veRL's ``BatchRewardManager``), verified together."""
    extra_infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    items = [make_item(s, d, g, e) for d, s, g, e in zip(data_sources, solution_strs, ground_truths, extra_infos)]
    return [v.to_verl() for v in _service(kwargs).score(items)]
