"""The Hub folder: sharded zstd parquet, YAML front matter, offline load_dataset, push (no network)."""
from __future__ import annotations

import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from kvdata.hub import (ConfigWriter, built_configs, card_metadata, config_row_count, files_to_push,
                        load_config, push, read_front_matter, render_front_matter, rows_to_table, shard_files,
                        size_category)
from kvdata.schema import KERNEL_SCHEMA, KernelRecord, Provenance, QARecord


def _kernel(i: int) -> KernelRecord:
    return KernelRecord(subset="triton", source="t", language="triton", task_name=f"task{i}",
                        pytorch_code="class Model: pass\ndef get_inputs(): return []\n",
                        kernel_code=f"@triton.jit\ndef k{i}(x): pass\n", license="MIT",
                        provenance=Provenance(repo="me/r", path=f"k{i}.py"))


def _qa(i: int) -> QARecord:
    return QARecord(subset="qa", library="rocblas", kind="purpose", question=f"What does f{i} do?",
                    answer=f"f{i} adds.", symbol=f"rocblas_f{i}", license="MIT",
                    provenance=Provenance(repo="ROCm/rocBLAS", path="h.h", line_start=i + 1, line_end=i + 2))


def _write_folder(out, n_kernels=23, n_qa=4, rows_per_shard=10):
    writer = ConfigWriter(out, "triton", rows_per_shard=rows_per_shard)
    for start in range(0, n_kernels, 7):  # several appends that straddle shard boundaries
        writer.write(rows_to_table([_kernel(i).to_row() for i in range(start, min(start + 7, n_kernels))], "triton"))
    writer.close()
    qa = ConfigWriter(out, "qa")
    qa.write(rows_to_table([_qa(i).to_row() for i in range(n_qa)], "qa"))
    qa.close()
    meta = card_metadata({"triton": n_kernels, "qa": n_qa}, ["MIT"])
    (out / "README.md").write_text(render_front_matter(meta) + "\n# card\n")


def test_writer_shards_by_rows_with_final_names(tmp_path):
    _write_folder(tmp_path)
    shards = shard_files(tmp_path, "triton")
    assert [p.name for p in shards] == [f"train-0000{i}-of-00003.parquet" for i in range(3)]
    assert [pq.ParquetFile(p).metadata.num_rows for p in shards] == [10, 10, 3]
    assert pq.ParquetFile(shards[0]).metadata.row_group(0).column(0).compression == "ZSTD"
    assert pq.read_schema(shards[0]).equals(KERNEL_SCHEMA)
    assert not list((tmp_path / "data" / "triton").glob("partial-*"))
    assert built_configs(tmp_path) == ["triton", "qa"]
    assert config_row_count(tmp_path, "triton") == 23


def test_front_matter_has_configs_license_sizes_features(tmp_path):
    _write_folder(tmp_path)
    meta = read_front_matter(tmp_path)
    assert [c["config_name"] for c in meta["configs"]] == ["triton", "qa"]
    assert meta["configs"][0]["data_files"] == [{"split": "train", "path": "data/triton/*.parquet"}]
    assert meta["license"] == "mit"
    assert meta["size_categories"] == ["n<1K"]
    assert meta["task_categories"] and meta["tags"]
    info = {d["config_name"]: d for d in meta["dataset_info"]}
    assert info["qa"]["splits"][0]["num_examples"] == 4
    assert [f["name"] for f in info["triton"]["features"]] == KERNEL_SCHEMA.names


def test_mixed_licenses_are_listed_and_other_only_where_the_hub_has_no_id():
    meta = card_metadata({"triton": 3}, ["MIT", "Apache-2.0", "MIT"])
    assert meta["license"] == ["apache-2.0", "mit"] and "license_name" not in meta
    meta = card_metadata({"triton": 3}, ["MIT", "MIT OR Apache-2.0"])
    assert meta["license"] == ["mit", "other"] and meta["license_name"] == "per-row-spdx"
    assert "MIT OR Apache-2.0" in meta["license_details"]
    assert size_category(999) == "n<1K" and size_category(100_000) == "100K<n<1M"


def test_load_dataset_offline_in_a_fresh_process(tmp_path):
    """datasets.load_dataset(DIR, config) with the Hub switched off, as a user would run it."""
    _write_folder(tmp_path)
    code = ("import datasets, sys; ds = datasets.load_dataset(sys.argv[1], 'triton', split='train'); "
            "qa = datasets.load_dataset(sys.argv[1], 'qa', split='train'); "
            "print(ds.num_rows, qa.num_rows, ds.column_names == sys.argv[2].split(','), qa[0]['provenance']['line_start'])")
    env = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"),
           "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path), ",".join(KERNEL_SCHEMA.names)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["23", "4", "True", "1"]


def test_load_config_from_folder_and_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _write_folder(tmp_path)
    ds = load_config(tmp_path, "qa")
    assert ds.num_rows == 4 and ds[0]["symbol"].startswith("rocblas_")
    with pytest.raises(FileNotFoundError, match="no data for config 'hip2hip'"):
        load_config(tmp_path, "hip2hip")
    with pytest.raises(ValueError, match="unknown config"):
        load_config(tmp_path, "nope")


def test_push_dry_run_lists_files_and_validates(tmp_path):
    _write_folder(tmp_path)
    (tmp_path / "stray.txt").write_text("not uploaded")
    files = push(tmp_path, "me/kv", dry_run=True)
    assert "README.md" in files and "stray.txt" not in files
    assert "data/triton/train-00000-of-00003.parquet" in files
    with pytest.raises(ValueError, match="OWNER/NAME"):
        push(tmp_path, "no-slash", dry_run=True)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="not a built corpus"):
        files_to_push(empty)


def test_push_uploads_a_card_and_croissant_naming_the_repo_and_leaves_the_folder_alone(tmp_path):
    """The folder's card loads it by its folder; what ``push --repo`` uploads loads it by the repo id."""
    import json

    from kvdata.card import write_card
    from kvdata.croissant import write_croissant
    from kvdata.hub import upload_contents
    from kvdata.ledger import Ledger

    _write_folder(tmp_path)
    Ledger(tmp_path).close()
    write_card(tmp_path)
    write_croissant(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    contents = upload_contents(tmp_path, "my-org/kernels")
    card, croissant = contents["README.md"].decode(), json.loads(contents["croissant.json"])
    assert 'load_dataset("my-org/kernels", "triton", split="train")' in card
    assert "my-org/kernels" in croissant["url"] and "path/to/this/folder" not in card
    assert 'load_dataset("path/to/this/folder", "triton"' in (tmp_path / "README.md").read_text()
    assert contents["data/triton/train-00000-of-00003.parquet"] == str(tmp_path / "data/triton/train-00000-of-00003.parquet")
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_push_without_a_network_fails_in_one_line_and_uploads_nothing(tmp_path, monkeypatch):
    from huggingface_hub import constants

    _write_folder(tmp_path)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)                    # online, but with no Hub to reach
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")       # nothing listens there
    with pytest.raises(ConnectionError, match="cannot push to me/kv: the Hub .* cannot be reached"):
        push(tmp_path, "me/kv")
