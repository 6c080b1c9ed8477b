"""Export formats: what one training example (or preference pair) looks like on disk.

- ``messages``: ``messages`` = system / user / assistant turns (the ``datasets`` and TRL SFT
  convention).
- ``alpaca``: ``instruction`` / ``input`` (always present, empty) / ``output`` / ``system``;
  ``sharegpt``: ``conversations`` of ``{from, value}`` (human, gpt) and ``system``. Both with the
  ``dataset_info.json`` entry LLaMA-Factory reads.
- ``dpo``: ``prompt`` / ``chosen`` / ``rejected`` strings (TRL's standard preference format, and
  LLaMA-Factory's alpaca ``ranking`` entry), with both rows' ids and the preference's reason.
- ``rl``: veRL's RL parquet: ``data_source``, ``prompt`` (a chat list), ``ability``,
  ``reward_model: {style, ground_truth}`` (the reference a verifier-based reward runs against),
  ``extra_info: {split, index, id, task_name, language, reference_kernel}``; every struct field a
  string but ``index`` (int64), since veRL's reader needs one type per field across rows.

Every row keeps its corpus ``id``. Schemas are explicit so that a column that happens to be all
null in one split still has its type.
"""
from __future__ import annotations

from typing import Optional, Sequence

import pyarrow as pa

from kvdata.export.tasks import ExportItem

FORMATS = ("messages", "alpaca", "sharegpt", "dpo", "rl")

_MSG = pa.struct([("role", pa.string()), ("content", pa.string())])
_META = [("task", pa.string()), ("task_name", pa.string()), ("language", pa.string()), ("license", pa.string()),
         ("source", pa.string()), ("speedup", pa.float64())]

SCHEMAS: dict[str, pa.Schema] = {
    "messages": pa.schema([("id", pa.string()), ("messages", pa.list_(_MSG))] + _META),
    "alpaca": pa.schema([("id", pa.string()), ("instruction", pa.string()), ("input", pa.string()),
                         ("output", pa.string()), ("system", pa.string())] + _META),
    "sharegpt": pa.schema([("id", pa.string()),
                           ("conversations", pa.list_(pa.struct([("from", pa.string()), ("value", pa.string())]))),
                           ("system", pa.string())] + _META),
    "dpo": pa.schema([("id", pa.string()), ("prompt", pa.string()), ("chosen", pa.string()), ("rejected", pa.string()),
                      ("system", pa.string()), ("chosen_id", pa.string()), ("rejected_id", pa.string()),
                      ("preference", pa.string()), ("margin", pa.float64())] + _META),
    "rl": pa.schema([("data_source", pa.string()), ("prompt", pa.list_(_MSG)), ("ability", pa.string()),
                     ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
                     ("extra_info", pa.struct([("split", pa.string()), ("index", pa.int64()), ("id", pa.string()),
                                               ("task_name", pa.string()), ("language", pa.string()),
                                               ("reference_kernel", pa.string())]))]),
}

#: The column a row's corpus id is in, per format.
ID_COLUMN = {"messages": "id", "alpaca": "id", "sharegpt": "id", "dpo": "id", "rl": ("extra_info", "id")}


def _meta(item: ExportItem) -> dict:
    m = item.meta
    return {"task": item.task, "task_name": item.task_name, "language": m.get("language"), "license": m.get("license"),
            "source": m.get("source"), "speedup": m.get("speedup")}


def sft_row(fmt: str, item: ExportItem, split: str, index: int) -> dict:
    """One example in ``messages``, ``alpaca``, ``sharegpt`` or ``rl`` form."""
    if fmt == "messages":
        return {"id": item.id, "messages": [{"role": "system", "content": item.system},
                                            {"role": "user", "content": item.prompt},
                                            {"role": "assistant", "content": item.response}], **_meta(item)}
    if fmt == "alpaca":
        return {"id": item.id, "instruction": item.prompt, "input": "", "output": item.response,
                "system": item.system, **_meta(item)}
    if fmt == "sharegpt":
        return {"id": item.id, "conversations": [{"from": "human", "value": item.prompt},
                                                 {"from": "gpt", "value": item.response}],
                "system": item.system, **_meta(item)}
    if fmt == "rl":
        truth = item.reference if item.task != "qa" else item.response
        return {"data_source": f"amdkernelvault/{item.task}",
                "prompt": [{"role": "system", "content": item.system}, {"role": "user", "content": item.prompt}],
                "ability": "qa" if item.task == "qa" else "kernel",
                "reward_model": {"style": "rule", "ground_truth": truth or ""},
                "extra_info": {"split": split, "index": index, "id": item.id, "task_name": item.task_name,
                               "language": item.meta.get("language"), "reference_kernel": item.response}}
    raise ValueError(f"{fmt!r} is not a per-example format")


def dpo_pair(chosen: ExportItem, rejected_text: str, rejected_id: str, preference: str,
             margin: Optional[float]) -> dict:
    """One preference pair: ``chosen``'s response over ``rejected_text`` for ``chosen``'s prompt."""
    return {"id": f"{chosen.id}>{rejected_id}", "prompt": chosen.prompt, "chosen": chosen.response,
            "rejected": rejected_text, "system": chosen.system, "chosen_id": chosen.id, "rejected_id": rejected_id,
            "preference": preference, "margin": margin, **_meta(chosen)}


def table(fmt: str, rows: Sequence[dict]) -> pa.Table:
    return pa.Table.from_pylist(list(rows), schema=SCHEMAS[fmt])


def dataset_info(fmt: str, name: str, files: dict[str, str]) -> dict:
    """LLaMA-Factory ``dataset_info.json`` entries (one per split) for ``alpaca``, ``sharegpt`` and ``dpo``."""
    out = {}
    for split, path in files.items():
        entry: dict = {"file_name": path}
        if fmt == "alpaca":
            entry.update(formatting="alpaca", columns={"prompt": "instruction", "query": "input", "response": "output",
                                                       "system": "system"})
        elif fmt == "sharegpt":
            entry.update(formatting="sharegpt", columns={"messages": "conversations", "system": "system"},
                         tags={"role_tag": "from", "content_tag": "value", "user_tag": "human",
                               "assistant_tag": "gpt"})
        elif fmt == "dpo":
            entry.update(formatting="alpaca", ranking=True,
                         columns={"prompt": "prompt", "chosen": "chosen", "rejected": "rejected", "system": "system"})
        else:
            return {}
        out[f"{name}_{split}"] = entry
    return out
