"""The dataset card is rendered from the written data: every number in it is counted from the folder."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kvdata.buildconfig import make_build_config
from kvdata.card import render_card, write_card
from kvdata.hub import read_front_matter, shard_files
from kvdata.pipeline import build
from kvdata.schema import ALL_CONFIGS, arrow_schema


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("card")
    build(make_build_config(sample=True, workers=0), out, progress=False)
    return out


def _column(out: Path, config: str, name: str) -> list:
    return [v for p in shard_files(out, config) for v in pq.read_table(p, columns=[name]).column(name).to_pylist()]


def _table_rows(card: str, first_cell: str) -> list[list[str]]:
    """Cells of the markdown table rows whose first cell is ``first_cell``."""
    out = []
    for line in card.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            out.append(cells)
    return out


def test_counts_subsets_and_licenses_match_the_parquet(sample):
    card = (sample / "README.md").read_text()
    total = 0
    licenses: Counter = Counter()
    for config in ALL_CONFIGS:
        subsets = Counter(_column(sample, config, "subset"))
        n = sum(subsets.values())
        total += n
        licenses.update(_column(sample, config, "license"))
        row = _table_rows(card, f"`{config}`")[0]
        assert row[1] == str(n)
        for subset, count in subsets.items():
            assert [f"`{config}`", subset, str(count)] in _table_rows(card, f"`{config}`")
        assert f'load_dataset("path/to/this/folder", "{config}", split="train")' in card   # a local build
        assert f'load_dataset("my-org/kernels", "{config}", split="train")' in render_card(sample, "my-org/kernels")
        for col in arrow_schema(config).names:
            assert f"| `{col}` |" in card
    assert f"**{total} rows**" in card
    for lic, count in licenses.items():
        assert _table_rows(card, lic)[0][1] == str(count)


def test_accounting_and_provenance_tables(sample):
    card = (sample / "README.md").read_text()
    acc = json.loads((sample / "accounting.json").read_text())
    for name, s in acc["sources"].items():
        row = next(r for r in _table_rows(card, name) if len(r) == 8)
        assert row[3:6] == [str(s["input"]), str(s["kept"]), str(s["rejected_total"])]
        assert row[-1] == "yes"
        for reason, n in s["rejected"].items():
            assert [name, f"`{reason}`", str(n)] in _table_rows(card, name)
    repos = Counter(r["repo"] or "(unknown)" for c in ALL_CONFIGS for r in _column(sample, c, "provenance"))
    top_repo, top_n = repos.most_common(1)[0]
    assert _table_rows(card, top_repo)[0][1] == str(top_n)


def test_front_matter_matches_the_data(sample):
    meta = read_front_matter(sample)
    assert [c["config_name"] for c in meta["configs"]] == list(ALL_CONFIGS)
    for info in meta["dataset_info"]:
        assert info["splits"][0]["num_examples"] == len(_column(sample, info["config_name"], "id"))
    licenses = {v for c in ALL_CONFIGS for v in _column(sample, c, "license")}
    listed = [meta["license"]] if isinstance(meta["license"], str) else meta["license"]
    assert set(listed) == {lic.lower() for lic in licenses}           # the sample's ids all have Hub ids
    assert "license_name" not in meta                                 # so no "other", and no license_name


def test_the_card_counts_the_verified_rows_and_says_so_only_for_them(sample):
    card = (sample / "README.md").read_text()
    verified = sum(v is not None for c in ALL_CONFIGS if "verification" in arrow_schema(c).names
                   for v in _column(sample, c, "verification"))
    total = sum(len(_column(sample, c, "id")) for c in ALL_CONFIGS)
    assert 0 < verified < total                                       # the sample has both kinds
    assert f"**{verified} of them are execution-verified**" in card
    assert "An execution-verified corpus" not in card


def test_card_follows_the_data_when_it_changes(sample, tmp_path):
    """Drop a config's data and re-render: the card no longer lists it and the total drops."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(sample, copy)
    n_qa = len(_column(copy, "qa", "id"))
    before = re.search(r"\*\*(\d+) rows\*\*", render_card(copy)).group(1)
    shutil.rmtree(copy / "data" / "qa")
    write_card(copy)
    card = (copy / "README.md").read_text()
    assert int(re.search(r"\*\*(\d+) rows\*\*", card).group(1)) == int(before) - n_qa
    assert not _table_rows(card, "`qa`")
    assert "qa" not in [c["config_name"] for c in read_front_matter(copy)["configs"]]


def test_two_trees_of_one_kind_keep_a_line_each(tmp_path):
    """`--source qa_rocm=rocBLAS --source qa_rocm=rocSOLVER` (no `name` options): each tree keeps its own account
    and its own line in the card's source table (repo, commit, license, rows), instead of the second tree's origin
    standing for both trees' rows."""
    from kvdata.buildconfig import sample_root

    trees = sample_root() / "qa_rocm"
    cfg = make_build_config(sources=[f"qa_rocm={trees / 'rocBLAS'}@aaa111", f"qa_rocm={trees / 'rocSOLVER'}@bbb222"],
                            workers=0)
    result = build(cfg, tmp_path, progress=False)
    acc = json.loads((tmp_path / "accounting.json").read_text())
    assert sorted(acc["sources"]) == ["qa_rocm:rocBLAS", "qa_rocm:rocSOLVER"] and result.accounting["reconciles"]
    card = (tmp_path / "README.md").read_text()
    rows = {lib: Counter(r["license"] for r in pq.read_table(tmp_path / "data" / "qa").to_pylist()
                         if r["library"] == lib) for lib in ("rocblas", "rocsolver")}
    for name, commit, lib in (("qa_rocm:rocBLAS", "aaa111", "rocblas"), ("qa_rocm:rocSOLVER", "bbb222", "rocsolver")):
        s = acc["sources"][name]
        assert s["origin"]["commit"] == commit and s["kept"] == sum(rows[lib].values()) > 0
        line = next(r for r in _table_rows(card, name) if commit in r)
        assert line[1:] == [s["origin"]["repo"] or "-", commit, s["origin"]["license"], s["origin"]["license_full"],
                            str(s["kept"])]
        assert s["origin"]["license"] in rows[lib]
