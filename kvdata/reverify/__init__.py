"""Re-verification: recompile and rerun corpus samples in a sandbox, with checks no kernel can fool.

``reverify(samples, out, config)`` is the one entry point the CLI calls: it picks this
shard's samples, drops those already in the results file (resume), hands the rest to an
executor, and appends each result as it arrives. The pieces: ``samples`` (reading rows),
``config`` (tolerances and defaults), ``backends`` (kernel_code → candidate), ``harness``
(what runs in the worker), ``worker`` (warm zygotes), ``runner`` (one sample's verdict),
``checks`` (each anti-hack check), ``executors`` (scheduling), ``store`` (append-only
results), ``report`` (summary, plots, drift).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvdata.reverify.protocol import ResultRow

import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

logger = logging.getLogger(__name__)


@dataclass
class RunSummary:
    results: Path
    total: int
    already_done: int
    ran: int
    counts: dict = field(default_factory=dict)
    parquet: Optional[Path] = None


def jsonl_path_for(out: Path) -> Path:
    """Where results are appended: ``out`` itself, or a ``.jsonl`` log next to a parquet ``out``."""
    out = Path(out)
    return out.with_name(out.stem + ".results.jsonl") if out.suffix == ".parquet" else out


def reverify(samples: Sequence, out: str | Path, config=None, executor: str = "local", workers: int = 1,
             gpus: Optional[int] = None, shard: Optional[tuple[int, int]] = None, cache_root=None,
             scratch_root=None, ray_address: Optional[str] = None, progress: bool = True) -> RunSummary:
    from kvdata.reverify.config import ReverifyConfig
    from kvdata.reverify.executors import make_executor, select_shard
    from kvdata.reverify.runner import Verifier
    from kvdata.reverify.store import ResultStore

    config = config or ReverifyConfig()
    from kvdata.reverify.store import check_results_file

    out = Path(out)
    check_results_file(out)                            # the user's own file is never overwritten or appended to
    check_results_file(jsonl_path_for(out))
    store = ResultStore(jsonl_path_for(out))
    samples = _unique_ids(samples)
    if shard:
        samples = select_shard(samples, *shard)
    keyer = Verifier(config)                     # only computes keys; starts no worker
    keys = {s.id: keyer.key(s) for s in samples}
    todo = [s for s in samples if not store.is_done(keys[s.id])]
    done_before = len(samples) - len(todo)
    counts: Counter = Counter()
    bar = _progress(len(todo), progress)

    def on_result(row: "ResultRow") -> None:
        store.append(row.to_dict())
        counts[row.status] += 1
        if bar is not None:
            bar.update(1)
            bar.set_postfix(dict(counts), refresh=False)

    try:
        make_executor(executor, config, workers=workers, gpus=gpus, cache_root=cache_root,
                      scratch_root=scratch_root, ray_address=ray_address).run(todo, on_result)
    finally:
        if bar is not None:
            bar.close()
    summary = RunSummary(results=store.path, total=len(samples), already_done=done_before, ran=len(todo),
                         counts=dict(counts))
    if out.suffix == ".parquet":
        summary.parquet = store.write_parquet(out, keys=set(keys.values()))
    return summary


def _unique_ids(samples: Sequence) -> list:
    seen, out = set(), []
    for s in samples:
        if s.id in seen:
            logger.warning("duplicate sample id %s: keeping the first", s.id)
            continue
        seen.add(s.id)
        out.append(s)
    return out


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc="reverify", unit="sample")
