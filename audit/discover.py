"""Find the PyTorch reference(s) in a code text, wherever they are.

Used inside the sandbox workers (the structural tracer and the behavioural prober): it imports only the standard
library and torch, never kvdata, so a worker run with ``python -I`` can load it by path.

``load_code`` executes a code text as a module; ``find_references`` lists the torch references in it, best
first. A *reference* is something whose outputs define the task: an ``nn.Module`` subclass, or a plain function
that computes the task with torch. The rules:

1. **Modules.** Every ``nn.Module`` subclass defined in the code (not imported) that defines its own ``forward``.
   A class whose forward launches a kernel is *not* a torch reference: it (or anything it reaches — a method, a
   module-level function, a submodule class, an ``autograd.Function``) launches Triton (``kernel[grid](...)``, a
   name bound to a ``@triton.jit``/``autotune``/``heuristics`` function, a ``triton``/``tl`` name) or an inline
   C++/CUDA extension (``load_inline``/``cpp_extension.load``).
2. **Functions.** A module-level function whose name says it is a reference (tokens ``torch``, ``pytorch``,
   ``ref``, ``reference``, ``naive``, ``baseline``, ``eager``, ``golden``: ``torch_reference``, ``ref_gelu``,
   ``softmax_torch``, ``reference_impl``), taking at least one argument, launching no kernel, and not a
   test/benchmark/input helper.
3. **Used inside another is not a reference of its own.** A class or function named in the body of another
   candidate (a ``Block`` built by ``Model.__init__``, a ``mish`` helper called by ``forward``) is part of that
   candidate. A base class does not count as use.
4. **Order.** ``Model`` first; then classes with a reference-like name; then other classes (one constructible
   from the init calls before one that is not, larger before smaller); then reference functions. At most
   ``max_refs``.
5. **Constructor calls** (``init_calls``, best first): ``get_init_inputs()`` — KernelBook's ``[args, kwargs]``
   form, then ``*args`` (a dict is ``**kwargs``); module-level constants whose names match the constructor's
   parameters (exactly, case-insensitively, or without underscores); the defaults (no arguments). Calls that
   bind the signature come before calls that do not. ``get_init_inputs()`` is called here: run
   ``find_references`` under the same context (e.g. a ``FakeTensorMode``) the caller wants it to run under.
6. **Inputs.** ``get_inputs`` when the code has one; else a zero-argument ``get_inputs``-like helper
   (``make_inputs``, ``get_example_inputs``, ``sample_inputs``, ...); else ``None`` (the caller reports
   ``no_inputs``, or feeds another side's inputs).

Failures raise :class:`DiscoveryError` with a code from :data:`REASON_CODES`.
"""
from __future__ import annotations

import ast
import inspect
import linecache
import re
import sys
import types
from dataclasses import dataclass, field

__all__ = ["Reference", "DiscoveryError", "REASON_CODES", "load_code", "find_references", "instantiate",
           "init_calls_for", "unload"]

REASON_CODES: dict[str, str] = {
    "empty_code": "the code text is empty",
    "syntax_error": "the code does not parse as Python",
    "exec_failed": "executing the code raised (a missing package, an error at module level)",
    "no_torch_reference": "no nn.Module subclass or torch reference function (only kernels or utilities)",
    "no_inputs": "a reference was found but no get_inputs() or inputs helper to call it with",
    "inputs_failed": "get_inputs() (or the inputs helper) raised",
    "init_failed": "no constructor call worked (get_init_inputs, constants by name, defaults)",
}

REFERENCE_TOKENS = {"torch", "pytorch", "ref", "reference", "naive", "baseline", "eager", "golden"}
NOT_REFERENCE_PREFIXES = ("test", "bench", "check", "get_", "make_", "load", "main", "run_", "verify", "compare",
                          "assert", "validate", "profile", "time_", "plot")
INPUT_HELPER = re.compile(r"^(get|make|gen|generate|create|build|sample|random|example)_?(example_|sample_|"
                          r"random_|test_)?inputs?$|^(example|sample|test|random)_inputs?$|^inputs_?fn$",
                          re.IGNORECASE)
