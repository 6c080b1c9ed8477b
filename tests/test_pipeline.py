"""The build pipeline on the bundled sample and on small real inputs: accounting, dedup, crashes."""
from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pyarrow.parquet as pq
import pytest

from kvdata.builders.base import Source
from kvdata.buildconfig import BuildConfig, make_build_config
from kvdata.builders.triton import TritonTableSource
from kvdata.hub import built_configs, shard_files
from kvdata.licenses import normalize_spdx
from kvdata.pipeline import (Chunk, CheckRows, FilterLicenses, Fingerprint, Pipeline, RecordFilter, StepTimes, ToArrow,
                             ToRecords, build, default_steps, process_chunk)
from kvdata.schema import ALL_CONFIGS, KernelRecord, Provenance, Reject, RejectReason, Verification

SAMPLE_TABLE = Path(__file__).resolve().parent.parent / "builders" / "sample" / "triton" / "table" / "agent_outputs.jsonl"


def _rows(out: Path, config: str) -> list[dict]:
    return [r for p in shard_files(out, config) for r in pq.read_table(p).to_pylist()]


def _rejects(out: Path) -> list[dict]:
    return pq.read_table(out / "rejects.parquet").to_pylist()


@pytest.fixture(scope="module")
def sample_builds(tmp_path_factory):
    """The sample built twice: in-process fingerprints, and through a worker process."""
    outs = {}
    for workers in (0, 1):
        cfg = make_build_config(sample=True, workers=workers)
        out = tmp_path_factory.mktemp(f"sample{workers}")
        outs[workers] = (build(cfg, out, progress=False), out)
    return outs


def test_sample_build_every_config_reconciles(sample_builds):
    result, out = sample_builds[0]
    assert built_configs(out) == list(ALL_CONFIGS)
    acc = json.loads((out / "accounting.json").read_text())
    assert acc["reconciles"] is True
    for name, s in acc["sources"].items():
        assert s["input"] == s["kept"] + s["rejected_total"] + s["duplicates_total"], name
        assert s["input"] > 0
    # the ledger's kept counts are the rows on disk, and its drops are the rejects file
    assert acc["totals"]["kept"] == sum(len(_rows(out, c)) for c in ALL_CONFIGS)
    assert acc["totals"]["rejected"] + acc["totals"]["duplicates"] == len(_rejects(out))


def test_sample_rows_have_unique_ids_license_provenance(sample_builds):
    _, out = sample_builds[0]
    ids = []
    for config in ALL_CONFIGS:
        for row in _rows(out, config):
            ids.append(row["id"])
            assert row["license"] and normalize_spdx(row["license"]) == row["license"]
            assert row["provenance"] and any(row["provenance"].values())
    assert len(ids) == len(set(ids))


def test_worker_pool_and_rebuild_give_identical_ids_and_accounting(sample_builds):
    (r0, out0), (r1, out1) = sample_builds[0], sample_builds[1]
    for config in ALL_CONFIGS:
        assert [r["id"] for r in _rows(out0, config)] == [r["id"] for r in _rows(out1, config)]
    a0 = json.loads((out0 / "accounting.json").read_text())
    a1 = json.loads((out1 / "accounting.json").read_text())
    assert a0 == a1
    assert "wait" in r1.step_seconds and "wait" not in r0.step_seconds and "fingerprint" in r0.step_seconds


def _table_row(name: str, kernel: str, ref: str, lic: str = "MIT") -> dict:
    return {"name": name, "ref": ref, "triton": kernel, "lic": lic, "model": "test"}


def _sample_table_rows() -> list[dict]:
    return [json.loads(line) for line in SAMPLE_TABLE.read_text().splitlines() if line.strip()]


