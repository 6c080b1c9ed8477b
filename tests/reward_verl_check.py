"""Run inside veRL's venv (scripts/install_verl.sh) by tests/test_reward_verl.py: veRL 0.9.1's own reward path
scores a batch its own ``RLHFDataset`` built from a `kvdata export --format rl` parquet, with ``kvdata.reward``
loaded through ``reward.custom_reward_function`` as the README's config block sets it.

What is veRL's here: the reward config (its ``trainer/config/reward/reward.yaml``, with the README's block merged
on top), the dataset and its ``collate_fn``, ``DataProto``, and ``RewardLoopWorker`` (the reward-loop worker veRL's
``RewardLoopManager`` runs as a Ray actor; here built as the plain class it is, in this process), which loads the
reward function with ``load_reward_manager`` -> ``get_custom_reward_fn`` and calls the ``naive`` manager's
``run_single`` for every response at once. Then the scores become ``rm_scores`` and the extra info is stacked per
key, as ``RewardLoopManager.compute_rm_score`` does. Only the rollout is not veRL's: the responses are written here
and tokenised with the policy's tokenizer.

Usage: python reward_verl_check.py EXPORT_DIR TOKENIZER_DIR README OUT_JSON VERIFIER_CACHE
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def readme_block(readme: Path, marker: str) -> str:
    m = re.search(r"<!-- kvdata-test: " + re.escape(marker) + r" -->\n```\w*\n(.*?)\n```", readme.read_text(),
                  re.DOTALL)
    assert m, f"README has no block marked {marker}"
    return m.group(1)


def main(export: Path, tokenizer_dir: Path, readme: Path, out: Path, verifier_cache: str) -> None:
    import numpy as np
    import torch
    import transformers
    import verl
    from omegaconf import OmegaConf
    from verl import DataProto
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker
    from verl.trainer.ppo.reward import resolve_reward_manager_cls
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn
    from verl.utils.ray_utils import get_event_loop

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(tokenizer_dir), local_files_only=True)
    parquet = sorted((export / "data").glob("train-*.parquet"))[0]
    dataset = RLHFDataset(data_files=[str(parquet)], tokenizer=tokenizer,
                          config=OmegaConf.create({"prompt_key": "prompt", "max_prompt_length": 8192,
                                                   "filter_overlong_prompts": False,
                                                   "cache_dir": str(out.parent / "verl-cache")}))
    by_name = {dataset[i]["extra_info"]["task_name"]: i for i in range(len(dataset))}

    def fenced(code: str) -> str:
        return f"Here is the kernel.\n\n```python\n{code}\n```"

    relu_torch = ("import torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n"
                  "    def forward(self, x):\n        return torch.relu(x)\n")
    plan = [  # (task, response, what it is)
        ("add", lambda ex: fenced(ex["reference_kernel"]), "honest"),
        ("relu", lambda ex: fenced(relu_torch), "hack: torch only, no kernel"),
        ("gelu_tanh_wrong_constant", lambda ex: fenced(ex["reference_kernel"]), "wrong kernel"),
        ("exp", lambda ex: "I would use tl.exp in a kernel.", "no code"),
        ("add", lambda ex: fenced(ex["reference_kernel"]), "honest again (cached)"),
    ]
    items = [dataset[by_name[name]] for name, _, _ in plan]
    batch = collate_fn(items)
    responses = [make(item["extra_info"]) for item, (_, make, _) in zip(items, plan)]

    # what a rollout leaves: left-padded prompts, right-padded responses, one attention mask over both
    pad = tokenizer.pad_token_id
    prompt_ids = [tokenizer.apply_chat_template(list(item["raw_prompt"]), add_generation_prompt=True, tokenize=True,
                                                return_dict=True)["input_ids"] for item in items]
    response_ids = [tokenizer(r + tokenizer.eos_token, add_special_tokens=False)["input_ids"] for r in responses]
    p_len, r_len = max(map(len, prompt_ids)), max(map(len, response_ids))
    prompts = torch.tensor([[pad] * (p_len - len(p)) + p for p in prompt_ids])
    resp = torch.tensor([r + [pad] * (r_len - len(r)) for r in response_ids])
    mask = torch.tensor([[0] * (p_len - len(p)) + [1] * len(p) + [1] * len(r) + [0] * (r_len - len(r))
                         for p, r in zip(prompt_ids, response_ids)])
    batch.update({"prompts": prompts, "responses": resp, "attention_mask": mask,
                  "input_ids": torch.cat([prompts, resp], dim=1)})
    data = DataProto.from_single_dict(batch)

    # veRL's reward config, with the README's block on top, and the settings this check needs
    reward_yaml = Path(verl.__file__).parent / "trainer" / "config" / "reward" / "reward.yaml"
    config = OmegaConf.create({
        "reward": OmegaConf.load(reward_yaml),
        "actor_rollout_ref": {"model": {"path": str(tokenizer_dir), "tokenizer_path": str(tokenizer_dir)}},
    })
    snippet = OmegaConf.create(readme_block(readme, "verl-config"))
    config = OmegaConf.merge(config, snippet)
    kwargs = config.reward.custom_reward_function.reward_kwargs
    kwargs.update({"backend": "triton-interpreter", "seeds": 2, "workers": 2,
                   "verifier_cache_root": verifier_cache})

    loop = get_event_loop()
    worker = RewardLoopWorker(config)
    outputs = loop.run_until_complete(worker.compute_score_batch(data))
    scores = [o["reward_score"] for o in outputs]
    rm_scores = resolve_reward_manager_cls(config).assemble_rm_scores(data, scores)
    infos = [o.get("reward_extra_info", {}) for o in outputs]
    keys = list(infos[0])
    stacked = {k: np.array([info[k] for info in infos]).tolist() for k in keys}
    out.write_text(json.dumps({
        "verl": verl.__version__, "transformers": transformers.__version__,
        "reward_fn": config.reward.custom_reward_function.path + ":" + config.reward.custom_reward_function.name,
        "reward_manager": resolve_reward_manager_cls(config).__name__,
        "plan": [[name, what] for name, _, what in plan], "scores": scores,
        "rm_scores_sum": rm_scores.sum(dim=1).tolist(), "rm_scores_nonzero": (rm_scores != 0).sum(dim=1).tolist(),
        "response_lengths": [len(r) for r in response_ids], "extra": stacked,
        "same_keys": all(list(i) == keys for i in infos),
    }, default=str))


if __name__ == "__main__":
    export, tok, readme, out, cache = sys.argv[1:6]
    main(Path(export), Path(tok), Path(readme), Path(out), cache)
