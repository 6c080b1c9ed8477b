"""croissant.json of a built folder and of an export: mlcroissant loads it without an error, its record sets stream
back the parquet rows, every file is named by a relative path with its real sha256, and the RAI fields say what the
rows hold (the SPDX ids present, the rows carrying a verification, the audit's flagged rows, the sources)."""
from __future__ import annotations

import hashlib
import json
import shutil
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from kvdata import croissant
from kvdata.croissant import facts
from kvdata.cli import main
from kvdata.licenses.expressions import license_ids
from kvdata.schema import ALL_CONFIGS

mlc = pytest.importorskip("mlcroissant")


def _run(args):
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, (args[:3], res.output[-3000:])
    return res


@pytest.fixture(scope="module")
def audited(built, tmp_path_factory):
    """A copy of the build with an overlap audit in its ``audit/``: the benchmark is three of its own Triton kernels,
    so the audit flags them (and their near copies) for sure."""
    root = tmp_path_factory.mktemp("croissant-audit")
    folder = root / "build"
    shutil.copytree(built, folder)
    rows = [r for r in pq.read_table(sorted((built / "data" / "triton").glob("*.parquet")),
                                     columns=["task_name", "pytorch_code", "kernel_code"]).to_pylist()
            if r["pytorch_code"]][:3]
    bench = root / "bench.jsonl"
    bench.write_text("".join(json.dumps({"name": f"{i + 1}_{r['task_name']}", "level": 1, "problem_id": i + 1,
                                         "code": r["kernel_code"]}) + "\n" for i, r in enumerate(rows)))
    _run(["audit-overlap", "--bench", "kernelbench", "--bench-path", str(bench), "--train", str(folder), "--out",
          str(folder / "audit"), "--measures", "lexical", "--quiet", "--cache-dir", str(root / "cache")])
    croissant.write_croissant(folder)
    return folder


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _strings(node):
    if isinstance(node, dict):
        for v in node.values():
            yield from _strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)
    elif isinstance(node, str):
        yield node


