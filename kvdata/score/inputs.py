"""Read per-attempt results into :class:`~kvdata.score.records.Attempt` s.

Formats (``read_results(path, format=...)``; ``auto`` tells them apart by content):

- ``reverify``: kvdata's own ``reverify`` results (``.parquet`` or ``.jsonl``; the columns of
  ``kvdata.schema.RESULT_SCHEMA``). The task is the row's ``task_name``; several rows of one task
  are its attempts, in file order. Rows the verifier did not judge (``toolchain_error``,
  ``skipped``, ``no_reference``, and ``compiled`` from a compile-only backend) are an error unless
  ``unjudged`` says to drop them or count them as failures.
- ``table``: the generic table, JSONL / CSV / parquet, one row per attempt:

  ======== ======== =====================================================================
  column   required meaning
  ======== ======== =====================================================================
  model    yes [1]_ the model (or system) that made the attempt
  task     yes      the benchmark's own task id (as the audit names it)
  attempt  no       0, 1, ... per (model, task); file order when absent
  compiled yes      the attempt built and ran (true/false, 1/0, yes/no)
  correct  yes      it computed the right answer (implies compiled)
  speedup  no       reference time / kernel time, for correct timed attempts
  ======== ======== =====================================================================

  .. [1] or given on the command line as ``NAME=PATH``.
- ``kernelbench`` and ``geak``: the harnesses' own result files (:mod:`kvdata.score.adapters`).
"""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any, Iterable, Optional

from kvdata.score.records import Attempt, JoinError

FORMATS = ("auto", "reverify", "table", "kernelbench", "geak")

#: reverify statuses that say nothing about the sample's correctness
UNJUDGED_STATUSES = frozenset({"toolchain_error", "skipped", "no_reference", "compiled"})
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f", ""}


class ResultsFormatError(ValueError):
    """A results file that cannot be read as the format it claims (or any, for ``auto``)."""


