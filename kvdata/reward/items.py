"""``RewardItem``: one completion and the task it answers, read from the columns ``kvdata export --format rl``
writes (``kvdata.export.formats``: ``data_source``, ``reward_model.ground_truth``, ``extra_info``).

``data_source`` is ``amdkernelvault/<task>``. The kernel tasks and their languages: ``torch2triton`` (Triton),
``torch2hip`` and ``hip2hip`` (HIP). ``ground_truth`` is the PyTorch reference the verifier runs against;
``extra_info`` gives the task's corpus ``id``, ``task_name`` and ``language``. A HIP task is judged by the ROCm
backend only with the reference's functional form (``pytorch_functional_code``), which the rl export does not carry
today: when ``extra_info`` has it, it is used; without it a HIP completion gets the verdict of the compile-only
backend at most (see the README).

A data source that is not a kernel task (``qa``, ``triton-complete``), or a row without a reference, is a
configuration error (``UnsupportedTask``, a ValueError): the trainer should not be scoring it with this reward.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

PREFIX = "amdkernelvault/"
TASK_LANGUAGES = {"torch2triton": "triton", "torch2hip": "hip", "hip2hip": "hip"}


class UnsupportedTask(ValueError):
    """The row is not a kernel task this reward can score (the message says which and why)."""


@dataclass(frozen=True)
class RewardItem:
    completion: Any                       # a string or a message list (TRL's conversational form)
    reference: str
    language: str
    task: str
    task_id: Optional[str] = None
    task_name: Optional[str] = None
    functional_code: Optional[str] = None


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def make_item(completion: Any, data_source: Optional[str], ground_truth: Any, extra_info: Any = None) -> RewardItem:
    """The item for one completion of an rl-export row (veRL's ``compute_score`` arguments)."""
    task = str(data_source or "")
    task = task[len(PREFIX):] if task.startswith(PREFIX) else task
    extra = extra_info if isinstance(extra_info, Mapping) else {}
    language = TASK_LANGUAGES.get(task)
    if language is None:
        lang = str(extra.get("language") or "").lower()
        if not data_source and lang in ("triton", "hip"):
            language, task = lang, f"torch2{lang}"
        else:
            raise UnsupportedTask(f"data_source {data_source!r} is not a kernel task kvdata.reward scores "
                                  f"(expected {', '.join(PREFIX + t for t in TASK_LANGUAGES)})")
    if isinstance(ground_truth, Mapping):               # a whole reward_model struct
        ground_truth = ground_truth.get("ground_truth")
    if not isinstance(ground_truth, str) or not ground_truth.strip():
        raise UnsupportedTask(f"task {extra.get('id') or '?'} ({data_source}) has no PyTorch reference in "
                              "reward_model.ground_truth")
    return RewardItem(completion=completion, reference=ground_truth, language=language, task=task,
                      task_id=_str_or_none(extra.get("id")), task_name=_str_or_none(extra.get("task_name")),
                      functional_code=_str_or_none(extra.get("pytorch_functional_code")))


def items_from_columns(completions: list, columns: Mapping[str, Any]) -> list[RewardItem]:
    """The items of a TRL reward call: one per completion, with the row's ``data_source``, ``reward_model`` and
    ``extra_info`` columns (TRL repeats each column to match the completions)."""
    n = len(completions)
    for name in ("reward_model",):
        if name not in columns:
            raise UnsupportedTask(f"the dataset has no {name!r} column: score a `kvdata export --format rl` "
                                  f"dataset (its columns: data_source, prompt, ability, reward_model, extra_info)")
    sources = columns.get("data_source") or [None] * n
    truths, extras = columns["reward_model"], columns.get("extra_info") or [None] * n
    if not (len(sources) == len(truths) == len(extras) == n):
        raise ValueError(f"{n} completions but {len(truths)} reward_model values: the columns must be repeated "
                         "per completion, as TRL does")
    return [make_item(c, s, _field(t, "ground_truth") if not isinstance(t, str) else t, e)
            for c, s, t, e in zip(completions, sources, truths, extras)]


def _str_or_none(v: Any) -> Optional[str]:
    return None if v is None else str(v)


def read_rl_tasks(folder) -> dict[str, dict]:
    """``extra_info.id`` -> its row (``data_source``, ``reward_model``, ``extra_info``) for every split of a
    ``kvdata export --format rl`` folder (pyarrow only)."""
    from pathlib import Path

    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = Path(folder)
    files = sorted((folder / "data").glob("*.parquet")) or sorted(folder.glob("*.parquet"))
    if not files:
        raise ValueError(f"{folder}: no parquet files; give a `kvdata export --format rl` folder")
    tasks: dict[str, dict] = {}
    for file in files:
        try:
            table = pq.read_table(file, columns=["data_source", "reward_model", "extra_info"])
        except (pa.ArrowException, KeyError, OSError) as e:
            raise ValueError(f"{file}: not an rl export (data_source, reward_model, extra_info): "
                             f"{str(e).splitlines()[0][:150]}") from None
        for row in table.to_pylist():
            task_id = (row.get("extra_info") or {}).get("id")
            if task_id is not None:
                tasks.setdefault(str(task_id), row)
    return tasks


def read_completions(path, tasks: Mapping[str, dict]) -> list[RewardItem]:
    """The items of a completions file (JSONL): ``{"id": <task id in tasks>, "completion": <text or message
    list>}``, or a row carrying its own ``data_source``, ``reward_model`` (or ``ground_truth``) and
    ``extra_info``. A line that is not such a row is a ValueError naming it."""
    import json

    items = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{where}: not JSON ({e.msg})") from None
            if not isinstance(row, dict) or "completion" not in row:
                raise ValueError(f"{where}: expected an object with a 'completion' field")
            task_id = row.get("id") if row.get("id") is not None else row.get("task_id")
            if "data_source" in row:
                truth = row.get("reward_model") or row.get("ground_truth")
                items.append(make_item(row["completion"], row["data_source"], truth, row.get("extra_info")))
            elif task_id is not None and str(task_id) in tasks:
                task = tasks[str(task_id)]
                items.append(make_item(row["completion"], task["data_source"], task["reward_model"],
                                       task["extra_info"]))
            elif not tasks:
                raise ValueError(f"{where}: the row names task {task_id!r} but has no data_source; give --data, "
                                 "the `kvdata export --format rl` folder it comes from")
            else:
                raise ValueError(f"{where}: task {task_id!r} is not in the rl export")
    if not items:
        raise ValueError(f"{path}: no completions")
    return items
