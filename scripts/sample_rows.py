#!/usr/bin/env python
"""Write the bundled sample's kept rows of one folder (e.g. triton) as JSONL, straight from its Sources.

No dedup, no license filter: every kernel the sample's builders keep, for re-verification runs and
benchmarks (`kvdata reverify --input ROWS.jsonl`).

    python scripts/sample_rows.py --group triton --out rows.jsonl
"""
from __future__ import annotations

import argparse
import json

from kvdata.buildconfig import sample_root, sample_specs
from kvdata.pipeline import make_source
from kvdata.schema import KernelRecord, QARecord


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--group", required=True, help="sample folder name, e.g. triton, hip_gpumode")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    folder = sample_root() / args.group
    n = 0
    with open(args.out, "w") as out:
        for spec in sample_specs():
            if not str(spec.path).startswith(str(folder)):
                continue
            for item in make_source(spec).read():
                if isinstance(item, (KernelRecord, QARecord)):
                    out.write(json.dumps(item.to_row(), default=str) + "\n")
                    n += 1
    print(f"wrote {n} rows from {folder} to {args.out}")


if __name__ == "__main__":
    main()
