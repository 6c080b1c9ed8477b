"""Dev tool: check the bundled Triton sample's labels on the CPU Triton interpreter.

Reads builders/sample/triton through its four Sources (sources.yaml), runs every kept
pair in this process under ``TRITON_INTERPRET=1`` and compares ModelNew with Model for
several seeds (atol 1e-3, rtol 1e-4, the triton defaults of kvdata.schema). Rejects are
reported as "malformed". Prints a table, writes JSON, exits 1 if any observed label
differs from expected.json. This is NOT the verifier (no sandbox, no anti-hack checks):
it only runs the sample we wrote ourselves.

    python scripts/check_triton_sample.py [--seeds 3] [--json out.json]
"""
from __future__ import annotations

import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported anywhere

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "builders" / "sample" / "triton"


def read_sample() -> list:
    from kvdata.builders import source_class

    items = []
    for spec in yaml.safe_load((SAMPLE / "sources.yaml").read_text()):
        source = source_class(spec["kind"])(str(SAMPLE / spec["path"]), **(spec.get("options") or {}))
        items.extend((spec["kind"], item) for item in source.read())
    return items


def import_code(code: str, name: str, folder: Path):
    """Import code from a real file: @triton.jit reads its function's source with inspect."""
    path = folder / f"{name}.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compare(record, seeds: int, atol: float, rtol: float, folder: Path) -> tuple[int, float]:
    """(number of seeds that do NOT match, worst max-abs error) for one pair."""
    import torch

    tag = record.id.replace("-", "_")
    ref = import_code(record.pytorch_code, f"ref_{tag}", folder)
    ker = import_code(record.kernel_code, f"ker_{tag}", folder)
    failed, worst = 0, 0.0
    for seed in range(seeds):
        torch.manual_seed(seed)
        init = ref.get_init_inputs()
        model = ref.Model(*init)
        candidate = ker.ModelNew(*init)
        candidate.load_state_dict(model.state_dict())
        inputs = ref.get_inputs()
        with torch.no_grad():
            expected = model(*inputs)
            got = candidate(*[x.clone() if torch.is_tensor(x) else x for x in inputs])
        if got.shape != expected.shape:
            failed, worst = failed + 1, float("inf")
            continue
        err = (got.float() - expected.float()).abs().max().item() if got.numel() else 0.0
        worst = max(worst, err if err == err else float("inf"))
        failed += not torch.allclose(got, expected, atol=atol, rtol=rtol)
    return failed, worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--json", default=str(REPO / "out" / "check_triton_sample.json"))
    args = parser.parse_args()
    from kvdata.schema import DEFAULT_TOLERANCES, Reject

    atol, rtol = DEFAULT_TOLERANCES["triton"]
    expected = json.loads((SAMPLE / "expected.json").read_text())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        for kind, item in read_sample():
            if isinstance(item, Reject):
                name = item.message.split(": ", 1)[0]   # builders prefix the task name when known
                rows.append({"task": name, "kind": kind, "observed": "malformed", "max_err": None,
                             "seconds": 0.0, "detail": item.reason.value})
                continue
            start = time.perf_counter()
            try:
                failed, err = compare(item, args.seeds, atol, rtol, Path(tmp))
                observed = "correct" if failed == 0 else "incorrect"
                # an incorrect sample must fail on every seed, or a verifier using fewer seeds misses it
                detail = f"fails {failed}/{args.seeds} seeds" if failed else ""
                if 0 < failed < args.seeds:
                    observed = "flaky"
            except Exception as e:  # a crash is an incorrect kernel, not a crash of the tool
                observed, err, detail = "incorrect", float("inf"), f"{type(e).__name__}: {e}"[:80]
            rows.append({"task": item.task_name, "kind": kind, "observed": observed, "max_err": err,
                         "seconds": round(time.perf_counter() - start, 3), "detail": detail})
    failures = 0
    print(f"{'task':28} {'kind':20} {'expected':10} {'observed':10} {'max_err':>10} {'s':>6}  detail")
    for r in rows:
        r["expected"] = expected.get(r["task"], "?")
        mark = "" if r["expected"] == r["observed"] else "  <-- MISMATCH"
        failures += bool(mark)
        err = "-" if r["max_err"] is None else f"{r['max_err']:.2e}"
        print(f"{r['task']:28} {r['kind']:20} {r['expected']:10} {r['observed']:10} {err:>10} "
              f"{r['seconds']:6.2f}  {r['detail']}{mark}")
    missing = sorted(set(expected) - {r["task"] for r in rows})
    for name in missing:
        print(f"{name:28} not produced by any source  <-- MISSING")
    total = sum(r["seconds"] for r in rows)
    print(f"\n{len(rows)} items, {failures} label mismatches, {len(missing)} missing, {total:.1f} s running pairs")
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"atol": atol, "rtol": rtol, "seeds": args.seeds, "rows": rows,
                               "mismatches": failures, "missing": missing}, indent=1, default=str))
    return 1 if failures or missing else 0


if __name__ == "__main__":
    sys.exit(main())