KERNEL_DECORATOR = re.compile(r"\b(triton|jit|autotune|heuristics|njit|cuda)\b")
LAUNCH_NAMES = ("triton", "tl", "load_inline")


class DiscoveryError(Exception):
    """No usable reference; ``code`` is a key of :data:`REASON_CODES`."""

    def __init__(self, code: str, message: str = ""):
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code if code in REASON_CODES else "exec_failed"
        self.message = message


@dataclass
class Reference:
    name: str                                          # "Model", "ModelNew", "torch_gelu_reference", ...
    kind: str                                          # "module" or "function"
    obj: object                                        # the class or the function
    init_calls: list = field(default_factory=list)     # [(args, kwargs), ...] to construct a module, best first
    inputs: object = None                              # zero-arg callable giving the inputs, or None


# --------------------------------------------------------------------------------------------- loading
def load_code(code: str, module_name: str, exec_context=None) -> types.ModuleType:
    """Execute ``code`` as the module ``module_name`` (registered in ``sys.modules`` until :func:`unload`).

    ``__name__`` is ``module_name``, so an ``if __name__ == "__main__":`` block does not run. The source is put
    in ``linecache`` so ``inspect.getsource`` works on what it defines. ``exec_context``: an optional context
    manager to execute under (a ``FakeTensorMode``, a device context).
    """
    if not isinstance(code, str) or not code.strip():
        raise DiscoveryError("empty_code")
    filename = f"<{module_name}>"
    try:
        compiled = compile(code, filename, "exec")
    except (SyntaxError, ValueError) as err:
        raise DiscoveryError("syntax_error", f"{type(err).__name__}: {err}") from None
    module = types.ModuleType(module_name)
    module.__file__ = filename
    module.__kv_source__ = code
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    sys.modules[module_name] = module
    try:
        if exec_context is not None:
            with exec_context:
                exec(compiled, module.__dict__)
        else:
            exec(compiled, module.__dict__)
    except (Exception, SystemExit) as err:  # noqa: BLE001 - any failure of untrusted code is data
        raise DiscoveryError("exec_failed", f"{type(err).__name__}: {err}"[:2000]) from None
    return module


def unload(module_name: str) -> None:
    """Forget a module made by :func:`load_code`."""
    sys.modules.pop(module_name, None)
    linecache.cache.pop(f"<{module_name}>", None)


# --------------------------------------------------------------------------------------------- static analysis
def _source(module: types.ModuleType) -> str:
    src = getattr(module, "__kv_source__", None)
    if isinstance(src, str):
        return src
    try:
        return inspect.getsource(module)
    except (OSError, TypeError):
        return ""


def _top_level(tree: ast.Module) -> dict[str, ast.AST]:
    """Top-level definitions and assignments by name (also inside top-level ``if``/``try`` blocks)."""
    out: dict[str, ast.AST] = {}

    def visit(stmts):
        for node in stmts:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            out.setdefault(n.id, node)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                visit(getattr(node, "body", []))
                visit(getattr(node, "orelse", []))
                for h in getattr(node, "handlers", []):
                    visit(h.body)
    visit(tree.body)
    return out


def _body_nodes(node: ast.AST):
    """Nodes of a definition's body (not its decorators or base classes)."""
    body = node.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else [node]
    for stmt in body:
        yield from ast.walk(stmt)


def _names_used(node: ast.AST) -> set[str]:
    return {n.id for n in _body_nodes(node) if isinstance(n, ast.Name)}


def _direct_launch(node: ast.AST) -> bool:
    """A direct ``triton``/``tl``/``load_inline`` use in the body (``kernel[grid](...)`` is caught through the
    kernel's name)."""
    for n in _body_nodes(node):
        if isinstance(n, ast.Name) and n.id in LAUNCH_NAMES:
            return True
        if isinstance(n, ast.Attribute) and n.attr in ("load_inline", "load") and "cpp_extension" in ast.unparse(n):
            return True
    return False


def _is_kernel_def(node: ast.AST) -> bool:
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any(KERNEL_DECORATOR.search(ast.unparse(d)) for d in node.decorator_list)


def _is_extension(node: ast.AST) -> bool:
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or not isinstance(node.value, ast.Call):
        return False
    func = ast.unparse(node.value.func)
    return func.endswith("load_inline") or func.endswith("cpp_extension.load")


