"""Portability run: the bundled HIP samples, translated to CUDA, built with nvcc, checked on an NVIDIA GPU.

A portability run, not AMD verification: it tells which samples survive HIP→CUDA
translation and 32-lane warps. For each sample it builds the cuda-portability candidate,
runs it and the functional reference (``Model`` with ``fn=module_fn``) on the same inputs
(three seeds), and compares with rtol=atol=1e-4 (the upstream HIP tolerance). Prints a table,
writes JSON. Needs torch with CUDA, nvcc, a GPU; no polars or datasets.

    python scripts/portability_run.py --sample-dir builders/sample/hip_gpumode --out portability.json
    python scripts/portability_run.py --input rows.jsonl   # rows with id, kernel_code, pytorch_functional_code

With ``--sample-dir``, each ``hip_code/*.hip`` and ``hip_opt/*.hip`` is paired with the
``pytorch_code_functional/*.py`` whose name is the longest prefix of the .hip's name, and
``expected.json`` (if present) gives the verdict the sample should get on AMD.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import traceback
from pathlib import Path


def samples_from_dir(sample_dir: Path) -> list[dict]:
    functional = {p.stem: p.read_text() for p in (sample_dir / "pytorch_code_functional").glob("*.py")}
    expected_path = sample_dir / "expected.json"
    expected = json.loads(expected_path.read_text()) if expected_path.exists() else {}
    rows = []
    for hip in sorted(sample_dir.glob("*/*.hip")):
        stems = [s for s in functional if hip.stem == s or hip.stem.startswith(s + "_")]
        if not stems:
            continue
        rel = f"{hip.parent.name}/{hip.name}"
        rows.append({"id": rel, "kernel_code": hip.read_text(),
                     "pytorch_functional_code": functional[max(stems, key=len)],
                     "expected": expected.get(rel)})
    return rows


def samples_from_file(path: Path) -> list[dict]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        rows = pq.read_table(path).to_pylist()
    else:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r.get("language", "hip") == "hip"]


def check_sample(row: dict, backend, cache_dir: Path, seeds=(0, 1, 2), rtol=1e-4, atol=1e-4) -> dict:
    import torch

    from kvdata.reverify.backends.rocm import load_functional_module

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as work:
        candidate = backend.build(row, Path(work), cache_dir)
    build_s = time.perf_counter() - t0
    ref_module = load_functional_module(row["pytorch_functional_code"])
    ok = True
    max_err = 0.0
    for seed in seeds:
        torch.manual_seed(seed)
        init = ref_module.get_init_inputs() if hasattr(ref_module, "get_init_inputs") else []
        reference = ref_module.Model(*init).cuda()
        model = candidate.make_module(tuple(init))
        model.load_state_dict(reference.state_dict())
        model = model.cuda()
        inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in ref_module.get_inputs()]
        with torch.no_grad():
            got = model(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
            want = reference(*inputs)
        torch.cuda.synchronize()
        max_err = max(max_err, (got.float() - want.float()).abs().max().item())
        ok = ok and got.shape == want.shape and torch.allclose(got, want, rtol=rtol, atol=atol)
    return {"status": "correct" if ok else "incorrect", "max_abs_err": max_err, "build_s": round(build_s, 2),
            "cache_hit": candidate.cache_hit, "ext_calls": candidate.kernel_gate.count}


def _checked(row: dict, cache_dir: Path, backend=None) -> dict:
    """check_sample, with any failure turned into a status (one sample never ends the run)."""
    from kvdata.reverify.backends.cuda_portability import CudaPortabilityBackend

    try:
        return check_sample(row, backend or CudaPortabilityBackend(), cache_dir)
    except Exception as exc:
        return {"status": "compile_error" if "build" in type(exc).__name__.lower() or
                "Translation" in type(exc).__name__ else "runtime_error",
                "error": "".join(traceback.format_exception_only(exc)).strip()[-2000:]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample-dir", type=Path, default=Path("builders/sample/hip_gpumode"))
    parser.add_argument("--input", type=Path, help="JSONL or parquet rows instead of --sample-dir")
    parser.add_argument("--cache-dir", type=Path, default=Path(".kvdata-cache/portability"))
    parser.add_argument("--out", type=Path, default=Path("portability.json"))
    parser.add_argument("--limit", type=int, help="only the first N samples")
    parser.add_argument("--jobs", type=int, default=1, help="samples built and run in parallel processes")
    args = parser.parse_args()

    from kvdata.reverify.backends.cuda_portability import CudaPortabilityBackend

    backend = CudaPortabilityBackend()
    ok, why = backend.is_available()
    if not ok:
        print(f"cuda-portability backend unavailable: {why}", file=sys.stderr)
        return 2
    rows = samples_from_file(args.input) if args.input else samples_from_dir(args.sample_dir)
    rows = rows[:args.limit] if args.limit else rows
    results = []
    if args.jobs > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            outcomes = list(pool.map(_checked, rows, [args.cache_dir] * len(rows)))
    else:
        outcomes = (_checked(row, args.cache_dir, backend) for row in rows)
    for row, outcome in zip(rows, outcomes):
        outcome.update(id=row["id"], expected=row.get("expected"))
        results.append(outcome)
        print(f"{row['id']:<45} {outcome['status']:<14} expected={outcome['expected']!s:<10} "
              f"err={outcome.get('max_abs_err', float('nan')):.2e} build={outcome.get('build_s', 0):>6}s "
              f"hit={outcome.get('cache_hit')}", flush=True)
    agree = sum(r["status"] == r["expected"] for r in results if r["expected"])
    judged = sum(1 for r in results if r["expected"])
    summary = {"portability": True, "environment": backend.environment(), "samples": len(results),
               "by_status": {s: sum(r["status"] == s for r in results) for s in {r["status"] for r in results}},
               "agree_with_expected": f"{agree}/{judged}", "results": results}
    args.out.write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "results"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
