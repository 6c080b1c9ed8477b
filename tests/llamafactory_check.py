"""Run inside LLaMA-Factory's venv (scripts/install_llamafactory.sh) by tests/test_export_llamafactory.py: LLaMA-Factory
0.9.5's own data pipeline loads every entry of each kvdata export's ``dataset_info.json``, as its ``sft`` and ``dpo``
workflows do (llamafactory/train/{sft,dpo}/workflow.py):

    model_args, data_args, training_args, finetuning_args, _ = get_train_args({...})   # the YAML a user writes
    tokenizer_module = load_tokenizer(model_args)
    template = get_template_and_fix_tokenizer(tokenizer_module["tokenizer"], data_args)
    get_dataset(template, model_args, data_args, training_args, stage="sft" | "rm", **tokenizer_module)

with ``dataset_dir`` the export folder, ``dataset`` its ``*_train`` entries and ``eval_dataset`` the others
(``eval_on_each_dataset``, so each entry comes back on its own), template ``qwen`` and a local Qwen2 tokenizer.
Ranking entries go through the ``dpo`` stage (whose ``get_dataset`` stage is ``rm``), the others through ``sft``.

What comes back is compared with the export's own parquet rows, read by kvdata's column names (never through
``dataset_info.json``, so a wrong column mapping shows): per entry, the rows in its file, the examples LLaMA-Factory
kept, the rows it dropped and why (its documented rules, applied to its own converter's output:
``SupervisedDatasetProcessor`` needs an odd number of prompt turns and exactly one response,
``PairwiseDatasetProcessor`` at least two responses; its sharegpt converter empties a row with a bad role tag or
message count), how many examples have every label ignored, were cut at ``cutoff_len``, have labels that decode to
exactly the row's response and the template's end of turn (for pairs: chosen and rejected), hold the row's system
prompt and prompt (and not the template's default system) in their decoded input, and, for pairs, have identical
chosen and rejected sequences; and each example's length in tokens (a pair's: its longer side), in order.

Usage: python llamafactory_check.py SPEC_JSON TOKENIZER_DIR WORK_DIR OUT_JSON
SPEC_JSON: [{"dir": EXPORT_DIR, "format": "alpaca" | "sharegpt" | "dpo"}, ...]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

CUTOFF_LEN = 16384   # longer than any example of the bundled sample, so that nothing is cut and texts compare whole


def expected(fmt: str, row: dict) -> dict:
    """What an exported row holds, by kvdata's own column names (kvdata/export/formats.py)."""
    if fmt == "alpaca":
        return {"system": row["system"], "prompt": row["instruction"], "responses": [row["output"]]}
    if fmt == "sharegpt":
        turns = row["conversations"]
        return {"system": row["system"], "prompt": turns[0]["value"], "responses": [turns[-1]["value"]]}
    if fmt == "dpo":
        return {"system": row["system"], "prompt": row["prompt"], "responses": [row["chosen"], row["rejected"]]}
    raise ValueError(f"unknown format {fmt!r}")


def drop_reason(stage: str, prompt: list, response: list) -> str | None:
    """Why LLaMA-Factory's processor for ``stage`` drops an aligned example (None: it keeps it); the rules of
    SupervisedDatasetProcessor / PairwiseDatasetProcessor.preprocess_dataset."""
    if not prompt and not response:
        return "emptied by the converter (bad role tag or message count)"
    if len(prompt) % 2 != 1:
        return "even number of prompt turns"
    if stage == "sft" and len(response) != 1:
        return f"{len(response)} responses, not 1 (alpaca: the response column is not a string)"
    if stage == "rm" and len(response) < 2:
        return f"{len(response)} responses, fewer than 2 (chosen / rejected not both strings)"
    return None


