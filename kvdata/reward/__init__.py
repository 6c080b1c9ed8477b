"""The execution reward for RL trainers (TRL, veRL), on top of the reverify harness.

A completion is parsed (``parse``: the last complete fenced block following the prompt's convention), verified
by reverify's sandboxed warm workers with every check on (``pool``: reverify's ``LocalExecutor`` kept warm;
``ray_pool``: one per node on Ray), its verdict cached by content (``cache``), and scored by the paper's
hierarchy, 0.4 compile + 1.0 correct + a capped log2 speedup term, with every hack flag capping the reward at the
compile term or at 0 (``config``, ``formula``). ``service`` ties them together; ``verdict`` is what comes back.

Entry points:

- ``compute_score`` / ``compute_score_batch``: veRL's custom reward function (``verl_reward``);
- ``kernel_reward`` / ``make_trl_reward``: TRL's reward-function form (``trl_reward``);
- ``RewardService(reward, serve).score(items)``: the library form (``make_item`` builds an item).

Nothing here imports torch until a completion is verified; the core (``kvdata.reverify``) knows nothing of this
package.
"""
from kvdata.reward.config import RewardConfig, ServeConfig
from kvdata.reward.items import RewardItem, UnsupportedTask, make_item
from kvdata.reward.parse import parse_completion
from kvdata.reward.trl_reward import kernel_reward, make_trl_reward
from kvdata.reward.verdict import Verdict
from kvdata.reward.verl_reward import compute_score, compute_score_batch


def __getattr__(name: str):
    if name == "RewardService":
        from kvdata.reward.service import RewardService

        return RewardService
    raise AttributeError(f"module 'kvdata.reward' has no attribute {name!r}")


__all__ = ["RewardConfig", "ServeConfig", "RewardItem", "UnsupportedTask", "make_item", "parse_completion",
           "kernel_reward", "make_trl_reward", "Verdict", "compute_score", "compute_score_batch", "RewardService"]
