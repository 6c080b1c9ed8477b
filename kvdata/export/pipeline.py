"""``export``: a built corpus in, one training set out (steps: read, filter, render, measure,
split, format, write), with every input row accounted for.

Output folder: ``data/<split>-00000-of-00001.parquet`` (what ``datasets.load_dataset(folder)``
reads, also named in the card's YAML ``configs``), ``dataset_info.json`` (LLaMA-Factory, for
alpaca / sharegpt / dpo), ``accounting.json`` (input rows = exported + dropped by reason),
``lengths.png`` and the README.md card.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from kvdata.export.filters import RowFilters
from kvdata.export.formats import FORMATS, dataset_info, dpo_pair, sft_row, table
from kvdata.export.split import SPLITS, SplitRow, assign_splits, crossings, groups, row_keys
from kvdata.export.tasks import SYSTEM, TASKS, load_template, skip_reason, to_item


@dataclass
class ExportOptions:
    task: str
    format: str = "messages"
    val_fraction: float = 0.0
    test_fraction: float = 0.0
    seed: str = ""
    template: Optional[str] = None
    system: str = SYSTEM
    dpo_margin: float = 0.0            # hip2hip DPO: chosen only when speedup >= 1 + margin
    tokenizer: Optional[str] = None
    max_tokens: Optional[int] = None


@dataclass
class ExportResult:
    out: str
    task: str
    format: str
    input_rows: int
    exported: dict[str, int]                       # split -> rows (pairs for dpo)
    examples: int                                  # training examples before pairing
    dropped: dict[str, int]                        # reason -> input rows
    overlap_by_measure: dict[str, int]
    lengths: dict[str, dict]                       # split -> {unit, n, mean, p50, p95, max}
    crossings: int
    groups: int = 0                                # task groups (what the split assigns)
    files: list[str] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def reconciles(self) -> bool:
        used = self.examples + sum(self.dropped.values())
        return used == self.input_rows


def _rows(data: str, configs: Sequence[str], progress: bool) -> tuple[list[dict], list[str]]:
    """The rows of the task's configs: a built folder's shards read directly (pyarrow; no datasets cache
    that could hand back an earlier build's rows), a Hub id through ``datasets``."""
    from kvdata.hub import load_config, shard_files

    rows, found = [], []
    local = Path(data).is_dir()
    for config in configs:
        if local:
            shards = shard_files(data, config)
            if not shards:
                continue
            import pyarrow.parquet as pq

            for shard in shards:
                rows.extend(pq.read_table(shard).to_pylist())
        else:
            import datasets

            if not progress:
                datasets.disable_progress_bars()
            try:
                rows.extend(load_config(data, config).to_list())
            except (FileNotFoundError, ValueError):
                continue
        found.append(config)
    if not found:
        raise FileNotFoundError(f"{data} has none of the configs this task reads ({', '.join(configs)})")
    return rows, found


def _lengths(texts: list[str], tokenizer) -> list[int]:
    if tokenizer is None:
        return [len(t) for t in texts]
    return [len(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"]]


def export(data: str, out: str | Path, options: ExportOptions, filters: Optional[RowFilters] = None,
           command: str = "", progress: bool = True) -> ExportResult:
    """Export one task in one format from ``data`` (a built folder or a Hub id) into ``out``."""
    if options.task not in TASKS:
        raise ValueError(f"unknown task {options.task!r}; expected one of {', '.join(TASKS)}")
    if options.format not in FORMATS:
        raise ValueError(f"unknown format {options.format!r}; expected one of {', '.join(FORMATS)}")
    if options.max_tokens is not None and options.tokenizer is None:
        raise ValueError("--max-tokens needs --tokenizer (lengths are otherwise characters)")
    task = TASKS[options.task]
    dpo = options.format == "dpo"
    if dpo and task.name not in ("hip2hip",) and (filters is None or filters.verdicts is None):
        raise ValueError("dpo pairs come from hip2hip speedups, or from --verified results (a correct variant over "
                         "an incorrect one of the same task)")
    filters = filters or RowFilters()
    template = load_template(task.name, options.template)
    rows, configs = _rows(data, task.configs, progress)
    dropped: Counter = Counter()
    items, rows_by_id = [], {}
    from tqdm.auto import tqdm

    for row in tqdm(rows, desc=f"export {task.name}", unit="row", disable=not progress, mininterval=0.5):
        reason = skip_reason(task, row)
        if reason is None:
            reason = filters.reason(row, need_correct=not dpo)
        if reason is not None:
            dropped[f"{reason}"] += 1
            continue
        items.append(to_item(task, row, template, options.system))
        rows_by_id[str(row["id"])] = row

    tokenizer = None
    if options.tokenizer:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(options.tokenizer, local_files_only=True)
    lengths = _lengths([it.system + it.prompt + it.response for it in items], tokenizer)
    if options.max_tokens is not None:
        keep = [n <= options.max_tokens for n in lengths]
        dropped["too_long"] += sum(not k for k in keep)
        items = [it for it, k in zip(items, keep) if k]
        lengths = [n for n, k in zip(lengths, keep) if k]

    split_rows = [SplitRow(it.id, row_keys(it.task_name, it.reference)) for it in items]
    named = groups(split_rows)
    split = assign_splits(split_rows, options.val_fraction, options.test_fraction, options.seed, named)
    crossed = crossings(split_rows, split)
    if crossed:                                    # cannot happen by construction; checked, not assumed
        raise RuntimeError(f"task groups cross splits: {sorted(crossed)[:5]}")

    by_split: dict[str, list[dict]] = {s: [] for s in SPLITS}
    if dpo:
        by_split, unpaired = _dpo_rows(items, split, rows_by_id, filters, options.dpo_margin)
        dropped.update(unpaired)
        n_examples = len(items) - sum(unpaired.values())
    else:
        for it in items:
            s = split[it.id]
            by_split[s].append(sft_row(options.format, it, s, len(by_split[s])))
        n_examples = len(items)

    if not any(by_split.values()):
        raise ValueError(f"nothing to export: all {len(rows)} rows of {', '.join(configs)} were dropped "
                         f"({', '.join(f'{k} {v}' for k, v in sorted(dropped.items())) or 'no rows'})")
    out = Path(out)
    (out / "data").mkdir(parents=True, exist_ok=True)
    import pyarrow.parquet as pq

    files = {}
    for s, part in by_split.items():
        if part:
            path = f"data/{s}-00000-of-00001.parquet"
            pq.write_table(table(options.format, part), out / path)
            files[s] = path
    unit = "tokens" if tokenizer is not None else "characters"
    length_stats = {}
    for s in SPLITS:
        ns = np.array([n for it, n in zip(items, lengths) if split[it.id] == s])
        if ns.size:
            length_stats[s] = {"unit": unit, "n": int(ns.size), "mean": float(ns.mean()),
                               "p50": float(np.percentile(ns, 50)), "p95": float(np.percentile(ns, 95)),
                               "max": int(ns.max())}
    result = ExportResult(str(out), task.name, options.format, len(rows),
                          {s: len(by_split[s]) for s in SPLITS if by_split[s]}, n_examples, dict(dropped),
                          dict(filters.overlap_by_measure), length_stats, len(crossed),
                          len(set(named.values())), sorted(files.values()),
                          {"data": str(data), "configs": ",".join(configs),
                           **({"audit": filters.audit.source} if filters.audit else {}),
                           **({"verified": filters.verdicts.source} if filters.verdicts else {})})
    info = dataset_info(options.format, f"kvdata_{task.name.replace('-', '_')}", files)
    if info:
        (out / "dataset_info.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        result.files.append("dataset_info.json")
    (out / "accounting.json").write_text(json.dumps(asdict(result) | {"reconciles": result.reconciles},
                                                    indent=2) + "\n", encoding="utf-8")
    from kvdata.export.card import write_card

    write_card(result, options, out, lengths, [split[it.id] for it in items], command)
    return result


def _dpo_rows(items, split, rows_by_id, filters: RowFilters, margin: float):
    """Preference pairs per split, and the examples that made none (by reason)."""
    by_split: dict[str, list[dict]] = {s: [] for s in SPLITS}
    unpaired: Counter = Counter()
    if filters.verdicts is not None:               # a correct variant over an incorrect one of the same task
        tasks: dict[str, list] = {}
        for it in items:
            tasks.setdefault(it.task_name or it.id, []).append(it)
        for name, group in tasks.items():
            good = sorted((it for it in group if filters.verdicts.by_id[it.id][0]), key=lambda it: it.id)
            bad = sorted((it for it in group if not filters.verdicts.by_id[it.id][0]), key=lambda it: it.id)
            if not good or not bad:
                unpaired["dpo_no_counterpart"] += len(group)
                continue
            for i, loser in enumerate(bad):
                winner = good[i % len(good)]
                by_split[split[winner.id]].append(dpo_pair(winner, loser.response, loser.id, "correct_over_incorrect",
                                                           None))
        return by_split, unpaired
    for it in items:                               # hip2hip: the optimised kernel over its baseline
        speedup = it.meta.get("speedup")
        if not speedup or speedup < 1.0 + margin:
            unpaired["dpo_below_margin"] += 1
            continue
        base = rows_by_id[it.id]["baseline_kernel_code"]
        by_split[split[it.id]].append(dpo_pair(it, base, f"{it.id}:baseline", "faster_over_baseline", speedup - 1.0))
    return by_split, unpaired
