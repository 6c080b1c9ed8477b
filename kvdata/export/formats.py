"""Export formats: what one training example (or preference pair) looks like on disk.

- ``messages``: ``messages`` = system / user / assistant turns (the ``datasets`` and TRL SFT
  convention).
- ``alpaca``: ``instruction`` / ``input`` (always present, empty) / ``output`` / ``system``;
  ``sharegpt``: ``conversations`` of ``{from, value}`` (human, gpt) and ``system``. Both with the
  ``dataset_info.json`` entry LLaMA-Factory reads.
- ``dpo``, in one of two forms (``DPO_FORMS``), with both rows' ids and the preference's reason:
  ``conversational`` (the default): ``prompt`` = system + user messages, ``chosen`` / ``rejected`` = one
  assistant message each, TRL's conversational preference type, to which TRL applies the chat template (with
  the system message) just as it does to ``messages`` for SFT; ``standard``: ``prompt`` / ``chosen`` /
  ``rejected`` strings and a ``system`` column, for LLaMA-Factory's alpaca ``ranking`` entry (TRL reads no
  ``system`` column and applies no chat template to strings, so SFT and DPO would see different inputs).
- ``rl``: veRL's RL parquet: ``data_source``, ``prompt`` (a chat list), ``ability``,
  ``reward_model: {style, ground_truth}`` (the reference a verifier-based reward runs against),
  ``extra_info: {split, index, id, task_name, language, reference_kernel}``; every struct field a
  string but ``index`` (int64), since veRL's reader needs one type per field across rows.

Every row keeps its corpus ``id``. Schemas are explicit so that a column that happens to be all
null in one split still has its type.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
import pyarrow as pa

from kvdata.export.tasks import ExportItem

FORMATS = ("messages", "alpaca", "sharegpt", "dpo", "rl")
#: The forms of ``dpo``; the first is the default (see the module docstring for why).
DPO_FORMS = ("conversational", "standard")

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
    "dpo": pa.schema([("id", pa.string()), ("prompt", pa.list_(_MSG)), ("chosen", pa.list_(_MSG)),
                      ("rejected", pa.list_(_MSG)), ("chosen_id", pa.string()), ("rejected_id", pa.string()),
                      ("preference", pa.string()), ("margin", pa.float64())] + _META),
    "dpo-standard": pa.schema([("id", pa.string()), ("prompt", pa.string()), ("chosen", pa.string()),
                               ("rejected", pa.string()), ("system", pa.string()), ("chosen_id", pa.string()),
                               ("rejected_id", pa.string()), ("preference", pa.string()),
                               ("margin", pa.float64())] + _META),
    "rl": pa.schema([("data_source", pa.string()), ("prompt", pa.list_(_MSG)), ("ability", pa.string()),
                     ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
                     ("extra_info", pa.struct([("split", pa.string()), ("index", pa.int64()), ("id", pa.string()),
                                               ("task_name", pa.string()), ("language", pa.string()),
                                               ("reference_kernel", pa.string())]))]),
}

def schema_of(fmt: str, dpo_form: str = DPO_FORMS[0]) -> pa.Schema:
    """The parquet schema an export in ``fmt`` (and, for ``dpo``, ``dpo_form``) writes."""
    return SCHEMAS["dpo-standard" if fmt == "dpo" and dpo_form == "standard" else fmt]


#: Where each format keeps the corpus ids its rows came from (a column, or a struct's field).
CORPUS_ID_FIELDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "messages": (("id",),), "alpaca": (("id",),), "sharegpt": (("id",),),
    "dpo": (("chosen_id",), ("rejected_id",)), "rl": (("extra_info", "id"),)}


def corpus_ids(fmt: str, table: pa.Table) -> list[Optional[str]]:
    """The corpus ids an exported table's rows came from (both sides of a DPO pair)."""
    ids: list[Optional[str]] = []
    for path in CORPUS_ID_FIELDS[fmt]:
        column = table.column(path[0]).combine_chunks()
        for name in path[1:]:
            column = column.field(name)
        ids.extend(column.to_pylist())
    return ids


