"""``export``: a built corpus in, one training set out (steps: read, filter, render, measure,
split, format, write), with every input row accounted for.

Output folder: ``data/<split>-00000-of-00001.parquet`` (what ``datasets.load_dataset(folder)``
reads, also named in the card's YAML ``configs``), ``dataset_info.json`` (LLaMA-Factory, for
alpaca / sharegpt / standard dpo; entries ``<name>_<split>``, the name unique per export folder),
``accounting.json`` (input rows = exported + dropped by reason), ``lengths.png`` and the README.md
card. Neither the card nor ``accounting.json`` holds a path of this machine (``kvdata.public``).
"""
from __future__ import annotations

import functools
import json
import math
import re
import shlex
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from kvdata.export.filters import RowFilters
from kvdata.normalize import normalize_code
from kvdata.export.formats import (DPO_FORMS, FORMATS, PreferencePair, corpus_ids, dataset_info, example_table,
                                   pair_table, schema_of, writes_dataset_info)
from kvdata.export.lengths import basis as length_basis
from kvdata.export.lengths import example_lengths, pair_lengths
from kvdata.hub import CorruptShard
from kvdata.public import public_path
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
    keep_splits: Optional[str] = None      # an earlier export: its rows stay on the side they were on
    dpo_form: str = DPO_FORMS[0]           # dpo: "conversational" (TRL, the default) or "standard" (LLaMA-Factory)
    name: Optional[str] = None             # LLaMA-Factory entry names <name>_<split> (default: default_name)


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
    sources: dict[str, str] = field(default_factory=dict)      # option -> value, paths in public form
    dpo_form: Optional[str] = None                 # dpo only: conversational or standard
    length_basis: str = ""                         # what a length counts (kvdata.export.lengths.basis)
    entries: list[str] = field(default_factory=list)           # LLaMA-Factory dataset_info.json entry names

    @property
    def reconciles(self) -> bool:
        used = self.examples + sum(self.dropped.values())
        return used == self.input_rows


#: The columns an export reads (besides the template's own): ids, grouping, responses, metadata.
READ_COLUMNS = ("id", "task_name", "symbol", "pytorch_code", "kernel_code", "baseline_kernel_code", "question",
                "answer", "language", "license", "source", "library", "subset")


def _rows(data: str, configs: Sequence[str], columns: Sequence[str], progress: bool) -> tuple[list[dict], list[str]]:
    """The rows of the task's configs (only ``columns`` of them) and the configs found: a built folder's
    shards read directly, a Hub id through ``datasets``."""
    local = Path(data).is_dir()
    read = _read_shards if local else _read_with_datasets
    rows, found, errors = [], [], []
    for config in configs:
        try:
            part = read(data, config, columns, progress)
        except CorruptShard:
            raise
        except (FileNotFoundError, ValueError) as e:
            errors.append(f"{config}: {e}")
            continue
        if part is not None:
            rows.extend(part)
            found.append(config)
    if not found:
        where = "" if local else " (not a local folder, so read as a Hub dataset id)"
        raise FileNotFoundError(f"{data}{where} has none of the configs this task reads ({', '.join(configs)})"
                                + (f"; {'; '.join(errors)[:500]}" if errors else ""))
    return rows, found


def _read_shards(folder: str, config: str, columns: Sequence[str], progress: bool) -> Optional[list[dict]]:
    """A built folder's config read with pyarrow (no datasets cache that could hand back an earlier
    build's rows); None if the folder has no such config."""
    import pyarrow.parquet as pq

    from kvdata.hub import check_shards, shard_files

    shards = shard_files(folder, config)
    if not shards:
        return None
    check_shards(Path(folder), config)             # a corrupt shard stops the export, naming it
    rows: list[dict] = []
    for shard in shards:
        f = pq.ParquetFile(shard)
        present = set(f.schema_arrow.names)
        table = f.read(columns=[c for c in dict.fromkeys(columns) if c in present])
        names = table.schema.names                  # column-wise to Python, then zipped: faster than to_pylist
        rows.extend(dict(zip(names, values)) for values in zip(*(table.column(n).to_pylist() for n in names)))
    return rows


def _read_with_datasets(source: str, config: str, columns: Sequence[str], progress: bool) -> Optional[list[dict]]:
    """A config of a Hub dataset (or anything ``datasets.load_dataset`` reads) through ``datasets``
    (``FileNotFoundError`` / ``ValueError`` if it has no such config)."""
    import datasets

    from kvdata.hub import load_config

    if not progress:
        datasets.disable_progress_bars()
    ds = load_config(source, config)
    return ds.select_columns([c for c in columns if c in ds.column_names]).to_list()


