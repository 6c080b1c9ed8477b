"""Run a red team's folder (``<case>/reference.py`` + ``kernel.py``, listed in ``manifest.json``) through the real
sandboxed verifier on the Triton interpreter: what tests/test_reverify_redteam.py and test_reverify_suite3.py
share."""
from __future__ import annotations

from pathlib import Path

from kvdata.reverify import reverify
from kvdata.reverify.config import ReverifyConfig
from kvdata.reverify.samples import Sample
from kvdata.reverify.store import read_results


def run_cases(root: Path, entries: list[dict], tmp: Path, **config) -> dict[str, dict]:
    """{case: result row} of every entry, 2 seeds, 2 workers (``config`` overrides ReverifyConfig fields)."""
    samples = [Sample(id=e["case"], language="triton", pytorch_code=(root / e["case"] / "reference.py").read_text(),
                      kernel_code=(root / e["case"] / "kernel.py").read_text()) for e in entries]
    out = tmp / "results.jsonl"
    reverify(samples, out, ReverifyConfig(**{"backend": "triton-interpreter", "seeds": 2, "timeout_s": 120,
                                             "memory_mb": 3000, **config}),
             workers=2, cache_root=tmp / "cache", progress=False)
    return {r["id"]: r for r in read_results(out)}
