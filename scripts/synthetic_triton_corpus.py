"""A synthetic Triton training corpus shaped like the real mined one, for timing the audit end to end.

The real case (1,554 Triton files mined from 11 PyPI releases): median ~4,700 characters, about 10% of files
over 20,000 characters, a few over 100,000. Each synthetic file is a "library": a header of imports, then
kernels with their launch wrappers. Kernels come from the TritonBench-G references (read from the shared data
folder by path, never stored) with seeded edits — arguments renamed, block sizes changed, comments dropped — and
from generated elementwise kernels. Some files therefore hold benchmark kernels, as the real corpus does.

    from synthetic_triton_corpus import triton_corpus
    ids, codes = triton_corpus(1500, "../shared/data/tritonbench/TritonBench_G_v1.json", seed=0)
"""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

HEADER = "import math\nimport torch\nimport triton\nimport triton.language as tl\n\n"
_OPS = ["tl.exp({x})", "tl.sigmoid({x})", "{x} * {c}", "tl.maximum({x}, 0.0)", "tl.abs({x}) + {c}",
        "tl.where({x} > 0, {x}, {x} * {c})", "{x} * tl.sigmoid({x})", "tl.sqrt(tl.abs({x}) + 1e-6)"]


def _generated_kernel(rng: random.Random) -> str:
    name = f"fused_{rng.choice(['act', 'scale', 'bias', 'norm', 'gate'])}_{rng.randrange(10**6)}"
    x = rng.choice(["x", "val", "v", "inp", "a"])
    body = [f"    {x} = tl.load(in_ptr + offs, mask=mask, other=0.0)"]
    for _ in range(rng.randint(1, 4)):
        body.append(f"    {x} = " + rng.choice(_OPS).format(x=x, c=round(rng.uniform(0.1, 3.0), 3)))
    block = rng.choice([128, 256, 512, 1024, 2048])
    return (f"@triton.jit\ndef {name}_kernel(in_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):\n"
            "    pid = tl.program_id(axis=0)\n    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n"
            "    mask = offs < n_elements\n" + "\n".join(body) +
            f"\n    tl.store(out_ptr + offs, {x}, mask=mask)\n\n\n"
            f"def {name}(x: torch.Tensor) -> torch.Tensor:\n    out = torch.empty_like(x)\n    n = x.numel()\n"
            f"    grid = lambda meta: (triton.cdiv(n, meta['BLOCK_SIZE']),)\n"
            f"    {name}_kernel[grid](x, out, n, BLOCK_SIZE={block})\n    return out\n\n\n")


def _edited(code: str, rng: random.Random) -> str:
    """A benchmark reference with seeded light edits (what a vendored copy in a library looks like)."""
    code = re.sub(r"^(import|from) .*\n", "", code, flags=re.M)
    if rng.random() < 0.5:
        code = re.sub(r"#[^\n]*", "", code)
    if rng.random() < 0.5:
        code = re.sub(r"\bBLOCK_SIZE\b", "BLOCK", code)
    if rng.random() < 0.4:
        code = re.sub(r"\b(1024|512|256)\b", lambda m: str(int(m.group(1)) * 2), code)
    return code + "\n\n"


def _target_length(rng: random.Random) -> int:
    """~4,700 median, 10% over 20,000, ~0.5% over 100,000 characters."""
    u = rng.random()
    if u < 0.005:
        return rng.randint(100_000, 130_000)
    if u < 0.10:
        return rng.randint(20_000, 60_000)
    return int(min(19_000, max(600, rng.lognormvariate(7.75, 0.6))))


def triton_corpus(n_files: int, tritonbench_path: str | Path, seed: int = 0) -> tuple[list[str], list[str]]:
    """(ids, codes) of ``n_files`` synthetic Triton library files."""
    rng = random.Random(seed)
    refs = [r["output"] for r in json.loads(Path(tritonbench_path).read_text(encoding="utf-8")) if r.get("output")]
    ids, codes = [], []
    for i in range(n_files):
        target = _target_length(rng)
        parts, size = [HEADER], len(HEADER)
        while size < target:
            piece = _edited(rng.choice(refs), rng) if rng.random() < 0.3 else _generated_kernel(rng)
            parts.append(piece)
            size += len(piece)
        ids.append(f"synthetic/pkg{i % 11}/lib_{i:05d}.py")
        codes.append("".join(parts))
    return ids, codes