#: What a LLaMA-Factory entry name may hold (its ``dataset:`` argument is a comma-separated list of names).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def default_name(out: str | Path, task: str, fmt: str) -> str:
    """The LLaMA-Factory entry name of an export when ``--name`` is not given: ``kvdata_<folder>_<task>_<format>``
    (the export folder's name makes two exports of one run distinct; task and format keep exports of the same
    folder name apart)."""
    folder = re.sub(r"[^A-Za-z0-9]+", "_", Path(out).resolve().name).strip("_") or "export"
    return f"kvdata_{folder}_{task.replace('-', '_')}_{fmt}"


def _too_long_pairs(by_split: dict[str, list], lengths: dict[str, list[int]], max_tokens: int):
    """Drop the pairs longer than ``max_tokens``; returns the kept pairs and lengths per split and how many
    corpus rows are now in no pair (a row in a kept pair still counts as exported)."""
    def rows(pairs):
        return {p.chosen.id for p in pairs} | {p.rejected_id for p in pairs if not p.rejected_id.endswith(":baseline")}

    before = rows(p for part in by_split.values() for p in part)
    kept = {s: [(p, n) for p, n in zip(by_split[s], lengths[s]) if n <= max_tokens] for s in by_split}
    by_split = {s: [p for p, _ in kept[s]] for s in kept}
    lengths = {s: [n for _, n in kept[s]] for s in kept}
    return by_split, lengths, len(before - rows(p for part in by_split.values() for p in part))