def _launching(defs: dict[str, ast.AST], namespace: dict) -> set[str]:
    """Top-level names that launch (or are) a kernel, closed over use."""
    launch = {name for name, node in defs.items() if _is_kernel_def(node) or _is_extension(node)}
    for name, value in namespace.items():
        if type(value).__module__.split(".")[0] == "triton":
            launch.add(name)
    uses = {name: _names_used(node) for name, node in defs.items()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    launch |= {name for name in uses if _direct_launch(defs[name])}
    changed = True
    while changed:
        changed = False
        for name, used in uses.items():
            if name not in launch and used & launch:
                launch.add(name)
                changed = True
    return launch


# --------------------------------------------------------------------------------------------- candidates
def _tokens(name: str) -> list[str]:
    parts = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().split("_")
    return [p for p in parts if p]


def _reference_like(name: str) -> bool:
    low = name.lower()
    if any(t in REFERENCE_TOKENS for t in _tokens(name)):
        return True
    return low.startswith(("torch", "pytorch", "reference", "naive")) or low.endswith(("torch", "reference", "ref"))


def _defined_here(obj, module: types.ModuleType) -> bool:
    return getattr(obj, "__module__", None) == module.__name__


def _module_classes(module: types.ModuleType) -> dict[str, type]:
    import torch.nn as nn
    out: dict[str, type] = {}
    for name, value in vars(module).items():
        if (isinstance(value, type) and issubclass(value, nn.Module) and _defined_here(value, module)
                and value.forward is not nn.Module.forward and value not in out.values()):
            out[name] = value
    return out


def _reference_functions(module: types.ModuleType) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, value in vars(module).items():
        if not isinstance(value, types.FunctionType) or not _defined_here(value, module):
            continue
        low = name.lower()
        if low.startswith("_") or low.startswith(NOT_REFERENCE_PREFIXES) or INPUT_HELPER.match(name):
            continue
        if not _reference_like(name):
            continue
        try:
            params = [p for p in inspect.signature(value).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
        except (TypeError, ValueError):
            continue
        if params:
            out[name] = value
    return out


# --------------------------------------------------------------------------------------------- init and inputs
def _init_forms(init) -> list[tuple[tuple, dict]]:
    """Ways to call a constructor with a ``get_init_inputs()`` value: ``[args, kwargs]`` first, then ``*args``."""
    if isinstance(init, dict):
        return [((), dict(init))]
    seq = list(init) if isinstance(init, (list, tuple)) else [init]
    calls = [(tuple(seq), {})]
    if len(seq) == 2 and isinstance(seq[0], (list, tuple)) and isinstance(seq[1], dict):
        calls.insert(0, (tuple(seq[0]), dict(seq[1])))
    return calls


def _constant(value) -> bool:
    return not (callable(value) or isinstance(value, types.ModuleType))


def _constants_call(cls: type, module: types.ModuleType):
    """Constructor kwargs from module-level constants named like the parameters, or None."""
    try:
        params = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return None
    consts = {k: v for k, v in vars(module).items() if not k.startswith("__") and _constant(v)}
    folded: dict[str, object] = {}
    for k, v in consts.items():
        folded.setdefault(k.lower(), v)
        folded.setdefault(k.lower().replace("_", ""), v)
    kwargs, matched_required = {}, True
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        for key in (p.name, p.name.lower(), p.name.lower().replace("_", "")):
            source = consts if key == p.name else folded
            if key in source:
                kwargs[p.name] = source[key]
                break
        else:
            if p.default is p.empty:
                matched_required = False
    return ((), kwargs) if kwargs and matched_required else None


def _binds(cls: type, call) -> bool:
    try:
        inspect.signature(cls).bind(*call[0], **call[1])
        return True
    except (TypeError, ValueError):
        return False


def init_calls_for(cls: type, module: types.ModuleType) -> list[tuple[tuple, dict]]:
    """Ways to construct ``cls`` from what ``module`` offers now (rule 5); call again after changing its constants."""
    calls: list[tuple[tuple, dict]] = []
    get_init = getattr(module, "get_init_inputs", None)
    if callable(get_init):
        try:
            calls += _init_forms(get_init())
        except Exception:  # noqa: BLE001 - a broken get_init_inputs leaves the other ways
            pass
    by_name = _constants_call(cls, module)
    if by_name is not None:
        calls.append(by_name)
    calls.append(((), {}))
    unique = []
    for c in calls:
        if not any(_same_call(c, u) for u in unique):
            unique.append(c)
    return sorted(unique, key=lambda c: not _binds(cls, c))     # stable: binding calls first


def _first_binding(cls: type, module: types.ModuleType) -> int:
    """Position of the first call that binds, in the order the code offers them (get_init_inputs first)."""
    get_init = getattr(module, "get_init_inputs", None)
    calls = []
    if callable(get_init):
        try:
            calls += _init_forms(get_init())
        except Exception:  # noqa: BLE001
            pass
    calls += [c for c in (_constants_call(cls, module), ((), {})) if c is not None]
    return next((i for i, c in enumerate(calls) if _binds(cls, c)), len(calls))


def _same_call(a, b) -> bool:
    try:
        return bool(a[0] == b[0] and a[1] == b[1])
    except Exception:  # noqa: BLE001 - tensors compare elementwise
        return False


def _zero_arg(fn) -> bool:
    try:
        inspect.signature(fn).bind()
        return True
    except (TypeError, ValueError):
        return False


def _inputs_helper(module: types.ModuleType):
    get_inputs = getattr(module, "get_inputs", None)
    if callable(get_inputs):
        return get_inputs
    for name, value in vars(module).items():
        if (isinstance(value, types.FunctionType) and _defined_here(value, module) and INPUT_HELPER.match(name)
                and _zero_arg(value)):
            return value
    return None


def instantiate(ref: Reference, wrap=None):
    """Construct a module reference with the first of its ``init_calls`` that works.

    ``wrap`` maps each (args, kwargs) before the call (e.g. to shrink sizes). Raises
    ``DiscoveryError("init_failed")`` with every attempt's error when none works."""
    errors = []
    for call in ref.init_calls:
        args, kwargs = wrap(call) if wrap is not None else call
        try:
            return ref.obj(*args, **kwargs)
        except Exception as err:  # noqa: BLE001 - untrusted constructor
            errors.append(f"{type(err).__name__}: {err}"[:300])
    raise DiscoveryError("init_failed", f"{ref.name}(): " + " | ".join(errors))


# --------------------------------------------------------------------------------------------- discovery
def find_references(module: types.ModuleType, *, max_refs: int = 8) -> list[Reference]:
    """Every torch reference in ``module``, best first (see the module docstring for the rules)."""
    try:
        tree = ast.parse(_source(module) or "")
    except SyntaxError:
        tree = ast.Module(body=[], type_ignores=[])
    defs = _top_level(tree)
    namespace = vars(module)
    launching = _launching(defs, namespace)
    classes = {n: c for n, c in _module_classes(module).items() if n not in launching}
    functions = {n: f for n, f in _reference_functions(module).items() if n not in launching}
    candidates = {**classes, **functions}
    used = set()
    for name in candidates:
        node = defs.get(name)
        if node is not None:
            used |= (_names_used(node) & set(candidates)) - {name}
    kept = [n for n in candidates if n not in used] or list(candidates)
    if not kept:
        kernels = sorted(n for n in launching if n in _module_classes(module))
        why = f"{', '.join(kernels)} launch kernels" if kernels else "no nn.Module subclass or reference function"
        raise DiscoveryError("no_torch_reference", why)
    inputs = _inputs_helper(module)
    refs = []
    for name in kept:
        obj = candidates[name]
        if name in classes:
            calls = init_calls_for(obj, module)
            refs.append(Reference(name, "module", obj, calls, inputs))
        else:
            refs.append(Reference(name, "function", obj, [], inputs))

    def rank(ref: Reference):
        node = defs.get(ref.name)
        size = (node.end_lineno - node.lineno) if node is not None and hasattr(node, "end_lineno") else 0
        if ref.kind == "function":
            return (4, 0, -size)
        tier = 0 if ref.name == "Model" else 1 if _reference_like(ref.name) else 2
        return (tier, _first_binding(ref.obj, module), -size)
    refs.sort(key=rank)
    return refs[:max_refs]