def check_export(spec: dict, tokenizer_dir: Path, work: Path) -> dict:
    import pyarrow.parquet as pq
    from llamafactory.data import get_dataset, get_template_and_fix_tokenizer
    from llamafactory.data.loader import _get_merged_dataset
    from llamafactory.extras.constants import IGNORE_INDEX
    from llamafactory.hparams import get_train_args
    from llamafactory.model import load_tokenizer

    export, fmt = Path(spec["dir"]), spec["format"]
    info = json.loads((export / "dataset_info.json").read_text())
    ranking = {bool(entry.get("ranking", False)) for entry in info.values()}
    assert len(ranking) == 1, f"{export}: ranking and non-ranking entries in one dataset_info.json"
    stage, data_stage = ("dpo", "rm") if ranking.pop() else ("sft", "sft")
    train = [name for name in info if name.endswith("_train")]
    evals = [name for name in info if name not in train]
    args = {
        "model_name_or_path": str(tokenizer_dir), "stage": stage, "do_train": True, "finetuning_type": "lora",
        "dataset_dir": str(export), "dataset": ",".join(train), "template": "qwen", "cutoff_len": CUTOFF_LEN,
        "overwrite_cache": True, "output_dir": str(work / "out" / export.name), "report_to": "none",
        "cache_dir": str(work / "hf-cache"), "use_cpu": True,
    }
    if evals:
        args |= {"eval_dataset": ",".join(evals), "eval_on_each_dataset": True, "do_eval": True}
    model_args, data_args, training_args, finetuning_args, _ = get_train_args(args)
    tokenizer_module = load_tokenizer(model_args)
    tokenizer = tokenizer_module["tokenizer"]
    template = get_template_and_fix_tokenizer(tokenizer, data_args)
    module = get_dataset(template, model_args, data_args, training_args, stage=data_stage, **tokenizer_module)
    processed = {}
    if train:
        assert len(train) == 1, train
        processed[train[0]] = module["train_dataset"]
    processed |= module.get("eval_dataset") or {}
    assert set(processed) == set(info), (sorted(processed), sorted(info))

    def text(ids: list[int]) -> str:
        return tokenizer.decode(ids, skip_special_tokens=False)

    def answer(ids: list[int], labels: list[int]) -> str:
        return text([i for i, lab in zip(ids, labels) if lab != IGNORE_INDEX])

    # what the template puts after an assistant turn's text (qwen: "<|im_end|>\n"), by its own formatter
    end_of_turn = "".join(slot for slot in template.format_assistant.apply(content="") if isinstance(slot, str))

    entries = {}
    for name, dataset in processed.items():
        rows = pq.read_table(export / info[name]["file_name"]).to_pylist()
        aligned = _get_merged_dataset([name], model_args, data_args, training_args, data_stage)
        reasons = [drop_reason(data_stage, a["_prompt"], a["_response"]) for a in aligned]
        kept = [row for row, why in zip(rows, reasons) if why is None]
        dropped: dict[str, int] = {}
        for why in filter(None, reasons):
            dropped[why] = dropped.get(why, 0) + 1
        got = {"stage": stage, "role": "train" if name in train else "eval", "file_name": info[name]["file_name"],
               "rows_file": len(rows), "rows_aligned": len(aligned), "rows_loaded": len(dataset),
               "dropped": dropped, "labels_all_ignored": 0, "truncated": 0, "labels_are_response": 0,
               "system_in_input": 0, "default_system_in_input": 0, "prompt_in_input": 0, "tokens": []}
        if stage == "dpo":
            got |= {"chosen_eq_rejected": 0, "rejected_labels_are_response": 0}
        for row, ex in zip(kept, dataset):
            want = expected(fmt, row)
            if stage == "sft":
                sides = [(ex["input_ids"], ex["labels"])]
            else:
                sides = [(ex["chosen_input_ids"], ex["chosen_labels"]),
                         (ex["rejected_input_ids"], ex["rejected_labels"])]
                got["chosen_eq_rejected"] += ex["chosen_input_ids"] == ex["rejected_input_ids"]
                got["rejected_labels_are_response"] += answer(*sides[1]) == want["responses"][1] + end_of_turn
            ids, labels = sides[0]
            got["labels_all_ignored"] += any(all(lab == IGNORE_INDEX for lab in side[1]) for side in sides)
            got["truncated"] += any(len(side[0]) >= CUTOFF_LEN for side in sides)
            got["labels_are_response"] += answer(ids, labels) == want["responses"][0] + end_of_turn
            full = text(ids)
            got["system_in_input"] += bool(want["system"]) and want["system"] in full
            got["default_system_in_input"] += template.default_system in full
            got["prompt_in_input"] += bool(want["prompt"]) and want["prompt"] in full
            got["tokens"].append(max(len(side[0]) for side in sides))
        entries[name] = got
    return {"dir": export.name, "format": fmt, "stage": stage, "get_dataset_stage": data_stage,
            "template": data_args.template, "cutoff_len": data_args.cutoff_len, "entries": entries}


def main(spec_path: Path, tokenizer_dir: Path, work: Path, out: Path) -> None:
    import datasets
    import llamafactory
    import transformers

    specs = json.loads(spec_path.read_text())
    result = {"llamafactory": llamafactory.__version__, "transformers": transformers.__version__,
              "datasets": datasets.__version__, "exports": [check_export(s, tokenizer_dir, work) for s in specs]}
    out.write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    spec, tok, work_dir, out_json = sys.argv[1:5]
    main(Path(spec), Path(tok), Path(work_dir), Path(out_json))
