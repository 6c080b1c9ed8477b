"""The build executors on real chunks of the bundled sample: in order, bounded read-ahead, same results.

No stand-ins: the tasks are chunks of the sample's Triton table (records and units), and the
function is the pipeline's own ``process_chunk`` with the build's default steps.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from kvdata.build_executor import PARALLEL_CHUNK, LocalExecutor, PoolExecutor, make_executor
from kvdata.buildconfig import BuildConfig
from kvdata.builders.triton import TritonTableSource
from kvdata.pipeline import Chunk, default_steps, process_chunk

SAMPLE_TABLE = Path(__file__).resolve().parent.parent / "builders" / "sample" / "triton" / "table" / "agent_outputs.jsonl"
COLUMNS = {"task_name": "name", "pytorch_code": "ref", "kernel_code": "triton", "license": "lic", "generator": "model"}


def _source(tmp_path: Path, copies: int = 60) -> TritonTableSource:
    """The sample table, ``copies`` times with renamed tasks (so the rows differ), as a real JSONL Source."""
    rows = [json.loads(line) for line in SAMPLE_TABLE.read_text().splitlines() if line.strip()]
    path = tmp_path / "table.jsonl"
    path.write_text("".join(json.dumps(dict(r, name=f"{r['name']}_{i}")) + "\n"
                            for i, r in enumerate(rows * copies)))
    return TritonTableSource(str(path), columns=COLUMNS)


def _chunks(source, sizes: list[int], units: bool) -> list[Chunk]:
    """Consecutive chunks of the given sizes (the last takes the rest), of items or of units."""
    everything = list(source.read_units() if units else source.read())
    out, start = [], 0
    for k, size in enumerate(sizes):
        part = everything[start:] if k == len(sizes) - 1 else everything[start:start + size]
        out.append(Chunk(0, source.name, source.config, start + 1, part, source=source if units else None))
        start += len(part)
    return out


def _summary(result) -> tuple:
    """What a chunk's result means for the build: its count, rejects, candidate rows and fingerprints."""
    block = result.block
    fp = block.fingerprints if block is not None else None
    return (result.n_items, [(r.reason, r.ref, r.message) for r in result.rejects],
            result.table.to_pylist() if result.table is not None else None,
            None if block is None else (block.ids, block.refs, block.ranks, fp.digests, fp.sigs.tolist()))


def test_pool_gives_what_the_local_executor_gives_in_task_order(tmp_path):
    """Same results, same order, whether chunks of items run here or chunks of units in 2 workers."""
    source = _source(tmp_path)
    steps = default_steps(BuildConfig())
    sizes = [100, 3, 1, 1, 40, 7]       # a big first chunk: the small ones behind it finish first
    local = [(c.first_ordinal, _summary(r))
             for c, r in LocalExecutor().imap(process_chunk, _chunks(source, sizes, units=False), steps)]
    with PoolExecutor(2) as pool:
        pooled = [(c.first_ordinal, _summary(r))
                  for c, r in pool.imap(process_chunk, _chunks(source, sizes, units=True), steps)]
    assert [o for o, _ in local] == [1, 101, 104, 105, 106, 146]
    assert pooled == local
    assert sum(s[0] for _, s in local) == len(list(source.read_units()))
    assert any(s[1] for _, s in local), "the sample table has rejects: the comparison covers them"


def _slow_identity(x: float) -> float:
    """Sleeps ``x`` seconds and returns it: tasks that finish in the opposite order to the one submitted."""
    time.sleep(x)
    return x


def test_pool_results_are_absorbed_in_order_with_bounded_read_ahead():
    """The consumer sees results in task order although later tasks finish first, and the iterator is
    drawn at most ``depth`` tasks ahead of what was handed on (read-ahead, but bounded)."""
    delays = [0.4, 0.3, 0.2, 0.1, 0.0, 0.0, 0.0, 0.0]
    drawn = []

    def tasks():
        for d in delays:
            drawn.append(d)
            yield d

    with PoolExecutor(2) as pool:
        seen = []
        for task, result in pool.imap(_slow_identity, tasks()):
            assert task == result
            seen.append(result)
            assert len(drawn) - len(seen) <= pool.depth     # at most depth tasks in flight beyond this one
        assert seen == delays
    # in-process: nothing is read ahead
    drawn.clear()
    seen = []
    for task, result in LocalExecutor().imap(_slow_identity, tasks()):
        seen.append(result)
        assert len(drawn) == len(seen)
    assert seen == delays


def test_the_consumer_steers_the_iterator_between_results():
    """Work done on a result happens before the next task is drawn: the pipeline relies on it to
    stop reading a Source after a crash found in a worker."""
    for executor in (LocalExecutor(), PoolExecutor(1)):
        with executor:
            stop = []

            def tasks():
                for d in [0.0] * 20:
                    if stop:
                        return
                    yield d

            n = 0
            for _ in executor.imap(_slow_identity, tasks()):
                n += 1
                if n == 3:
                    stop.append(True)
            assert n <= 3 + getattr(executor, "depth", 0)


def test_run_each_returns_results_in_job_order():
    jobs = [(0.3,), (0.0,), (0.1,)]
    for executor in (LocalExecutor(), PoolExecutor(2)):
        with executor:
            assert executor.run_each(_slow_identity, jobs) == [0.3, 0.0, 0.1]
            assert executor.run_each(_slow_identity, [(0.0,)]) == [0.0]


def test_make_executor_and_chunk_sizes():
    local = make_executor(0)
    assert isinstance(local, LocalExecutor) and not local.ships_tasks and local.chunk_size(4000) == 4000
    with make_executor(1) as pool:
        assert isinstance(pool, PoolExecutor) and pool.ships_tasks and pool.workers == 1
        assert pool.chunk_size(4000) == PARALLEL_CHUNK and pool.chunk_size(10) == 10
    with pytest.raises(RuntimeError):      # closed: no more work is accepted
        pool.run_each(_slow_identity, [(0.0,), (0.0,)])
    with pytest.raises(ValueError):
        PoolExecutor(0)