def _public_command(command: str) -> str:
    """The command line with every absolute path in its public form (``kvdata.public.public_path``)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    out = []
    for w in words:
        key, eq, value = w.partition("=") if w.startswith("--") else ("", "", w)
        out.append(f"{key}{eq}{public_path(value) if value.startswith(('/', '~')) else value}")
    return shlex.join(out)


def export(data: str, out: str | Path, options: ExportOptions, filters: Optional[RowFilters] = None,
           command: str = "", progress: bool = True) -> ExportResult:
    """Export one task in one format from ``data`` (a built folder or a Hub id) into ``out``."""
    if options.task not in TASKS:
        raise ValueError(f"unknown task {options.task!r}; expected one of {', '.join(TASKS)}")
    if options.format not in FORMATS:
        raise ValueError(f"unknown format {options.format!r}; expected one of {', '.join(FORMATS)}")
    if not (isinstance(options.dpo_margin, (int, float)) and math.isfinite(options.dpo_margin)
            and options.dpo_margin >= 0):
        raise ValueError(f"--dpo-margin must be a finite number >= 0 (got {options.dpo_margin}): a negative one "
                         f"would prefer slower kernels")
    if options.max_tokens is not None and options.tokenizer is None:
        raise ValueError("--max-tokens needs --tokenizer (lengths are otherwise characters)")
    if options.dpo_form not in DPO_FORMS:
        raise ValueError(f"unknown dpo form {options.dpo_form!r}; expected one of {', '.join(DPO_FORMS)}")
    if options.name is not None:
        if not writes_dataset_info(options.format, options.dpo_form):
            raise ValueError(f"--name names LLaMA-Factory's dataset_info.json entries, which --format "
                             f"{options.format}{' (conversational)' if options.format == 'dpo' else ''} does not "
                             f"write (alpaca, sharegpt and --dpo-form standard do)")
        if not _NAME.fullmatch(options.name):
            raise ValueError(f"--name {options.name!r}: letters, digits, '_', '.' and '-' only (LLaMA-Factory's "
                             f"dataset argument is a comma-separated list of names)")
    task = TASKS[options.task]
    dpo = options.format == "dpo"
    if dpo and task.name not in ("hip2hip",) and (filters is None or filters.verdicts is None):
        raise ValueError("dpo pairs come from hip2hip speedups, or from --verified results (a correct variant over "
                         "an incorrect one of the same task)")
    filters = filters or RowFilters()
    template = load_template(task.name, options.template)
    out = Path(out)
    _check_out(out, data)
    columns = READ_COLUMNS + template.names + (("verification",) if task.name == "hip2hip" else ())
    rows, configs = _rows(data, task.configs, columns, progress)
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
        if dpo:
            rows_by_id[str(row["id"])] = row

    tokenizer = None
    if options.tokenizer:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(options.tokenizer, local_files_only=True)
    lengths = [] if dpo else example_lengths(options.format, items, tokenizer)   # dpo: per pair, once paired
    if options.max_tokens is not None and not dpo:
        keep = [n <= options.max_tokens for n in lengths]
        dropped["too_long"] += sum(not k for k in keep)
        items = [it for it, k in zip(items, keep) if k]
        lengths = [n for n, k in zip(lengths, keep) if k]

    split_rows = [SplitRow(it.id, row_keys(it.task_name, it.reference)) for it in items]
    named = groups(split_rows)
    pinned = read_splits(options.keep_splits) if options.keep_splits else None
    split = assign_splits(split_rows, options.val_fraction, options.test_fraction, options.seed, named, pinned)
    crossed = crossings(split_rows, split)
    if crossed:                                    # cannot happen by construction; checked, not assumed
        raise RuntimeError(f"task groups cross splits: {sorted(crossed)[:5]}")

    by_split: dict[str, list] = {s: [] for s in SPLITS}
    if dpo:
        by_split, unpaired = _dpo_pairs(items, split, rows_by_id, filters, options.dpo_margin)
        dropped.update(unpaired)
        n_examples = len(items) - sum(unpaired.values())
        pair_len = {s: pair_lengths(part, tokenizer) for s, part in by_split.items()}
        if options.max_tokens is not None:
            by_split, pair_len, too_long = _too_long_pairs(by_split, pair_len, options.max_tokens)
            if too_long:
                dropped["too_long"] += too_long
            n_examples -= too_long
        lengths = [n for s in SPLITS for n in pair_len[s]]
    else:
        for it in items:
            by_split[split[it.id]].append(it)
        n_examples = len(items)

    if not any(by_split.values()):
        raise ValueError(f"nothing to export: all {len(rows)} rows of {', '.join(configs)} were dropped "
                         f"({', '.join(f'{k} {v}' for k, v in sorted(dropped.items())) or 'no rows'})")
    from kvdata.outdir import OutputFolder

    # Written into a staging sibling and moved into place at the end: an earlier export's own files are replaced,
    # nothing else in the folder is touched, and an interrupted export leaves the folder as it was.
    with OutputFolder(out, "export").staged() as stage:
        (stage / "data").mkdir(parents=True, exist_ok=True)
        import pyarrow.parquet as pq

        files = {}
        make_table = (functools.partial(pair_table, form=options.dpo_form) if dpo
                      else functools.partial(example_table, options.format))
        for s, part in by_split.items():
            if part:
                path = f"data/{s}-00000-of-00001.parquet"
                with pq.ParquetWriter(stage / path, schema_of(options.format, options.dpo_form)) as writer:
                    for start, batch in _batches(part):
                        writer.write_table(make_table(batch, s, start))
                files[s] = path
        unit = "tokens" if tokenizer is not None else "characters"
        length_stats = {}
        item_splits = [s for s in SPLITS for _ in by_split[s]] if dpo else [split[it.id] for it in items]
        all_lengths, split_of_item = np.asarray(lengths, dtype=np.int64), np.asarray(item_splits)
        for s in SPLITS:
            ns = all_lengths[split_of_item == s]
            if ns.size:
                length_stats[s] = {"unit": unit, "n": int(ns.size), "mean": float(ns.mean()),
                                   "p50": float(np.percentile(ns, 50)), "p95": float(np.percentile(ns, 95)),
                                   "max": int(ns.max())}
        result = ExportResult(str(out), task.name, options.format, len(rows),
                              {s: len(by_split[s]) for s in SPLITS if by_split[s]}, n_examples, dict(dropped),
                              dict(filters.overlap_by_measure), length_stats, len(crossed),
                              len(set(named.values())), sorted(files.values()),
                              {"data": public_path(data), "configs": ",".join(configs), "out": public_path(out),
                               **({"audit": public_path(filters.audit.source)} if filters.audit else {}),
                               **({"verified": public_path(filters.verdicts.source)} if filters.verdicts else {}),
                               **({"min-speedup": str(filters.min_speedup)} if filters.min_speedup is not None else {}),
                               **({"license": " ".join(filters.allow)} if filters.allow is not None else {}),
                               **({"keep-splits": public_path(options.keep_splits)} if options.keep_splits else {}),
                               **({"template": public_path(options.template)} if options.template else {}),
                               **({"tokenizer": public_path(options.tokenizer)} if options.tokenizer else {})},
                              options.dpo_form if dpo else None, length_basis(options.format, tokenizer))
        info = dataset_info(options.format, options.name or default_name(out, task.name, options.format), files,
                            options.dpo_form)
        if info:
            (stage / "dataset_info.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
            result.files.append("dataset_info.json")
            result.entries = list(info)
        (stage / "accounting.json").write_text(json.dumps(asdict(result) | {"out": public_path(out),
                                                                          "reconciles": result.reconciles},
                                                        indent=2) + "\n", encoding="utf-8")
        from kvdata.export.card import write_card

        write_card(result, options, stage, lengths, item_splits, _public_command(command))
        from kvdata.croissant import write_export_croissant
        from kvdata.export.formats import CORPUS_ID_FIELDS

        write_export_croissant(stage, data, CORPUS_ID_FIELDS[options.format][0], audit=getattr(filters.audit, "source", None),
                               verified=getattr(filters.verdicts, "source", None))
    return result


def read_splits(folder: str | Path) -> dict[str, str]:
    """Corpus row id -> split of an earlier export (``--keep-splits``); for DPO pairs both rows' ids."""
    import pyarrow.parquet as pq

    folder = Path(folder)
    fmt = _export_format(folder)
    shards = sorted((folder / "data").glob("*-00000-of-00001.parquet"))
    if fmt is None or not shards:
        raise FileNotFoundError(f"--keep-splits {folder}: not an export folder (needs accounting.json and "
                                f"data/<split>-00000-of-00001.parquet)")
    out: dict[str, str] = {}
    for shard in shards:
        split = shard.name.split("-")[0]
        for i in corpus_ids(fmt, pq.read_table(shard)):
            if i is not None and not str(i).endswith(":baseline"):     # a hip2hip baseline is no corpus row
                out[str(i)] = split
    return out