@dataclass(frozen=True)
class PreferencePair:
    """``chosen``'s response preferred over ``rejected_text`` (the row ``rejected_id``) for ``chosen``'s prompt;
    ``preference`` says why, ``margin`` by how much (speedup - 1; None for correct over incorrect)."""

    chosen: ExportItem
    rejected_text: str
    rejected_id: str
    preference: str
    margin: Optional[float]


#: Most bytes one string array of a batch may hold (its offsets are int32).
MAX_BATCH_BYTES = 2**31 - 1


def _validity(values) -> Optional[pa.Buffer]:
    """Arrow's validity bitmap of ``values`` (None where none is null)."""
    if all(v is not None for v in values):
        return None
    present = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
    return pa.py_buffer(np.packbits(present, bitorder="little"))


def _strings(values: Sequence[Optional[str]]) -> pa.Array:
    """A string array made from its buffers: the UTF-8 bytes joined, int32 offsets from their lengths; a
    column of one repeated value (a task's system prompt, the split) is encoded once.
    (``pa.array`` on Python lists is slower here and imports pandas on first use.)"""
    first = values[0] if len(values) else None
    if first is not None and all(v == first for v in values):
        data = first.encode("utf-8")
        encoded, offsets = [data] * len(values), np.arange(len(values) + 1, dtype=np.int64) * len(data)
    else:
        encoded = [b"" if v is None else v.encode("utf-8") for v in values]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    if offsets[-1] > MAX_BATCH_BYTES:
        raise ValueError(f"a batch of {len(encoded)} texts holds {offsets[-1]} bytes, more than one Arrow string "
                         f"array can; write smaller batches")
    return pa.StringArray.from_buffers(len(encoded), pa.py_buffer(offsets.astype(np.int32)),
                                       pa.py_buffer(b"".join(encoded)), _validity(values))


def _floats(values: Sequence[Optional[float]]) -> pa.Array:
    """A float64 array; None is null, NaN stays NaN."""
    data = np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    return pa.Array.from_buffers(pa.float64(), len(values), [_validity(values), pa.py_buffer(data)])


def _numbers(values: np.ndarray, type_: pa.DataType) -> pa.Array:
    return pa.Array.from_buffers(type_, len(values), [None, pa.py_buffer(np.ascontiguousarray(values))])


def _chat(turns: Sequence[tuple[str, list[str]]], n: int) -> pa.Array:
    """A list<struct<role, content>> column of ``n`` rows, each the same roles in order, built column-wise."""
    k = len(turns)
    roles = [role for role, _ in turns] * n
    contents: list = [None] * (k * n)
    for j, (_, texts) in enumerate(turns):
        contents[j::k] = texts
    turn = pa.StructArray.from_arrays([_strings(roles), _strings(contents)], fields=list(_MSG))
    return pa.ListArray.from_arrays(_numbers(np.arange(0, k * n + 1, k, dtype=np.int32), pa.int32()), turn,
                                    type=pa.list_(_MSG))


def _meta_columns(items: Sequence[ExportItem]) -> dict[str, pa.Array]:
    return {"task": _strings([it.task for it in items]), "task_name": _strings([it.task_name for it in items]),
            "language": _strings([it.meta.get("language") for it in items]),
            "license": _strings([it.meta.get("license") for it in items]),
            "source": _strings([it.meta.get("source") for it in items]),
            "speedup": _floats([it.meta.get("speedup") for it in items])}


