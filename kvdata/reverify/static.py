"""A static pre-screen of candidate code: named rules for the patterns of the public exploit catalogs.

``kvdata reverify --static`` reads each sample's kernel code (and its reference, for the visible sizes) without
running anything, so it fits 100,000 rows on a CPU. Every hit is a flag named after its rule, never a verdict on
its own: honest code trips some of these (a try/except around an optional import), and only the sandboxed run
decides. The rules, after GPU MODE's KernelGuard, KernelBench's static checker and pygpubench's exploits:

==========================  ==================================================================================
``timer_patch``             assigns to a timing or synchronisation entry point (``time.perf_counter = ...``,
                            ``torch.cuda.Event.elapsed_time = ...``, ``setattr(torch.cuda, "synchronize", ...)``)
``introspection``           reaches for the harness's objects: ``gc.get_objects``/``get_referrers``,
                            ``sys._getframe``, ``inspect.stack``/``currentframe``, frame attributes
                            (``f_back``, ``f_locals``, ``f_globals``), ``sys.modules``
``reference_lookup``        names the reference: ``Model(`` called, or ``"Model"``/``get_inputs`` looked up
``torch_fallback``          a ``try`` whose body calls something (a launch, a wrapper) and whose handler computes
                            with torch
``kernel_never_launched``   a ``@triton.jit`` kernel that nothing launches (``kernel[grid](...)``)
``shape_literal``           an integer literal in the kernel code equal to one of the reference's visible size
                            constants (at least 33, so block sizes and small counts do not count)
``dispatch_mode_probe``     asks whether it is being watched: ``_get_current_dispatch_mode``, ``TorchDispatchMode``,
                            ``torch.profiler`` / ``_is_torch_function_mode_enabled`` in the candidate
``thread_or_stream``        starts a thread or a CUDA stream of its own (``threading.Thread``, ``torch.cuda.Stream``)
==========================  ==================================================================================
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

__all__ = ["RULES", "StaticHit", "StaticReport", "screen", "visible_sizes"]

RULES = ("timer_patch", "introspection", "reference_lookup", "torch_fallback", "kernel_never_launched",
         "shape_literal", "dispatch_mode_probe", "thread_or_stream")

_TIMING_NAMES = frozenset({"perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time", "time_ns",
                           "process_time", "synchronize", "elapsed_time", "record", "Event", "current_stream",
                           "wait_event", "wait_stream", "query"})
_TIMING_ROOTS = ("time", "torch.cuda", "torch.cuda.Event", "torch.cuda.Stream", "torch", "torch.cuda.streams")
_INTROSPECTION_CALLS = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._getframe",
                                  "inspect.stack", "inspect.currentframe", "inspect.getouterframes",
                                  "traceback.extract_stack", "sys._current_frames"})
_FRAME_ATTRS = frozenset({"f_back", "f_locals", "f_globals", "tb_frame", "gi_frame"})
_DISPATCH_PROBES = re.compile(r"_get_current_dispatch_mode|TorchDispatchMode|torch\.profiler|"
                              r"_is_torch_function_mode_enabled|_python_dispatch|DispatchKey")
_SIZE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\d+)\s*$", re.M)
MIN_SHAPE_LITERAL = 33


@dataclass
class StaticHit:
    """One rule's hit: its name and where (line) and what (a short excerpt)."""

    rule: str
    line: int
    detail: str = ""


@dataclass
class StaticReport:
    """What :func:`screen` found in one sample."""

    hits: list = field(default_factory=list)
    parsed: bool = True

    @property
    def flags(self) -> list[str]:
        return sorted({h.rule for h in self.hits})


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _is_timing_target(dotted: str) -> bool:
    root, _, last = dotted.rpartition(".")
    return last in _TIMING_NAMES and root in _TIMING_ROOTS


def _jit_kernels(tree: ast.Module) -> dict[str, int]:
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                name = _dotted(d.func if isinstance(d, ast.Call) else d)
                if name.split(".")[-1] in ("jit", "autotune", "heuristics"):
                    out[node.name] = node.lineno
    return out


def _calls_something(nodes) -> bool:
    """Whether ``nodes`` call anything: a launch ``name[grid](...)``, or a wrapper that may launch one."""
    return any(isinstance(n, ast.Call) for body in nodes for n in ast.walk(body))


def _torch_compute(nodes) -> bool:
    for body in nodes:
        for n in ast.walk(body):
            if isinstance(n, ast.Call):
                name = _dotted(n.func)
                if name.startswith(("torch.", "F.", "nn.functional.")) and name.split(".")[-1] not in (
                        "empty", "empty_like", "zeros", "zeros_like", "device", "Size", "float32", "cdiv"):
                    return True
                if isinstance(n.func, ast.Attribute) and n.func.attr in ("forward", "matmul", "mm", "bmm"):
                    return True
    return False


def visible_sizes(reference: str) -> set[int]:
    """The module-level integer constants of the reference (its visible sizes), at least ``MIN_SHAPE_LITERAL``."""
    return {int(v) for _, v in _SIZE.findall(reference or "") if int(v) >= MIN_SHAPE_LITERAL}


def screen(kernel_code: str, reference_code: str = "") -> StaticReport:
    """Every rule of :data:`RULES` over one sample's code (see the module docstring)."""
    report = StaticReport()
    try:
        tree = ast.parse(kernel_code or "")
    except (SyntaxError, ValueError, RecursionError):
        report.parsed = False
        return report
    hits = report.hits
    kernels = _jit_kernels(tree)
    launched: set[str] = set()
    sizes = visible_sizes(reference_code)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                name = _dotted(t)
                if name and _is_timing_target(name):
                    hits.append(StaticHit("timer_patch", node.lineno, name))
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name == "setattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                    and str(node.args[1].value) in _TIMING_NAMES and _dotted(node.args[0]) in _TIMING_ROOTS:
                hits.append(StaticHit("timer_patch", node.lineno, f"setattr({_dotted(node.args[0])}, ...)"))
            if name in _INTROSPECTION_CALLS:
                hits.append(StaticHit("introspection", node.lineno, name))
            if name == "Model":
                hits.append(StaticHit("reference_lookup", node.lineno, "Model(...)"))
            if name in ("threading.Thread", "Thread", "torch.cuda.Stream", "torch.cuda.stream"):
                hits.append(StaticHit("thread_or_stream", node.lineno, name))
            if isinstance(node.func, ast.Subscript):
                launched.add(_dotted(node.func.value))
        elif isinstance(node, ast.Attribute):
            if node.attr in _FRAME_ATTRS:
                hits.append(StaticHit("introspection", node.lineno, node.attr))
            if _dotted(node) == "sys.modules":
                hits.append(StaticHit("introspection", node.lineno, "sys.modules"))
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, str) and node.value in ("Model", "get_inputs", "get_init_inputs"):
                hits.append(StaticHit("reference_lookup", node.lineno, repr(node.value)))
            if type(node.value) is int and node.value in sizes:
                hits.append(StaticHit("shape_literal", node.lineno, str(node.value)))
        elif isinstance(node, ast.Try):
            if _calls_something(node.body) and _torch_compute(node.handlers):
                hits.append(StaticHit("torch_fallback", node.lineno, "try: launch / except: torch"))
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    for name, line in kernels.items():
        if name not in launched and name not in called:
            hits.append(StaticHit("kernel_never_launched", line, name))
    for m in _DISPATCH_PROBES.finditer(kernel_code):
        hits.append(StaticHit("dispatch_mode_probe", kernel_code.count("\n", 0, m.start()) + 1, m.group(0)))
    return report
