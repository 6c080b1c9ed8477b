"""Benchmark loaders in one registry: each turns a benchmark's own file layout into ``BenchmarkItem`` s.

Item ids carry the benchmark's own name for the item, so a report line can be looked up upstream:
KernelBench ``kernelbench/v0.1/level2/1_Conv2D_ReLU_BiasAdd``, TritonBench-G and ROCmBench their ``file``,
TritonBench-T ``tritonbench-t/<file>``. Loaders take a path (a local copy); only KernelBench can also come from
the Hugging Face Hub (``ScalingIntelligence/KernelBench``), loaded lazily when no path is given.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

__all__ = ["BenchmarkItem", "BENCHMARKS", "load_benchmark", "KERNELBENCH_HUB_ID"]

KERNELBENCH_HUB_ID = "ScalingIntelligence/KernelBench"
KERNELBENCH_VERSIONS = ("v0", "v0.1")


@dataclass
class BenchmarkItem:
    """One benchmark task: the code an overlap audit compares against training rows."""

    id: str
    benchmark: str
    code: str
    name: str
    version: Optional[str] = None
    level: Optional[int] = None
    meta: dict[str, Any] = field(default_factory=dict)


def _read_json_array(path: Path) -> list[dict]:
    """A JSON array (TritonBench's ``.jsonl`` files are pretty-printed arrays), or real JSON Lines."""
    if path.is_dir():
        raise ValueError(f"{path} is a folder; give the benchmark's JSON/JSONL file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file (JSON or JSON Lines expected)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                data.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}: line {n} is not JSON ({e.msg}); expected a JSON array or JSON Lines") \
                    from None
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON array of objects")
    return data


def _require(path: Optional[str | Path], bench: str) -> Path:
    if path is None:
        raise ValueError(f"benchmark {bench!r} needs --bench-path (a local copy); only kernelbench loads from the Hub")
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{bench}: {p} does not exist")
    return p


def _kernelbench_item(name: str, level: int, code: str, version: str, meta: dict) -> BenchmarkItem:
    return BenchmarkItem(id=f"kernelbench/{version}/level{level}/{name}", benchmark="kernelbench", code=code,
                         name=name, version=version, level=level, meta=meta)


def load_kernelbench(path: Optional[str | Path] = None, *, version: str = "v0.1",
                     levels: Optional[Sequence[int]] = None) -> list[BenchmarkItem]:
    """KernelBench from a JSONL (``name, level, problem_id, code``), a folder ``level<N>/<stem>.py``, or the Hub.

    ``version`` labels the items (the file's content decides what they are); the Hub copy is loaded only when
    no path is given.
    """
    if version not in KERNELBENCH_VERSIONS:
        raise ValueError(f"unknown KernelBench version {version!r}; expected one of {KERNELBENCH_VERSIONS}")
    wanted = set(levels) if levels else None
    if path is None:
        rows = _kernelbench_rows_from_hub()
    else:
        p = _require(path, "kernelbench")
        rows = _kernelbench_rows_from_folder(p) if p.is_dir() else _kernelbench_rows_from_file(p)
    items = []
    for row in rows:
        level = int(row["level"])
        if wanted is not None and level not in wanted:
            continue
        meta = {k: row[k] for k in ("problem_id", "source_path") if row.get(k) is not None}
        items.append(_kernelbench_item(str(row["name"]), level, row["code"], version, meta))
    return items


def _kernelbench_rows_from_file(path: Path) -> list[dict]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    return _checked(_read_json_array(path), path, "kernelbench")


def _kernelbench_rows_from_folder(folder: Path) -> list[dict]:
    rows = []
    for file in sorted(folder.glob("level*/*.py")):
        m = re.fullmatch(r"level(\d+)", file.parent.name)
        if not m:
            continue
        pid = re.match(r"(\d+)_", file.stem)
        rows.append({"name": file.stem, "level": int(m.group(1)), "code": file.read_text(encoding="utf-8"),
                     "problem_id": int(pid.group(1)) if pid else None, "source_path": str(file.relative_to(folder))})
    if not rows:
        raise ValueError(f"{folder}: no level<N>/*.py problem files found")
    return rows


def _kernelbench_rows_from_hub() -> list[dict]:
    """All levels of the Hub copy (one split per level). Fails clearly, and in seconds, when offline."""
    from kvdata.hub import require_hub

    require_hub(f"--bench kernelbench without --bench-path loads {KERNELBENCH_HUB_ID}, and",
                "pass --bench-path with a local JSONL or folder of KernelBench problems")
    try:
        from datasets import load_dataset

        ds = load_dataset(KERNELBENCH_HUB_ID)
    except Exception as exc:  # network, auth or cache errors all mean the same to the user
        raise RuntimeError(
            f"could not load {KERNELBENCH_HUB_ID} from the Hugging Face Hub ({type(exc).__name__}: {exc}); "
            "offline? pass --bench-path with a local JSONL or folder of KernelBench problems") from exc
    rows = []
    for split in ds.values():
        rows.extend(split.to_list())
    return rows


#: The fields each benchmark's rows need, and how to tell which benchmark a file holds (the error names it).
_FIELDS = {"kernelbench": ("name", "level", "code"), "tritonbench-g": ("file", "output"),
           "tritonbench-t": ("file", "torch_code"), "rocmbench": ("file", "label", "target_kernel_name")}


def _checked(rows: list, path: Path, bench: str) -> list[dict]:
    """``rows`` if every one is an object with ``bench``'s fields; else a one-line error naming the file, the
    first bad row, and the benchmark the file looks like."""
    need = _FIELDS[bench]
    for n, row in enumerate(rows):
        missing = [f for f in need if not isinstance(row, dict) or f not in row]
        if missing:
            keys = set(row) if isinstance(row, dict) else set()
            looks = next((b for b, fields in _FIELDS.items() if b != bench and set(fields) <= keys), None)
            hint = f"; it looks like {looks}: --bench {looks}" if looks else ""
            raise ValueError(f"{path}: row {n} has no {', '.join(missing)}, which --bench {bench} needs{hint}")
    return rows


def load_tritonbench_g(path: Optional[str | Path] = None, **_: Any) -> list[BenchmarkItem]:
    """TritonBench-G (``TritonBench_G_v1.json``): id = its ``file``, code = the reference Triton ``output``."""
    p = _require(path, "tritonbench-g")
    rows = _checked(_read_json_array(p), p, "tritonbench-g")
    return [BenchmarkItem(id=r["file"], benchmark="tritonbench-g", code=r["output"], name=Path(r["file"]).stem,
                          level=int(r["difficulty"]) if str(r.get("difficulty", "")).isdigit() else None,
                          meta={"repo": r.get("repo")}) for r in rows]


def load_tritonbench_t(path: Optional[str | Path] = None, **_: Any) -> list[BenchmarkItem]:
    """TritonBench-T (``TritonBench_T_v1.jsonl``, really a JSON array): code = the PyTorch ``torch_code``."""
    p = _require(path, "tritonbench-t")
    rows = _checked(_read_json_array(p), p, "tritonbench-t")
    return [BenchmarkItem(id=f"tritonbench-t/{r['file']}", benchmark="tritonbench-t", code=r["torch_code"],
                          name=r.get("name") or Path(r["file"]).stem, level=r.get("difficulty"), meta={})
            for r in rows]


def load_rocmbench(path: Optional[str | Path] = None, **_: Any) -> list[BenchmarkItem]:
    """ROCmBench (GEAK-eval ``ROCm_eval_complex_instruct_v1.json``): id = ``file``, code = ``label``."""
    p = _require(path, "rocmbench")
    rows = _checked(_read_json_array(p), p, "rocmbench")
    return [BenchmarkItem(id=r["file"], benchmark="rocmbench", code=r["label"], name=r["target_kernel_name"],
                          meta={}) for r in rows]


def load_generic(path: Optional[str | Path] = None, *, id_column: str = "id", code_column: str = "code",
                 name: str = "generic", **_: Any) -> list[BenchmarkItem]:
    """Any JSONL / JSON / parquet with an id column and a code column."""
    p = _require(path, "generic")
    if p.suffix == ".parquet":
        import pyarrow.parquet as pq

        rows = pq.read_table(p).to_pylist()
    else:
        rows = _read_json_array(p)
    if rows and (id_column not in rows[0] or code_column not in rows[0]):
        raise ValueError(f"{p}: rows need columns {id_column!r} and {code_column!r}; found {sorted(rows[0])}")
    return [BenchmarkItem(id=str(r[id_column]), benchmark=name, code=r[code_column] or "", name=str(r[id_column]))
            for r in rows]


BENCHMARKS: dict[str, Callable[..., list[BenchmarkItem]]] = {
    "kernelbench": load_kernelbench,
    "tritonbench-g": load_tritonbench_g,
    "tritonbench-t": load_tritonbench_t,
    "rocmbench": load_rocmbench,
    "generic": load_generic,
}


def load_benchmark(name: str, path: Optional[str | Path] = None, **options: Any) -> list[BenchmarkItem]:
    """Load benchmark ``name`` from ``path`` (options such as ``version``, ``levels`` go to its loader)."""
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; expected one of {', '.join(BENCHMARKS)}")
    loader = BENCHMARKS[name]
    if name != "kernelbench":
        options = {k: v for k, v in options.items() if k not in ("version", "levels") or v is None}
    items = loader(path, **{k: v for k, v in options.items() if v is not None})
    ids = [it.id for it in items]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})[:5]
        raise ValueError(f"{name}: duplicate item ids {dup}")
    return items


def iter_codes(items: Iterable[BenchmarkItem]) -> tuple[list[str], list[str]]:
    """(ids, codes) of items, in order."""
    items = list(items)
    return [it.id for it in items], [it.code for it in items]