def example_table(fmt: str, items: Sequence[ExportItem], split: str, start: int = 0) -> pa.Table:
    """A batch of one split's examples in ``messages``, ``alpaca``, ``sharegpt`` or ``rl`` form, built column by
    column; ``start``: the split's index of the first (veRL's ``extra_info.index``)."""
    n = len(items)
    ids = _strings([it.id for it in items])
    prompts = [it.prompt for it in items]
    responses = [it.response for it in items]
    systems = [it.system for it in items]
    if fmt == "messages":
        cols = {"id": ids, "messages": _chat([("system", systems), ("user", prompts), ("assistant", responses)], n)}
    elif fmt == "alpaca":
        cols = {"id": ids, "instruction": _strings(prompts), "input": _strings([""] * n),
                "output": _strings(responses), "system": _strings(systems)}
    elif fmt == "sharegpt":
        turn = pa.struct([("from", pa.string()), ("value", pa.string())])
        values = [None] * (2 * n)
        values[0::2], values[1::2] = prompts, responses
        conv = pa.StructArray.from_arrays([_strings(["human", "gpt"] * n), _strings(values)], fields=list(turn))
        cols = {"id": ids, "conversations": pa.ListArray.from_arrays(
            _numbers(np.arange(0, 2 * n + 1, 2, dtype=np.int32), pa.int32()), conv, type=pa.list_(turn)),
            "system": _strings(systems)}
    elif fmt == "rl":
        schema = SCHEMAS["rl"]
        truth = [(it.response if it.task == "qa" else it.reference) or "" for it in items]
        reward = pa.StructArray.from_arrays([_strings(["rule"] * n), _strings(truth)],
                                            fields=list(schema.field("reward_model").type))
        extra = pa.StructArray.from_arrays(
            [_strings([split] * n), _numbers(np.arange(start, start + n, dtype=np.int64), pa.int64()), ids,
             _strings([it.task_name for it in items]), _strings([it.meta.get("language") for it in items]),
             _strings(responses)], fields=list(schema.field("extra_info").type))
        cols = {"data_source": _strings([f"amdkernelvault/{it.task}" for it in items]),
                "prompt": _chat([("system", systems), ("user", prompts)], n),
                "ability": _strings(["qa" if it.task == "qa" else "kernel" for it in items]),
                "reward_model": reward, "extra_info": extra}
        return pa.Table.from_pydict(cols, schema=schema)
    else:
        raise ValueError(f"{fmt!r} is not a per-example format")
    return pa.Table.from_pydict(cols | _meta_columns(items), schema=SCHEMAS[fmt])


def pair_table(pairs: Sequence[PreferencePair], split: str = "", start: int = 0,
               form: str = DPO_FORMS[0]) -> pa.Table:
    """A batch of preference pairs in ``dpo`` form (``conversational`` message lists or ``standard`` strings
    with a ``system`` column): both rows' ids, the preference and its margin."""
    if form not in DPO_FORMS:
        raise ValueError(f"unknown dpo form {form!r}; expected one of {', '.join(DPO_FORMS)}")
    n, chosen = len(pairs), [p.chosen for p in pairs]
    prompts, systems = [c.prompt for c in chosen], [c.system for c in chosen]
    wins, losses = [c.response for c in chosen], [p.rejected_text for p in pairs]
    if form == "conversational":
        cols = {"prompt": _chat([("system", systems), ("user", prompts)], n),
                "chosen": _chat([("assistant", wins)], n), "rejected": _chat([("assistant", losses)], n)}
    else:
        cols = {"prompt": _strings(prompts), "chosen": _strings(wins), "rejected": _strings(losses),
                "system": _strings(systems)}
    cols = {"id": _strings([f"{p.chosen.id}>{p.rejected_id}" for p in pairs]), **cols,
            "chosen_id": _strings([c.id for c in chosen]), "rejected_id": _strings([p.rejected_id for p in pairs]),
            "preference": _strings([p.preference for p in pairs]),
            "margin": _floats([p.margin for p in pairs])}
    return pa.Table.from_pydict(cols | _meta_columns(chosen), schema=schema_of("dpo", form))


def writes_dataset_info(fmt: str, dpo_form: str = DPO_FORMS[0]) -> bool:
    """Whether an export in ``fmt`` gets LLaMA-Factory entries: alpaca, sharegpt and standard dpo. (LLaMA-Factory's
    ranking entries take ``chosen`` / ``rejected`` as strings or single message dicts, never message lists.)"""
    return fmt in ("alpaca", "sharegpt") or (fmt == "dpo" and dpo_form == "standard")


def dataset_info(fmt: str, name: str, files: dict[str, str], dpo_form: str = DPO_FORMS[0]) -> dict:
    """LLaMA-Factory ``dataset_info.json`` entries, ``<name>_<split>`` (one per split), for ``alpaca``,
    ``sharegpt`` and standard ``dpo`` (read at hiyouga/LLaMA-Factory ff6d4d1, data/README.md)."""
    if not writes_dataset_info(fmt, dpo_form):
        return {}
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