def _table_source(path: Path, **extra) -> TritonTableSource:
    return TritonTableSource(str(path), columns={"task_name": "name", "pytorch_code": "ref", "kernel_code": "triton",
                                                 "license": "lic", "generator": "model"}, **extra)


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture()
def dup_table(tmp_path) -> Path:
    """Real sample kernels plus an exact copy (comments/blank lines changed), a near copy and a GPL row."""
    base = [r for r in _sample_table_rows() if r["triton"].strip()][:2]
    a, b = base
    exact = dict(a, name=a["name"] + "_copy", triton="# a comment\n\n" + a["triton"].replace("\n\n", "\n"))
    near = dict(b, name=b["name"] + "_near", triton=b["triton"] + "\nEXTRA_SETTING = 12345\n")
    gpl = dict(b, name="gpl_one", lic="GPL-3.0", triton=b["triton"] + "\nX = 1\n")
    return _write_jsonl(tmp_path / "t.jsonl", [a, b, exact, near, gpl])


def test_exact_and_near_duplicates_name_the_kept_row(tmp_path, dup_table):
    result = build(BuildConfig(workers=0), tmp_path / "out", progress=False, sources=[_table_source(dup_table)])
    rows = _rows(tmp_path / "out", "triton")
    kept_ids = [r["id"] for r in rows]
    assert len(rows) == 2
    by_reason = {r["reason"]: r for r in _rejects(tmp_path / "out")}
    assert set(by_reason) == {"duplicate_exact", "duplicate_near", "license_not_allowed"}
    assert kept_ids[0] in by_reason["duplicate_exact"]["message"]
    assert kept_ids[1] in by_reason["duplicate_near"]["message"]
    assert result.accounting["sources"]["triton_table"]["duplicates"] == {"duplicate_exact": 1, "duplicate_near": 1}


def test_no_dedup_keeps_duplicates_and_allow_list_is_per_build(tmp_path, dup_table):
    cfg = BuildConfig(workers=0, dedup=False, allow_license=frozenset({"MIT", "Apache-2.0", "GPL-3.0"}))
    result = build(cfg, tmp_path / "out", progress=False, sources=[_table_source(dup_table)])
    assert result.rows["triton"] == 5
    assert result.accounting["sources"]["triton_table"]["reconciles"]


def test_small_batches_keep_the_same_winners(tmp_path, dup_table):
    """Dedup across batch boundaries (and LSH segment merges) keeps exactly what one big batch keeps."""
    rows = _sample_table_rows() * 3 + json.loads(json.dumps(_sample_table_rows()))
    for i, r in enumerate(rows):
        r["name"] = f"{r['name']}_{i}"
    path = _write_jsonl(tmp_path / "many.jsonl", rows)
    kept = {}
    for batch_size in (1, 3, 1000):
        out = tmp_path / f"b{batch_size}"
        build(BuildConfig(workers=0, batch_size=batch_size), out, progress=False, sources=[_table_source(path)])
        kept[batch_size] = [r["id"] for r in _rows(out, "triton")]
    assert kept[1] == kept[3] == kept[1000]
    assert 0 < len(kept[1]) < len(rows)


class CrashingSource(Source):
    """A stand-in for a buggy builder: yields two good records, then raises."""

    kind = "crashing"
    config = "triton"

    def read(self) -> Iterator:
        table = _table_source(self.path)
        items = table.read()
        yield next(items)
        yield next(items)
        raise RuntimeError("builder bug: index out of range")


class JunkSource(Source):
    """A stand-in that yields things that are not records, and a record that does not fit the schema."""

    kind = "junk"
    config = "triton"

    def read(self) -> Iterator:
        yield {"not": "a record"}
        yield KernelRecord(subset="triton", source="junk", language="triton", task_name="t", pytorch_code=None,
                           kernel_code="@triton.jit\ndef k(): pass\n", license=None, provenance=Provenance())
        yield KernelRecord(subset="triton", source="junk", language="cobol", task_name="t2", pytorch_code=None,
                           kernel_code="@triton.jit\ndef k2(): pass\n", license="MIT", provenance=Provenance())


