"""Export tasks: which corpus rows a training task takes, and the prompt each row becomes.

Every task has a documented Jinja prompt template (``TEMPLATES``), overridable with a file
(``--template``); a template sees the row's columns (``pytorch_code``, ``baseline_kernel_code``,
``question``, ``task_name``, ``language``, ...).

- ``torch2hip``: ``hip_gpumode`` and ``hip_cudaagent`` rows: the PyTorch reference in, the HIP
  extension out.
- ``torch2triton``: ``triton`` rows with a reference: the reference in, the Triton kernel out.
- ``hip2hip``: ``hip2hip`` rows: the baseline HIP kernel (and its reference) in, the optimised one
  out; the measured speedup goes into the metadata.
- ``qa``: ``qa`` rows: the question in, the answer out.
- ``triton-complete``: ``triton`` rows without a reference, for continued pre-training: the file's
  first lines in, the whole file out.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from jinja2 import TemplateError, UndefinedError
from jinja2.exceptions import SecurityError

SYSTEM = "You are an expert GPU kernel engineer for AMD GPUs (ROCm, HIP and Triton)."

TEMPLATES: dict[str, str] = {
    "torch2hip": (
        "Write a HIP C++ extension for AMD GPUs that computes the same outputs as this PyTorch module. "
        "Expose it with PYBIND11_MODULE and keep the module's interface.\n\n```python\n{{ pytorch_code }}\n```"),
    "torch2triton": (
        "Write a Triton kernel, with a `ModelNew` module that launches it, computing the same outputs as this "
        "PyTorch module.\n\n```python\n{{ pytorch_code }}\n```"),
    "hip2hip": (
        "Optimise this HIP kernel for AMD GPUs. It must compute the same outputs as the PyTorch reference.\n\n"
        "Reference:\n```python\n{{ pytorch_code }}\n```\n\nHIP kernel:\n```cpp\n{{ baseline_kernel_code }}\n```"),
    "qa": "{{ question }}",
    "triton-complete": "Complete this Triton source file.\n\n```python\n{{ head }}\n```",
}

#: How many lines of a mined Triton file the ``triton-complete`` prompt shows.
COMPLETE_HEAD_LINES = 12


@dataclass(frozen=True)
class ExportTask:
    """``name``; ``configs``: the corpus configs it reads; ``response``: the column the model should write."""

    name: str
    configs: tuple[str, ...]
    response: str
    language: Optional[str]
    description: str


TASKS: dict[str, ExportTask] = {
    "torch2hip": ExportTask("torch2hip", ("hip_gpumode", "hip_cudaagent"), "kernel_code", "hip",
                            "PyTorch reference -> HIP extension"),
    "torch2triton": ExportTask("torch2triton", ("triton",), "kernel_code", "triton",
                               "PyTorch reference -> Triton kernel"),
    "hip2hip": ExportTask("hip2hip", ("hip2hip",), "kernel_code", "hip", "baseline HIP kernel -> optimised"),
    "qa": ExportTask("qa", ("qa",), "answer", None, "rocBLAS/rocSOLVER question -> answer"),
    "triton-complete": ExportTask("triton-complete", ("triton",), "kernel_code", "triton",
                                  "mined Triton file without a reference (continued pre-training)"),
}


@dataclass(slots=True)
class ExportItem:
    """One training example: the corpus row ``id`` it came from, its grouping ``task_name`` and
    ``reference``, the rendered ``prompt``, the ``response``, and metadata columns."""

    id: str
    task: str
    task_name: Optional[str]
    reference: Optional[str]
    prompt: str
    response: str
    system: str = SYSTEM
    meta: dict[str, Any] = field(default_factory=dict)


def load_template(task: str, path: Optional[str | Path] = None):
    """The compiled prompt template of ``task`` (or the Jinja file at ``path``)."""
    import jinja2
    import jinja2.meta
    import jinja2.sandbox

    if task not in TASKS:
        raise ValueError(f"unknown export task {task!r}; expected one of {', '.join(TASKS)}")
    text = Path(path).read_text(encoding="utf-8") if path else TEMPLATES[task]
    # Sandboxed (a template file from elsewhere cannot reach Python internals), strict about unknown
    # columns, and a null column renders as nothing rather than "None".
    env = jinja2.sandbox.SandboxedEnvironment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False,
                                              finalize=lambda v: "" if v is None else v)
    try:
        return PromptTemplate(env.from_string(text), tuple(sorted(jinja2.meta.find_undeclared_variables(env.parse(text)))))
    except jinja2.TemplateSyntaxError as e:
        raise ValueError(f"prompt template {path or task}: line {e.lineno}: {e.message}") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"prompt template {path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


class PromptTemplate:
    """A compiled template and the columns it reads; prompts are memoised by those columns' values
    (rows that share a reference, the variants of a task, share a prompt: rendered once)."""

    def __init__(self, template, names: tuple[str, ...]):
        self.template, self.names = template, names
        self._memo: dict[tuple, str] = {}

    def render(self, context: dict) -> str:
        key = tuple(context.get(n) for n in self.names)
        try:
            hit = self._memo.get(key)
        except TypeError:                          # an unhashable column: no memo
            return self.template.render(**context)
        if hit is None:
            hit = self._memo[key] = self.template.render(**context)
        return hit


def skip_reason(task: ExportTask, row: dict) -> Optional[str]:
    """Why a row of the task's configs does not make an example of it (None: it does)."""
    if not isinstance(row.get(task.response), str) or not row[task.response].strip():
        return "no_response"
    has_ref = isinstance(row.get("pytorch_code"), str) and bool(row["pytorch_code"].strip())
    if task.name == "triton-complete":
        return "has_reference" if has_ref else None
    if task.name == "qa":
        return None if isinstance(row.get("question"), str) and row["question"].strip() else "no_question"
    if not has_ref:
        return "no_reference"
    if task.name == "hip2hip" and not (isinstance(row.get("baseline_kernel_code"), str)
                                       and row["baseline_kernel_code"].strip()):
        return "no_baseline"
    return None


def to_item(task: ExportTask, row: dict, template, system: str = SYSTEM) -> ExportItem:
    """The training example one corpus row makes (``skip_reason`` said yes)."""
    context = row
    if task.name == "triton-complete":
        context = dict(row, head="\n".join(row["kernel_code"].splitlines()[:COMPLETE_HEAD_LINES]))
    try:
        prompt = template.render(context)
    except UndefinedError as e:
        raise ValueError(f"prompt template for {task.name}: {e.message} (row {row.get('id')}; the template "
                         f"can use the columns of {', '.join(task.configs)} and `head`)") from None
    except SecurityError as e:
        raise ValueError(f"prompt template for {task.name}: {e} (templates are sandboxed)") from None
    except (TemplateError, TypeError) as e:    # include/import/extends: no loader, templates read no files
        raise ValueError(f"prompt template for {task.name}: {type(e).__name__}: {e} (a template sees the row's "
                         f"columns only; it cannot include, import or extend files)") from None
    verification = row.get("verification") or {}
    meta = {"language": row.get("language") or task.language, "license": row.get("license"),
            "source": row.get("source") or row.get("library"), "subset": row.get("subset")}
    if task.name == "hip2hip" and isinstance(verification, dict):
        meta["speedup"], meta["correct"] = verification.get("speedup"), verification.get("correct")
    return ExportItem(str(row["id"]), task.name, row.get("task_name") or row.get("symbol"), row.get("pytorch_code"),
                      prompt, row[task.response], system, meta)