def read_rows(path: Path) -> list[tuple[str, dict]]:
    """(origin, row) for each row of a JSONL, JSON-array, CSV or parquet file (or folder of parquet)."""
    path = Path(path)
    if not path.exists():
        raise ResultsFormatError(f"{path}: no such file")
    if path.is_dir() or path.suffix == ".parquet":
        import pyarrow.parquet as pq

        files = sorted(path.rglob("*.parquet")) if path.is_dir() else [path]
        if not files:
            raise ResultsFormatError(f"{path}: a folder with no .parquet files")
        rows = []
        for f in files:
            for i, r in enumerate(pq.read_table(f).to_pylist()):
                rows.append((f"{f.name}:row {i}", r))
        return rows
    text = path.read_text(encoding="utf-8-sig")          # a CSV saved by a spreadsheet starts with a BOM
    if path.suffix == ".csv":
        return [(f"{path.name}:line {i + 2}", dict(r)) for i, r in enumerate(csv.DictReader(text.splitlines()))]
    stripped = text.lstrip()
    if stripped.startswith("[") or (stripped.startswith("{") and path.suffix == ".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ResultsFormatError(f"{path}: not valid JSON ({e})") from None
        if isinstance(data, list):
            return [(f"{path.name}:item {i}", r) for i, r in enumerate(data)]
        return [(path.name, data)]
    rows, bad = [], []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append((f"{path.name}:line {i}", json.loads(line)))
        except json.JSONDecodeError:
            bad.append(f"line {i}")
    if bad:
        raise JoinError(f"{path}: lines that are not JSON", bad)
    return rows


def as_bool(value: Any) -> Optional[bool]:
    """True/False from a bool, 0/1 or a word; None when it is neither."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return None if (isinstance(value, float) and math.isnan(value)) or value not in (0, 1) else bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        return True if word in _TRUE else False if word in _FALSE else None
    return None


class BadValue(ValueError):
    """A value that is not what its column holds (said in the row's error)."""


def as_speedup(value: Any) -> Optional[float]:
    """A positive finite float, or None: missing, empty, NaN, zero and negative all mean "not timed"
    (the harnesses write -1 and 0 for that). Text that is no number and infinity are
    :class:`BadValue`: a speedup nobody measured must not be scored as one, nor dropped unseen."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise BadValue(f"speedup={value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise BadValue(f"speedup={value!r}") from None
    if math.isinf(x):
        raise BadValue(f"speedup={value!r} (a kernel time of zero is not a measurement)")
    return x if x > 0 else None


def _is_reverify(rows: list[tuple[str, dict]]) -> bool:
    return bool(rows) and all(isinstance(r, dict) for _, r in rows[:5]) and {"id", "status", "correct"} <= set(rows[0][1])


def _is_table(rows: list[tuple[str, dict]]) -> bool:
    return bool(rows) and isinstance(rows[0][1], dict) and {"task", "correct"} <= set(rows[0][1])


def table_attempts(rows: list[tuple[str, dict]], model: Optional[str], source: str) -> list[Attempt]:
    """Attempts from the generic table's rows (module docstring)."""
    if not rows:
        raise ResultsFormatError(f"{source}: no rows")
    missing = {"task", "compiled", "correct"} - set(rows[0][1])
    if model is None and "model" not in rows[0][1]:
        missing.add("model")
    if missing:
        raise ResultsFormatError(f"{source}: the generic table needs columns {sorted(missing)} "
                                 f"(has {sorted(rows[0][1])}); `model` may instead be given as NAME=PATH")
    out, bad, order = [], [], {}
    for origin, r in rows:
        name = model if model is not None else r.get("model")
        task = r.get("task")
        compiled, correct = as_bool(r.get("compiled")), as_bool(r.get("correct"))
        problems = []
        if not isinstance(name, str) or not name.strip():
            problems.append("no model")
        elif name != name.strip():
            problems.append(f"model {name!r} has surrounding spaces")
        if task is None or (isinstance(task, float) and math.isnan(task)) or not str(task).strip():
            problems.append("no task")
        elif str(task) != str(task).strip():
            problems.append(f"task {str(task)!r} has surrounding spaces")
        if compiled is None:
            problems.append(f"compiled={r.get('compiled')!r}")
        if correct is None:
            problems.append(f"correct={r.get('correct')!r}")
        raw_attempt = r.get("attempt")
        if raw_attempt not in (None, ""):
            try:
                attempt = int(raw_attempt)
                if attempt < 0 or float(raw_attempt) != attempt:
                    raise ValueError
            except (TypeError, ValueError):
                problems.append(f"attempt={raw_attempt!r}")
                attempt = -1
        else:
            key = (name, str(task))
            attempt = order[key] = order.get(key, -1) + 1
        try:
            speedup = as_speedup(r.get("speedup"))
        except BadValue as e:
            problems.append(str(e))
        if problems:
            bad.append(f"{origin}{f' task {task!r}' if task not in (None, '') else ''} ({', '.join(problems)})")
            continue
        out.append(Attempt(str(name), str(task), attempt, compiled or correct, correct,
                           speedup if correct else None, f"{source} {origin}"))
    if bad:
        raise JoinError(f"{source}: rows that are not valid results", bad)
    return out


def reverify_attempts(rows: list[tuple[str, dict]], model: str, source: str,
                      unjudged: str = "error") -> list[Attempt]:
    """Attempts from ``kvdata reverify`` results (module docstring); ``unjudged``: error, drop or fail."""
    out, skipped, order = [], [], {}
    for origin, r in rows:
        status = r.get("status")
        task = r.get("task_name") or r.get("id")
        if status in UNJUDGED_STATUSES or status is None:
            if unjudged == "drop":
                continue
            if unjudged == "error":
                skipped.append(f"{r.get('id')} ({status})")
                continue
        key = str(task)
        attempt = order[key] = order.get(key, -1) + 1
        correct = bool(r.get("correct")) and status == "correct"
        compile_ok = r.get("compile_ok")
        compiled = correct or (bool(compile_ok) if compile_ok is not None
                               else status not in ("compile_error", "toolchain_error", None))
        if status in UNJUDGED_STATUSES:          # unjudged="fail"
            compiled, correct = bool(compile_ok), False
        try:
            speedup = as_speedup(r.get("speedup")) if correct else None
        except BadValue as e:
            skipped.append(f"{r.get('id')} ({e})")
            continue
        out.append(Attempt(model, key, attempt, compiled, correct, speedup, f"{source} {origin}"))
    if skipped:
        raise JoinError(f"{source}: rows the verifier did not judge, or with a bad speedup "
                        f"(--unjudged drop or fail decides for unjudged ones)", skipped)
    return out


def model_name(path: Path) -> str:
    """A model name from a results path: its stem, without a ``reverify-`` prefix."""
    stem = Path(path).stem
    return stem[len("reverify-"):] if stem.startswith("reverify-") else stem


def read_results(path: str | Path, *, model: Optional[str] = None, format: str = "auto",
                 unjudged: str = "error", **adapter_options: Any) -> list[Attempt]:
    """All attempts in one results file (or a harness's result folder), as :class:`Attempt` s.

    ``model``: the model's name (default: from the file for a table with a ``model`` column, else
    the file's stem). ``adapter_options``: ``bench_path``, ``level``, ``version``, ``baseline`` for
    the KernelBench and GEAK-eval adapters (:mod:`kvdata.score.adapters`).
    """
    from kvdata.score import adapters

    path = Path(path)
    if format not in FORMATS:
        raise ResultsFormatError(f"unknown results format {format!r}; expected one of {', '.join(FORMATS)}")
    if format == "auto":
        format = adapters.sniff(path)
    if format == "kernelbench":
        folder = path if path.is_dir() else path.parent      # a run is a folder: runs/<run>/eval_results.json
        return adapters.kernelbench_attempts(path, model or folder.name, **adapter_options)
    if format == "geak":
        return adapters.geak_attempts(path, model or (path.name if path.is_dir() else model_name(path)),
                                      **adapter_options)
    rows = read_rows(path)
    if format == "auto":
        format = "reverify" if _is_reverify(rows) else "table" if _is_table(rows) else ""
        if not format:
            cols = sorted(rows[0][1]) if rows and isinstance(rows[0][1], dict) else []
            raise ResultsFormatError(
                f"{path}: not a results file kvdata knows (columns {cols}); expected reverify results "
                f"(id, status, correct, ...), the generic table (model, task, compiled, correct, ...), "
                f"KernelBench's eval_results.json or GEAK-eval's *_results_<n>.json")
    if format == "reverify":
        return reverify_attempts(rows, model or model_name(path), str(path), unjudged)
    return table_attempts(rows, model, str(path))


def read_all(specs: Iterable[tuple[Optional[str], str]], **options: Any) -> list[Attempt]:
    """Attempts of every (model name or None, path) given."""
    out: list[Attempt] = []
    for name, path in specs:
        out.extend(read_results(path, model=name, **options))
    return out