def test_a_crashing_source_is_a_reject_and_the_build_goes_on(tmp_path):
    out = tmp_path / "out"
    result = build(BuildConfig(workers=0), out, progress=False,
                   sources=[CrashingSource(str(SAMPLE_TABLE)), JunkSource("-"), _table_source(SAMPLE_TABLE)])
    crash = result.accounting["sources"]["crashing"]
    assert crash["input"] == 3 and crash["kept"] == 2 and crash["rejected"] == {"other": 1}
    reject = next(r for r in _rejects(out) if r["source"] == "crashing")
    assert reject["ref"] == "crashing:crash"
    assert "RuntimeError: builder bug" in reject["message"] and "test_pipeline.py" in reject["message"]
    junk = result.accounting["sources"]["junk"]
    assert junk["rejected"] == {"other": 1, "missing_license": 1, "missing_field": 1}
    # the source after the crash was still read; its rows were near/exact duplicates of the crashing one's
    assert result.accounting["sources"]["triton_table"]["input"] == len(_sample_table_rows())
    assert result.accounting["reconciles"]


def test_a_source_that_cannot_be_made_is_a_reject(tmp_path):
    from kvdata.builders.base import SourceSpec

    cfg = BuildConfig(workers=0, sources=[SourceSpec("triton_table", str(SAMPLE_TABLE), (("no_such_option", 1),))])
    with pytest.raises(ValueError, match="kept 0 rows: triton_table read 1 records: other .*no_such_option"):
        build(cfg, tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()
    result = build(cfg, tmp_path / "out", progress=False, allow_empty=True)
    acc = result.accounting["sources"]["triton_table"]
    assert acc["input"] == 1 and acc["rejected"] == {"other": 1}
    assert "no_such_option" in _rejects(tmp_path / "out")[0]["message"]


def test_fast_row_conversion_equals_to_row():
    from kvdata.pipeline import row_of
    from kvdata.schema import QARecord, Verification

    k = KernelRecord(subset="s", source="x", language="hip", task_name="t", pytorch_code=None, kernel_code="k",
                     license="MIT", provenance=Provenance(repo="r", line_start=3),
                     verification=Verification(correct=True, speedup=1.5))
    q = QARecord(subset="qa", library="rocblas", kind="purpose", question="q?", answer="a", symbol="rocblas_x",
                 license="MIT", provenance=Provenance(path="h.h", line_start=1, line_end=2))
    assert row_of(k) == k.to_row() and row_of(q) == q.to_row()
    assert row_of(k)["provenance"] is not k.provenance  # a copy, not the record's own object


# ----------------------------------------------------------------- which row of a duplicate cluster wins
GPUMODE = SAMPLE_TABLE.parents[2] / "hip_gpumode"


def _agent_rows(variants: list[tuple[str, str, dict]]) -> list[dict]:
    """hip_cudaagent records: (task, kernel file of the sample's hip_gpumode tree, verification)."""
    out = []
    for task, hip_file, verification in variants:
        out.append({"task_name": task, "variant": Path(hip_file).stem, "license": "MIT",
                    "pytorch_code": (GPUMODE / "pytorch_code_module" / f"{task}.py").read_text(),
                    "hip_code": (GPUMODE / hip_file).read_text(), "verification": verification})
    return out


def _build_agent(tmp_path: Path, name: str, rows: list[dict], **cfg) -> tuple[dict, list[dict], list[dict]]:
    from kvdata.builders.hip_cudaagent import HipCudaAgentSource

    folder = tmp_path / name
    folder.mkdir()
    _write_jsonl(folder / "rows.jsonl", rows)
    out = tmp_path / f"{name}_out"
    result = build(BuildConfig(**cfg), out, progress=False, sources=[HipCudaAgentSource(str(folder))])
    return result.accounting, _rows(out, "hip_cudaagent"), _rejects(out)


@pytest.mark.parametrize("wrong_first", [True, False])
def test_correct_variant_wins_over_an_incorrect_near_duplicate(tmp_path, wrong_first):
    """1_ReLU and its one-token-wrong variant (x[i + 1]) are near duplicates (Jaccard ~0.98): the
    verified-correct one is kept whatever the order (and ids) of the two."""
    wrong = ("1_ReLU", "hip_code/1_ReLU__wrong_index.hip", {"correct": False, "speedup": 3.0})
    right = ("1_ReLU", "hip_code/1_ReLU.hip", {"correct": True, "speedup": 1.1})
    rows = _agent_rows([wrong, right] if wrong_first else [right, wrong])
    for workers in (0, 2):
        acc, kept, rejects = _build_agent(tmp_path, f"w{workers}", rows, workers=workers)
        assert [r["variant"] for r in kept] == ["1_ReLU"]
        assert kept[0]["verification"]["correct"] is True
        (dup,) = rejects
        assert dup["reason"] == "duplicate_near" and kept[0]["id"] in dup["message"]
        assert acc["sources"]["hip_cudaagent"]["reconciles"]


def test_priority_unknown_beats_incorrect_and_faster_beats_slower(tmp_path):
    """correct True > unknown > False, then higher speedup; the incorrect row loses to an unverified one."""
    rows = _agent_rows([("1_ReLU", "hip_code/1_ReLU__wrong_index.hip", {"correct": False}),
                        ("1_ReLU", "hip_code/1_ReLU.hip", {}),
                        ("5_Softmax", "hip_code/5_Softmax.hip", {"correct": True, "speedup": 1.2}),
                        ("5_Softmax", "hip_code/5_Softmax__partial_sum.hip", {"correct": True, "speedup": 2.5})])
    _, kept, rejects = _build_agent(tmp_path, "prio", rows)
    assert sorted(r["variant"] for r in kept) == ["1_ReLU", "5_Softmax__partial_sum"]
    assert sorted(r["reason"] for r in rejects) == ["duplicate_near", "duplicate_near"]


def test_near_duplicates_only_within_one_reference(tmp_path):
    """GEMM and GEMM+ReLU kernels are ~0.98 alike but answer different references: both stay."""
    rows = _agent_rows([("12_Gemm", "hip_code/12_Gemm.hip", {}), ("12_Gemm_ReLU", "hip_code/12_Gemm_ReLU.hip", {})])
    _, kept, rejects = _build_agent(tmp_path, "refs", rows)
    assert len(kept) == 2 and not rejects
    # the same two kernels under ONE reference are near duplicates
    rows[1]["pytorch_code"] = rows[0]["pytorch_code"]
    _, kept, rejects = _build_agent(tmp_path, "one_ref", rows)
    assert len(kept) == 1 and [r["reason"] for r in rejects] == ["duplicate_near"]


def test_units_compose_to_read():
    """The table-like builders' two halves give exactly what read() gives (the parallel build relies on it)."""
    from kvdata.builders.hip_cudaagent import HipCudaAgentSource

    for source in (_table_source(SAMPLE_TABLE), HipCudaAgentSource(str(SAMPLE_TABLE.parents[2] / "hip_cudaagent"))):
        via_units = [source.unit_to_item(u) for u in source.read_units()]
        assert via_units == list(source.read()) and len(via_units) > 3


class CrashOnThirdUnit(TritonTableSource):
    """A table builder whose costly half (run in the workers) raises on the third record."""

    kind = "crash_third"

    def unit_to_item(self, unit):
        if unit[0].endswith(":3"):
            raise RuntimeError("builder bug in unit_to_item")
        return super().unit_to_item(unit)


@pytest.mark.parametrize("workers", [0, 2])
def test_a_crash_in_a_worker_counts_like_one_in_process(tmp_path, workers):
    """Records after the crash are not counted even though workers read ahead (chunks of 1)."""
    rows = [dict(r, name=f"{r['name']}_{i}") for i, r in enumerate(_sample_table_rows() * 3)]
    path = _write_jsonl(tmp_path / "t.jsonl", rows)
    source = CrashOnThirdUnit(str(path), columns={"task_name": "name", "pytorch_code": "ref", "kernel_code": "triton",
                                                  "license": "lic", "generator": "model"})
    result = build(BuildConfig(workers=workers, batch_size=1), tmp_path / "out", progress=False, sources=[source])
    acc = result.accounting["sources"]["crash_third"]
    assert acc["input"] == 3 and acc["rejected"].get("other") == 1 and acc["reconciles"]
    crash = next(r for r in _rejects(tmp_path / "out") if r["ref"].endswith(":crash"))
    assert "source raised after 2 records" in crash["message"] and "unit_to_item" in crash["message"]


def test_columns_table_equals_rows_to_table():
    from kvdata.hub import rows_to_table
    from kvdata.pipeline import columns_table, row_of

    records = [r for r in _table_source(SAMPLE_TABLE).read() if isinstance(r, KernelRecord)]
    records.append(KernelRecord(subset="s", source="x", language="hip", task_name="t", pytorch_code=None,
                                kernel_code="k", license="MIT", provenance=Provenance(repo="r", line_start=3),
                                verification=Verification(correct=True, speedup=1.5)))
    assert columns_table(records, "triton").equals(rows_to_table([row_of(r) for r in records], "triton"))


# ----------------------------------------------------------------- the step list

def _sample_records() -> list:
    return [r for r in _table_source(SAMPLE_TABLE).read() if isinstance(r, KernelRecord)]


def test_the_default_steps_are_the_documented_list_and_are_timed(tmp_path):
    steps = default_steps(BuildConfig())
    assert [s.name for s in steps] == ["to_records", "check_rows", "licenses", "to_arrow", "fingerprint"]
    assert [type(s) for s in steps] == [ToRecords, CheckRows, FilterLicenses, ToArrow, Fingerprint]
    assert default_steps(BuildConfig(dedup=False))[-1].settings is None     # no fingerprints without dedup
    result = build(BuildConfig(workers=0), tmp_path / "out", progress=False, sources=[_table_source(SAMPLE_TABLE)])
    assert {s.name for s in steps} <= set(result.step_seconds)


def test_process_chunk_accounts_for_every_item_in_order():
    """Real records mixed with what builders get wrong: each step drops with its own reason, and every
    item is one candidate row or one reject, in the order the steps met them."""
    good = _sample_records()[:3]
    good.append(replace(good[0], task_name=good[0].task_name + "_other", id=""))   # a 4th row with its own id
    no_license = replace(good[0], license=None)
    gpl = replace(good[1], license="GPL-3.0")
    bad_type = replace(good[2], variant=7)                       # CheckRows: an optional field of the wrong type
    builder_reject = Reject(source="?", ref="", reason=RejectReason.SYNTAX_ERROR, message="from the builder")
    items = [good[0], {"not": "a record"}, no_license, good[1], gpl, builder_reject, bad_type, good[3]]
    chunk = Chunk(0, "t", "triton", 11, items)
    result = process_chunk(chunk, default_steps(BuildConfig()))
    assert result.n_items == len(items) and not result.crashed
    assert result.block.ids == [good[0].id, good[1].id, good[3].id] == result.table.column("id").to_pylist()
    assert [(r.reason, r.ref.split(" ")[0]) for r in result.rejects] == [
        (RejectReason.OTHER, "t#12"), (RejectReason.SYNTAX_ERROR, "t#16"),          # to_records: not records
        (RejectReason.MISSING_LICENSE, "t#13"), (RejectReason.MISSING_FIELD, "t#17"),  # check_rows
        (RejectReason.LICENSE_NOT_ALLOWED, "t#15")]                                   # licenses
    assert result.block.refs[-1].startswith("t#18")
    assert set(result.seconds) == {"to_records", "check_rows", "licenses", "to_arrow", "fingerprint"}


def test_units_made_into_records_in_process_equal_the_sources_items():
    """ToRecords' unit path (what workers run) gives what read() gives, with no pool involved."""
    source = _table_source(SAMPLE_TABLE)
    steps = default_steps(BuildConfig())
    via_items = process_chunk(Chunk(0, source.name, "triton", 1, list(source.read())), steps)
    via_units = process_chunk(Chunk(0, source.name, "triton", 1, list(source.read_units()), source=source), steps)
    assert via_units.n_items == via_items.n_items > 3
    assert [(r.reason, r.ref, r.message) for r in via_units.rejects] == \
        [(r.reason, r.ref, r.message) for r in via_items.rejects]
    assert via_units.table.equals(via_items.table) and via_units.block.ids == via_items.block.ids


class DropLongKernels(RecordFilter):
    """A filter added to the build's list: kernels over ``limit`` characters become ``other`` rejects."""

    name = "long_kernels"

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def decide(self, config, records):
        return [(RejectReason.OTHER, f"kernel over {self.limit} chars") if len(r.kernel_code) > self.limit else None
                for r in records]


@pytest.mark.parametrize("workers", [0, 2])
def test_a_filter_added_to_the_step_list_drops_with_its_reason(tmp_path, workers):
    lengths = sorted(len(r.kernel_code) for r in _sample_records())
    limit = lengths[len(lengths) // 2]
    steps = list(default_steps(BuildConfig()))
    steps.insert(3, DropLongKernels(limit))               # after the licenses, before the Arrow table
    out = tmp_path / "out"
    result = Pipeline(BuildConfig(workers=workers, dedup=False), out, progress=False, steps=steps).run(
        [_table_source(SAMPLE_TABLE)])
    rows = _rows(out, "triton")
    assert rows and all(len(r["kernel_code"]) <= limit for r in rows)
    dropped = [r for r in _rejects(out) if r["message"] == f"kernel over {limit} chars"]
    assert dropped and all(r["reason"] == "other" for r in dropped)
    assert result.accounting["reconciles"] and "long_kernels" in result.step_seconds


class LosesARecord(RecordFilter):
    """A broken filter: one decision short, which a zip would turn into a record lost without a reject."""

    name = "loses_one"

    def decide(self, config, records):
        return [None] * (len(records) - 1)


def test_a_step_that_would_lose_records_fails_loudly(tmp_path):
    steps = list(default_steps(BuildConfig()))
    steps.insert(1, LosesARecord())
    with pytest.raises(ValueError, match="loses_one gave"):
        Pipeline(BuildConfig(workers=0), tmp_path / "out", progress=False, steps=steps).run(
            [_table_source(SAMPLE_TABLE)])
    with pytest.raises(RuntimeError, match="ToRecords is not the first step"):      # without ToRecords nothing would be accounted for
        process_chunk(Chunk(0, "t", "triton", 1, _sample_records()[:2]), default_steps(BuildConfig())[1:])
    with pytest.raises(RuntimeError, match="ToArrow and Fingerprint"):   # a filter after the table: misaligned
        steps = list(default_steps(BuildConfig()))
        process_chunk(Chunk(0, "t", "triton", 1, _sample_records()), steps + [DropLongKernels(0), steps[-1]])


class RaisesAtOnce(Source):
    """A builder whose read() is a plain function that raises before returning an iterator."""

    kind = "raises_at_once"
    config = "triton"

    def read(self):
        raise OSError("cannot open the input")


def test_a_source_whose_read_raises_at_once_is_one_reject(tmp_path):
    result = build(BuildConfig(workers=0), tmp_path / "out", progress=False,
                   sources=[RaisesAtOnce("-"), _table_source(SAMPLE_TABLE)])
    acc = result.accounting["sources"]["raises_at_once"]
    assert acc["input"] == 1 and acc["rejected"] == {"other": 1} and result.accounting["reconciles"]
    assert "source raised after 0 records: OSError: cannot open the input" in _rejects(tmp_path / "out")[0]["message"]


def test_step_times_timed_adds_up_and_counts_a_failing_block():
    times = StepTimes()
    with times.timed("a"):
        time.sleep(0.01)
    with times.timed("a"):
        pass
    with pytest.raises(KeyError):
        with times.timed("b"):
            raise KeyError("x")
    assert times.seconds["a"] >= 0.01 and "b" in times.seconds and set(times.as_dict()) == {"a", "b"}


def test_build_defaults_come_from_one_place():
    from kvdata import dedup
    from kvdata.dedup import DedupSettings, FingerprintSettings

    cfg = BuildConfig()
    assert (cfg.near_dup_threshold, cfg.num_perm, cfg.shingle) == (
        dedup.DEFAULT_NEAR_DUP_THRESHOLD, dedup.DEFAULT_NUM_PERM, dedup.DEFAULT_SHINGLE)
    assert (DedupSettings().threshold, DedupSettings().num_perm) == (cfg.near_dup_threshold, cfg.num_perm)
    assert (FingerprintSettings().num_perm, FingerprintSettings().shingle) == (cfg.num_perm, cfg.shingle)