def _plain(value):
    """A record's value as the parquet row has it (mlcroissant gives text as bytes and numbers as numpy)."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, dict):
        return {k.rsplit("/", 1)[-1]: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value


def _records(path: Path, record_set: str) -> list[dict]:
    dataset = mlc.Dataset(jsonld=str(path))
    return [{k.split("/", 1)[1]: _plain(v) for k, v in r.items()} for r in dataset.records(record_set=record_set)]


def _only_recommendations(warnings: list[str]) -> bool:
    """mlcroissant's warnings that do not mean invalid: a recommended property left out (a build has no release
    version)."""
    return all("is recommended, but does not exist" in w for w in warnings)


def _config_rows(folder: Path, config: str, columns=None) -> list[dict]:
    return pq.read_table(sorted((folder / "data" / config).glob("*.parquet")), columns=columns).to_pylist()


def _no_local_paths(doc: dict, *roots: Path) -> None:
    for text in _strings(doc):
        assert not text.startswith(("/", "~", "file:")), text
        for root in roots:
            assert str(root.resolve()) not in text and str(root) not in text, text


# ----------------------------------------------------------------- a built folder
def test_build_writes_croissant_that_mlcroissant_validates(built):
    path = built / croissant.CROISSANT_FILE
    assert path.is_file() and (built / "README.md").is_file()
    assert "croissant.json" in _load(built / ".kvdata-output.json")["files"]     # the build owns it
    warnings = croissant.check(path)                         # raises mlcroissant.ValidationError on any error
    assert _only_recommendations(warnings), warnings
    doc = _load(path)
    assert doc["conformsTo"] == [facts.CROISSANT_1_1, facts.RAI_1_0]
    assert doc["url"] == "."
    _no_local_paths(doc, built, built.parent)


def test_every_config_streams_back_its_parquet_rows(built):
    path = built / croissant.CROISSANT_FILE
    for config in ALL_CONFIGS:
        rows = _config_rows(built, config)
        records = _records(path, config)
        assert len(records) == len(rows) > 0
        by_id = {r["id"]: r for r in records}
        assert set(by_id) == {r["id"] for r in rows}
        for row in rows:
            record = by_id[row["id"]]
            assert set(record) == set(row)                   # every column, no other
            for column in ("license", "subset", "kernel_code", "question", "task_name"):
                if column in row:
                    assert record[column] == row[column]
            assert record["provenance"]["repo"] == row["provenance"]["repo"]
            assert record["provenance"]["line_start"] == row["provenance"]["line_start"]
            if "verification" in row:
                want = row["verification"] or {}
                assert record["verification"]["correct"] == want.get("correct")
                assert record["verification"]["speedup"] == pytest.approx(want.get("speedup"), nan_ok=True)


def test_record_sets_have_the_parquet_schema(built):
    doc = _load(built / croissant.CROISSANT_FILE)
    types = {"string": "sc:Text", "bool": "sc:Boolean", "int64": "cr:Int64", "double": "cr:Float64"}
    sets = {rs["@id"]: rs for rs in doc["recordSet"]}
    assert set(sets) == set(ALL_CONFIGS)
    for config, rs in sets.items():
        schema = pq.read_schema(sorted((built / "data" / config).glob("*.parquet"))[0])
        fields = {f["name"]: f for f in rs["field"]}
        assert list(fields) == schema.names
        assert rs["key"] == {"@id": f"{config}/id"}
        for f in schema:
            if f.type.num_fields:                            # struct: one sub-field per child, each typed
                subs = {s["name"]: s for s in fields[f.name]["subField"]}
                assert list(subs) == [c.name for c in f.type]
                for child in f.type:
                    assert subs[child.name]["dataType"] == types[str(child.type)]
                    assert subs[child.name]["source"]["transform"] == {"jsonPath": child.name}
            else:
                assert fields[f.name]["dataType"] == types[str(f.type)]


def test_files_are_relative_and_carry_their_sha256(built):
    doc = _load(built / croissant.CROISSANT_FILE)
    objects = {d["@id"]: d for d in doc["distribution"] if d["@type"] == "cr:FileObject"}
    shards = {p.relative_to(built).as_posix() for p in (built / "data").glob("*/*.parquet")}
    assert shards | {"accounting.json", "rejects.parquet"} == set(objects)
    for rel, d in objects.items():
        assert d["contentUrl"] == rel and not Path(rel).is_absolute()
        data = (built / rel).read_bytes()
        assert d["sha256"] == hashlib.sha256(data).hexdigest() and d["contentSize"] == f"{len(data)} B"
    sets = {d["@id"]: d["includes"] for d in doc["distribution"] if d["@type"] == "cr:FileSet"}
    assert sets == {f"files-{c}": f"data/{c}/*.parquet" for c in ALL_CONFIGS}


def test_rai_fields_state_what_the_rows_hold(built):
    doc = _load(built / croissant.CROISSANT_FILE)
    rows = {c: _config_rows(built, c, ["license"] + (["verification"] if c != "qa" else []) + ["provenance"])
            for c in ALL_CONFIGS}
    every = [r for c in ALL_CONFIGS for r in rows[c]]
    # licenses: exactly the SPDX ids the rows' expressions name, each with its spdx.org page
    present = {i for r in every for i in license_ids(r["license"])}
    assert {w["name"] for w in doc["license"]} == present
    assert all(w["url"] == f"https://spdx.org/licenses/{w['name']}.html" for w in doc["license"])
    expressions = Counter(r["license"] for r in every)
    assert all(f"{lic} {n}" in doc["rai:dataBiases"][1] for lic, n in expressions.items())
    # verification: the rows carrying a record, and how many of them are correct
    verified = [r["verification"] for r in every if r.get("verification") is not None]
    correct = sum(v["correct"] is True for v in verified)
    assert verified and correct                             # the sample has both kinds of rows
    protocol = doc["rai:dataAnnotationProtocol"]
    assert f"{len(verified)} of {len(every)} rows carry a verification record ({correct} correct," in protocol
    # provenance: every source of accounting.json, with its counts; rows per upstream repo
    accounting = _load(built / "accounting.json")
    for name, acc in accounting["sources"].items():
        assert f"{name} ({acc['kind']} reader;" in doc["rai:dataCollection"]
        assert f"{acc['input']} input, {acc['kept']} kept" in doc["rai:dataCollection"]
    repos = Counter(r["provenance"]["repo"] for r in every if r["provenance"]["repo"])
    top, n = repos.most_common(1)[0]
    assert f"(provenance.repo): {top} {n}" in doc["rai:dataCollectionRawData"]
    assert {e["name"] for e in doc["prov:wasDerivedFrom"]} == set(accounting["sources"])
    assert doc["prov:wasGeneratedBy"]["name"] == "kvdata build"
    # contamination: no audit in the folder, so it is unknown, and said so
    assert doc["rai:dataLimitations"][0].startswith("Benchmark contamination: unknown")
    allow = accounting["settings"]["allow_license"]
    assert any(", ".join(allow) in step for step in doc["rai:dataPreprocessingProtocol"])


def test_an_audit_in_the_folder_is_reported_as_known_contamination(audited):
    path = audited / croissant.CROISSANT_FILE
    assert _only_recommendations(croissant.check(path))
    doc = _load(path)
    summary = _load(audited / "audit" / "audit.json")
    assert summary["n_flagged_train"] > 0
    limitation = doc["rai:dataLimitations"][0]
    assert limitation.startswith("Benchmark contamination (audit/audit.json): an overlap audit against kernelbench")
    assert f"flagged {summary['n_flagged_train']} of {summary['n_train']} training rows" in limitation
    assert f"overlapping {summary['n_flagged_bench']} benchmark items" in limitation
    for measure, n in summary["flagged_by_measure"].items():
        if n:
            assert f"{measure} {n}" in limitation
    audit_file = next(d for d in doc["distribution"] if d["@id"] == "audit/audit.json")
    assert audit_file["sha256"] == hashlib.sha256((audited / "audit" / "audit.json").read_bytes()).hexdigest()
    _no_local_paths(doc, audited, audited.parent)


# ----------------------------------------------------------------- exports
def _corpus(folder: Path) -> dict[str, dict]:
    return {r["id"]: r for c in ALL_CONFIGS
            for r in _config_rows(folder, c, ["id", "license"] + (["verification"] if c != "qa" else []))}


def test_export_croissant_streams_its_splits_and_reports_the_audit(audited, tmp_path):
    out = tmp_path / "sft"
    _run(["export", "--data", str(audited), "--task", "torch2triton", "--format", "messages", "--val-fraction",
          "0.3", "--audit", str(audited / "audit"), "--out", str(out)])
    path = out / croissant.CROISSANT_FILE
    assert _only_recommendations(croissant.check(path))
    doc = _load(path)
    _no_local_paths(doc, out, tmp_path, audited)
    # the record set reads every exported row, each with the split its file names
    records = _records(path, "default")
    written = {}
    for shard in sorted((out / "data").glob("*.parquet")):
        for row in pq.read_table(shard).to_pylist():
            written[row["id"]] = (shard.name.split("-")[0], row)
    assert len(records) == len(written) and {r["split"] for r in records} == {"train", "validation"}
    for r in records:
        split, row = written[r["id"]]
        assert r["split"] == split and r["license"] == row["license"]
        assert r["messages"] == row["messages"]                      # a list of structs, item by item
    # licenses and contamination
    assert {w["name"] for w in doc["license"]} == {i for _, row in written.values()
                                                   for i in license_ids(row["license"])}
    accounting = _load(out / "accounting.json")
    dropped = accounting["dropped"]["benchmark_overlap"]
    assert dropped > 0
    assert f"This export dropped the {dropped} rows it flagged" in doc["rai:dataLimitations"][0]
    assert doc["prov:wasDerivedFrom"][0]["url"] == "../../" + audited.parent.name + "/build"
    assert doc["prov:wasGeneratedBy"]["prov:used"] == [{"@type": "prov:Entity", "url": "../../"
                                                        + audited.parent.name + "/build/audit"}]


def test_rl_export_takes_licenses_and_verification_from_its_corpus_rows(built, tmp_path):
    """veRL rows hold no license or verification column: both come from the corpus rows their ids name."""
    out = tmp_path / "rl"
    _run(["export", "--data", str(built), "--task", "torch2hip", "--format", "rl", "--out", str(out)])
    path = out / croissant.CROISSANT_FILE
    assert _only_recommendations(croissant.check(path))
    doc = _load(path)
    corpus = _corpus(built)
    records = _records(path, "default")
    rows = pq.read_table(sorted((out / "data").glob("*.parquet"))).to_pylist()
    assert [r["extra_info"]["id"] for r in records] == [r["extra_info"]["id"] for r in rows]
    assert records[0]["reward_model"] == rows[0]["reward_model"]
    ids = [r["extra_info"]["id"] for r in rows]
    assert {w["name"] for w in doc["license"]} == {i for x in ids for i in license_ids(corpus[x]["license"])}
    verified = [corpus[x]["verification"] for x in ids if corpus[x].get("verification") is not None]
    correct = sum(v["correct"] is True for v in verified)
    assert verified and f"{len(verified)} of {len(ids)} rows carry a verification record ({correct} correct," \
        in doc["rai:dataAnnotationProtocol"]
    assert doc["rai:dataLimitations"][0].startswith("Benchmark contamination: unknown")


def test_a_far_away_path_is_named_by_its_last_part_only(tmp_path):
    """A path that would climb out of more than two folders would spell out the machine's folders."""
    far = tmp_path / "a" / "b" / "c" / "export"
    far.mkdir(parents=True)
    assert facts._relative(far.parent / "corpus", far) == "../corpus"
    assert facts._relative(tmp_path / "a" / "b" / "corpus", far) == "../../corpus"
    assert facts._relative(tmp_path / "a" / "corpus", far) == "corpus"
    assert facts._relative(far / "data" / "x.parquet", far) == "data/x.parquet"