def _batches(part: list, max_rows: int = 4096, max_chars: int = 2**27):
    """``(start, batch)`` slices of one split's examples (or pairs), each small enough for one Arrow string
    array per column (int32 offsets) and to keep memory flat."""
    start = 0
    while start < len(part):
        end, chars = start, 0
        while end < len(part) and end - start < max_rows and (end == start or chars < max_chars):
            x = part[end]
            item = x.chosen if isinstance(x, PreferencePair) else x
            chars += len(item.system) + len(item.prompt) + len(item.response) + (
                len(x.rejected_text) if isinstance(x, PreferencePair) else 0)
            end += 1
        yield start, part[start:end]
        start = end


def _dpo_pairs(items, split, rows_by_id, filters: RowFilters, margin: float):
    """Preference pairs per split, and the examples that made none (by reason)."""
    by_split: dict[str, list[PreferencePair]] = {s: [] for s in SPLITS}
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
                by_split[split[winner.id]].append(PreferencePair(winner, loser.response, loser.id,
                                                                         "correct_over_incorrect", None))
        return by_split, unpaired
    for it in items:                               # hip2hip: the optimised kernel over its baseline
        speedup = it.meta.get("speedup")
        if it.meta.get("correct") is not True:         # false, or never verified: not "a faster correct kernel"
            unpaired["dpo_not_correct"] += 1
            continue
        if not _faster(speedup, margin):
            unpaired["dpo_below_margin"] += 1
            continue
        base = rows_by_id[it.id]["baseline_kernel_code"]
        if normalize_code(base) == normalize_code(it.response):
            unpaired["dpo_same_kernel"] += 1           # chosen == rejected teaches nothing
            continue
        by_split[split[it.id]].append(PreferencePair(it, base, f"{it.id}:baseline", "faster_over_baseline",
                                                     speedup - 1.0))
    return by_split, unpaired


def _faster(speedup, margin: float) -> bool:
    """A measured speedup that makes the optimised kernel the preferred one: finite, above 1 and at least
    ``1 + margin`` (unknown, NaN, infinite, zero or negative speedups never do)."""
    return (isinstance(speedup, (int, float)) and math.isfinite(speedup) and speedup > 1.0
            and speedup >= 1.0 + margin)

def _check_out(out: Path, data: str) -> None:
    """``out`` must be empty, absent, or an earlier export (which is replaced: :class:`kvdata.outdir.OutputFolder`);
    never the corpus itself or a folder of other files, which an export would otherwise overwrite or mix with."""
    from kvdata.outdir import OutputFolder

    if out.is_dir() and Path(data).is_dir() and out.resolve() == Path(data).resolve():
        raise ValueError(f"--out {out} is the corpus folder itself; choose another")
    OutputFolder(out, "export").check()


def _export_format(folder: Path) -> Optional[str]:
    """The format of the export in ``folder`` (from its accounting.json), or None if it holds none."""
    try:
        accounting = json.loads((folder / "accounting.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(accounting, dict) or "examples" not in accounting or accounting.get("format") not in FORMATS:
        return None
    return accounting["format"]
