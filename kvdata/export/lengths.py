"""Example lengths as each consumer builds its input, so that ``--max-tokens`` drops what the trainer would.

- ``messages``, ``alpaca``, ``sharegpt``: the whole conversation (system, user, assistant) with the tokenizer's
  chat template applied: TRL's SFT tokenises ``messages`` with ``apply_chat_template``, and LLaMA-Factory wraps
  alpaca / sharegpt rows (system column included) in the model's template.
- ``dpo``: the longer of prompt + chosen and prompt + rejected with the template (TRL's ``DPOTrainer`` tokenises
  each as ``apply_chat_template(prompt + chosen)``), counted per pair, since the rejected side decides too.
- ``rl``: the prompt alone (system + user) with the template and the generation prompt: veRL's ``RLHFDataset``
  keeps a row when ``len(apply_chat_template(prompt, add_generation_prompt=True)) <= max_prompt_length``
  (volcengine/verl b178a3c, ``verl/utils/dataset/rl_dataset.py``); the reference in ``reward_model`` is never
  part of the model's input.

A tokenizer without a chat template counts the same texts joined without one (``template = False``); without a
tokenizer, lengths are characters of those texts.
"""
from __future__ import annotations

from typing import Optional, Sequence

from kvdata.export.formats import PreferencePair
from kvdata.export.tasks import ExportItem

#: Conversations rendered and tokenised per call (only one batch of texts is held at a time).
BATCH = 256


def has_template(tokenizer) -> bool:
    """Whether ``tokenizer`` has a chat template (lengths are then counted through it)."""
    return tokenizer is not None and bool(getattr(tokenizer, "chat_template", None))


def basis(fmt: str, tokenizer) -> str:
    """One line for the card: what a length counts."""
    what = ("the prompt alone (system + user), as veRL filters prompts" if fmt == "rl" else
            "the longer of prompt + chosen and prompt + rejected, per pair, as TRL's DPOTrainer tokenises them"
            if fmt == "dpo" else "the whole conversation (system + user + assistant)")
    if tokenizer is None:
        return f"characters of {what}"
    how = ("with the tokenizer's chat template applied" + (" and the generation prompt" if fmt == "rl" else "")
           if has_template(tokenizer) else "without a chat template (the tokenizer has none)")
    return f"tokens of {what}, {how}"


def _conversation(it: ExportItem, response: Optional[str]) -> list[dict]:
    turns = [{"role": "system", "content": it.system}, {"role": "user", "content": it.prompt}]
    return turns + ([{"role": "assistant", "content": response}] if response is not None else [])


def _count(convs: Sequence[list[dict]], tokenizer, generation_prompt: bool) -> list[int]:
    """Token counts of conversations: rendered with the chat template, then tokenised without added special
    tokens (what ``apply_chat_template(..., tokenize=True)`` does); plain joined texts without a template."""
    if tokenizer is None:
        return [sum(len(m["content"]) for m in c) for c in convs]
    out: list[int] = []
    for i in range(0, len(convs), BATCH):
        batch = list(convs[i:i + BATCH])
        if has_template(tokenizer):
            texts = tokenizer.apply_chat_template(batch, tokenize=False, add_generation_prompt=generation_prompt)
        else:
            texts = ["".join(m["content"] for m in c) for c in batch]
        out.extend(len(ids) for ids in tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"])
    return out


def example_lengths(fmt: str, items: Sequence[ExportItem], tokenizer=None) -> list[int]:
    """Each example's length as the consumer of ``fmt`` builds its input (``rl``: the prompt only)."""
    if fmt == "rl":
        return _count([_conversation(it, None) for it in items], tokenizer, generation_prompt=True)
    return _count([_conversation(it, it.response) for it in items], tokenizer, generation_prompt=False)


def pair_lengths(pairs: Sequence[PreferencePair], tokenizer=None) -> list[int]:
    """Each preference pair's length: the longer of its two sequences (prompt + chosen, prompt + rejected)."""
    chosen = _count([_conversation(p.chosen, p.chosen.response) for p in pairs], tokenizer, generation_prompt=False)
    rejected = _count([_conversation(p.chosen, p.rejected_text) for p in pairs], tokenizer, generation_prompt=False)
    return [max(a, b) for a, b in zip(chosen, rejected)]
