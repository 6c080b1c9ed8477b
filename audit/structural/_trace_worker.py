"""Sandboxed worker: trace the PyTorch references of codes to ATen op graphs on fake tensors.

Run only through :mod:`kvdata.audit.structural.tracing`, inside :class:`kvdata.sandbox.Sandbox`. It imports
nothing from kvdata (the sandbox runs it with ``python -I``); it loads two files by path: ``../discover.py``
(which references a code holds: ``Model``, ``ModelNew``'s torch twin, a reference function, a model among
utilities) and ``_decompositions.py`` (the decomposition table). It reads its items (``{"key", "code"}``, one
JSON line each) on stdin, and for each item writes ONE JSON line to its protocol channel (the
original stdout, moved aside before any untrusted code runs, so a ``print`` in the code cannot forge a result):

    {"i": <item index>, "key": ..., "ok": true,  "graphs": [{"cls", "kind", "nodes": [...], "source": [...]}]}
    {"i": <item index>, "key": ..., "ok": false, "code": <reason code>, "error": "..."}

``nodes`` is the trace with the decompositions, ``source`` the count of each op the code issued before
decomposition (``{"aten.gelu.default": 1, ...}``: the ops as the code wrote them). Each node is ``{"op": target, "args": [...], "kw": {...}, "rank": int|null, "kind": ...}`` where a tensor
argument is ``{"n": <node index>}`` and anything else a JSON scalar or a type tag. The parent does all
normalisation and hashing; this side only records what the tracer saw.

Why fake tensors: ``get_inputs()`` of a KernelBench problem allocates gigabytes (``torch.rand(8192, 8192)``) and
its ``forward`` would run for seconds; under ``FakeTensorMode`` every tensor is metadata only, so tracing costs
milliseconds and no memory, and no GPU is needed. A per-item alarm bounds Python-level hangs; the parent kills the
whole worker if an item stops the process from answering at all, and restarts after it.
"""
from __future__ import annotations

import contextlib
import importlib.util
import inspect
import json
import os
import sys
import traceback

MAX_NODES = 50_000          # a graph larger than this is an unrolled loop nobody will compare against
MAX_ERROR_CHARS = 2_000
MAX_REFS = 8
HERE = os.path.dirname(os.path.abspath(__file__))
# The reason a reference failed, the one that got furthest first: it is what the report shows.
FAILURE_ORDER = ("too_large", "forward_failed", "init_failed", "inputs_failed", "no_inputs")


class TraceFailure(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def _load(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_loop = _load("kv_worker_loop", os.path.join(os.path.dirname(HERE), "_worker_loop.py"))
ItemTimeout = _loop.ItemTimeout


def _const(value, depth: int = 0):
    """A JSON-safe record of a non-tensor argument (numbers and flags kept; everything else a type tag)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        if isinstance(value, float) and value != value:
            return "nan"
        if isinstance(value, float) and value in (float("inf"), float("-inf")):
            return str(value)
        return value if not isinstance(value, str) else value[:64]
    if isinstance(value, (list, tuple)) and depth < 3:
        return [_const(v, depth + 1) for v in list(value)[:64]]
    return {"t": type(value).__name__}


def _arg(value, index: dict, depth: int = 0):
    import torch.fx
    if isinstance(value, torch.fx.Node):
        return {"n": index[value]}
    if isinstance(value, (list, tuple)) and depth < 3:
        return [_arg(v, index, depth + 1) for v in value]
    return _const(value)


def _rank(node):
    val = node.meta.get("val")
    shape = getattr(val, "shape", None)
    return len(shape) if shape is not None else None


def graph_record(gm, placeholder_kinds: list[str]) -> list[dict]:
    """The fx graph as a list of node dicts (see the module docstring)."""
    index, nodes, n_placeholder = {}, [], 0
    for node in gm.graph.nodes:
        index[node] = len(nodes)
        if node.op == "placeholder":
            kind = placeholder_kinds[n_placeholder] if n_placeholder < len(placeholder_kinds) else "input"
            n_placeholder += 1
            nodes.append({"op": "placeholder", "kind": kind, "rank": _rank(node)})
        elif node.op == "output":
            nodes.append({"op": "output", "args": [_arg(a, index) for a in node.args]})
        elif node.op == "call_function":
            target = node.target
            name = str(target) if hasattr(target, "_schema") or "aten" in str(target) else getattr(
                target, "__name__", str(target))
            nodes.append({"op": name, "args": [_arg(a, index) for a in node.args],
                          "kw": {k: _arg(v, index) for k, v in node.kwargs.items()}, "rank": _rank(node)})
        elif node.op == "get_attr":
            nodes.append({"op": "get_attr", "kind": "param", "rank": None})
        else:
            nodes.append({"op": f"{node.op}:{getattr(node.target, '__name__', str(node.target))}", "args": [],
                          "rank": None})
        if len(nodes) > MAX_NODES:
            raise TraceFailure("too_large", f"graph has more than {MAX_NODES} nodes")
    return nodes


def _real(value):
    """Init inputs made under fake mode, as real tensors (zeros of the same shape)."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor
    if isinstance(value, FakeTensor):
        return torch.zeros(value.shape, dtype=value.dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_real(v) for v in value)
    if isinstance(value, dict):
        return {k: _real(v) for k, v in value.items()}
    return value


def _to_fake(module, fake_mode):
    import torch
    for sub in module.modules():
        for name, p in list(sub._parameters.items()):
            if p is not None:
                sub._parameters[name] = torch.nn.Parameter(fake_mode.from_tensor(p.detach()), p.requires_grad)
        for name, b in list(sub._buffers.items()):
            if b is not None:
                sub._buffers[name] = fake_mode.from_tensor(b)
    return module


def _construct(discover, ref, fake_mode):
    """An instance built on fake tensors; if the constructor needs real values (``.item()`` on a linspace),
    build it for real (the sandbox's memory limit bounds that) and swap its tensors for fake ones."""
    try:
        with fake_mode:
            return discover.instantiate(ref)
    except discover.DiscoveryError as fake_err:
        try:
            real = discover.instantiate(ref, wrap=lambda call: (_real(call[0]), _real(call[1])))
        except discover.DiscoveryError as real_err:
            raise TraceFailure("init_failed", f"fake: {fake_err.message} | real: {real_err.message}") from None
        return _to_fake(real, fake_mode)


def _source_counter():
    """A dispatch mode that counts the ops the code itself issues (before the decomposition table applies): pushed
    inside the traced function, it sees each op before the tracer decomposes and records it. A convolution's key
    carries its weight's rank (``#w4``: a 2-d convolution)."""
    import torch
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
    except ImportError:      # a private module: without it the parent counts the decomposed ops instead
        return None

    class SourceCounter(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.counts: dict[str, int] = {}

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            key = str(func)
            if key.startswith("aten.convolution") and len(args) > 1 and isinstance(args[1], torch.Tensor):
                key += f"#w{args[1].dim()}"
            self.counts[key] = self.counts.get(key, 0) + 1
            return func(*args, **(kwargs or {}))

    return SourceCounter()


def _make_fx(fn, args, table):
    """(graph module, source op counts) of ``fn(*args)`` traced with the decomposition ``table``."""
    from torch.fx.experimental.proxy_tensor import make_fx

    counter = _source_counter()

    def counted(*a):
        with counter if counter is not None else contextlib.nullcontext():
            return fn(*a)

    counts = counter.counts if counter is not None else None
    if table is None:
        return make_fx(counted, tracing_mode="real")(*args), counts
    return make_fx(counted, tracing_mode="real", decomposition_table=table)(*args), counts


def trace_module(module, inputs, table=None):
    """make_fx of module.forward with parameters and buffers as graph inputs; returns (graph, kinds, counts)."""
    import torch

    module.eval()
    params = dict(module.named_parameters())
    buffers = dict(module.named_buffers())
    tensor_pos = [i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)]
    tensors = [inputs[i] for i in tensor_pos]

    def forward(p, b, *ts):
        args = list(inputs)
        for pos, t in zip(tensor_pos, ts):
            args[pos] = t
        return torch.func.functional_call(module, {**p, **b}, tuple(args))

    with torch.no_grad():
        gm, counts = _make_fx(forward, (params, buffers, *tensors), table)
    kinds = ["param"] * len(params) + ["buffer"] * len(buffers) + ["input"] * len(tensors)
    return gm, kinds, counts


def trace_function(fn, inputs, table=None, params=None):
    """make_fx of a reference function over its tensor inputs; ``params`` (name → value) are further keyword
    arguments, their tensors graph parameters (a helper's ``weight``); other arguments are baked in."""
    import torch

    params = dict(params or {})
    tensor_pos = [i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)]
    tensor_params = [k for k, v in params.items() if isinstance(v, torch.Tensor)]

    def call(*ts):
        args = list(inputs)
        for pos, t in zip(tensor_pos, ts):
            args[pos] = t
        kwargs = dict(params)
        kwargs.update(zip(tensor_params, ts[len(tensor_pos):]))
        return fn(*args, **kwargs)

    with torch.no_grad():
        gm, counts = _make_fx(call, [inputs[i] for i in tensor_pos] + [params[k] for k in tensor_params], table)
    return gm, ["input"] * len(tensor_pos) + ["param"] * len(tensor_params), counts


def _module_state(discover, module, fake_mode) -> dict:
    """Values by name from the code's own modules, built as discovery would build them: parameters and buffers
    (by their last name component, then their full name with dots as underscores) and plain attributes."""
    import torch
    state: dict = {}
    for cls in [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, torch.nn.Module)
                and v.__module__ == module.__name__]:
        ref = discover.Reference(cls.__name__, "module", cls, discover.init_calls_for(cls, module), None)
        try:
            with fake_mode:
                inst = discover.instantiate(ref)
        except discover.DiscoveryError:
            continue
        for name, value in list(inst.named_parameters()) + list(inst.named_buffers()):
            state.setdefault(name.rsplit(".", 1)[-1], value)
            state.setdefault(name.replace(".", "_"), value)
        for sub in inst.modules():
            for name, value in vars(sub).items():
                if not name.startswith("_") and isinstance(value, (bool, int, float, tuple, list, str)):
                    state.setdefault(name, value)
    return state


def _function_params(discover, fn, inputs, module, fake_mode) -> dict:
    """Arguments a reference function needs beyond ``get_inputs()``: a Triton row's torch helper often takes the
    weights and constants of the row's ``ModelNew`` (``reference(x, weight, bias, scale)``); they are taken by
    name from the state of the code's modules. Arguments with defaults keep them."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return {}
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    missing = [p for p in positional[len(inputs):] if p.default is p.empty]
    if not missing:
        return {}
    state = _module_state(discover, module, fake_mode)
    unknown = [p.name for p in missing if p.name not in state]
    if unknown:
        raise TraceFailure("inputs_failed", f"{fn.__name__}: no value for argument(s) {', '.join(unknown)}")
    return {p.name: state[p.name] for p in missing}


def _trace_reference(discover, ref, fake_mode, table, module) -> dict:
    if ref.inputs is None:
        raise TraceFailure("no_inputs", f"{ref.name}: no get_inputs() or inputs helper")
    try:
        with fake_mode:
            inputs = ref.inputs()
    except ItemTimeout:
        raise
    except Exception as err:  # noqa: BLE001 - any failure of untrusted code is data
        raise TraceFailure("inputs_failed", f"{ref.name}: {type(err).__name__}: {err}") from None
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    try:
        if ref.kind == "module":
            gm, kinds, counts = trace_module(_construct(discover, ref, fake_mode), inputs, table)
        else:
            params = _function_params(discover, ref.obj, inputs, module, fake_mode)
            gm, kinds, counts = trace_function(ref.obj, inputs, table, params)
    except (ItemTimeout, TraceFailure):
        raise
    except Exception as err:  # noqa: BLE001
        raise TraceFailure("forward_failed", f"{ref.name}: {type(err).__name__}: {err}") from None
    return {"cls": ref.name, "kind": ref.kind, "nodes": graph_record(gm, kinds), "source": counts}


def trace_code(code: str, name: str, discover, table) -> list[dict]:
    """Execute ``code`` as a module and trace every reference it holds."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    fake_mode = FakeTensorMode(allow_non_fake_inputs=True)
    torch.manual_seed(0)
    try:
        try:  # module-level tensors (``A = torch.randn(N, N)``) are fake too
            module = discover.load_code(code, name, exec_context=fake_mode)
            with fake_mode:
                refs = discover.find_references(module, max_refs=MAX_REFS)
        except discover.DiscoveryError as err:
            raise TraceFailure(err.code, err.message or err.code) from None
        graphs, failures = [], []
        for ref in refs:
            try:
                graphs.append(_trace_reference(discover, ref, fake_mode, table, module))
            except TraceFailure as err:
                failures.append(err)
        if not graphs:
            failures.sort(key=lambda f: FAILURE_ORDER.index(f.code) if f.code in FAILURE_ORDER else 99)
            raise TraceFailure(failures[0].code, " | ".join(str(f) for f in failures))
        return graphs
    finally:
        discover.unload(name)


def _warm_up(table) -> None:
    """Trace a tiny module once, so lazy imports inside the tracer don't count against the first item's time."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode(allow_non_fake_inputs=True):
        module, x = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.GELU()), torch.randn(2, 4)
    trace_module(module, [x], table)


def main(argv: list[str]) -> int:
    item_timeout = float(argv[1])
    proto = _loop.protocol_channel()
    import torch
    torch.set_num_threads(1)
    discover = _load("kv_discover", os.path.join(os.path.dirname(HERE), "discover.py"))
    table = _load("kv_decompositions", os.path.join(HERE, "_decompositions.py")).decomposition_table()
    _warm_up(table)

    def answer(i: int, item: dict) -> str:
        graphs = trace_code(item["code"], f"kv_traced_{i}", discover, table)
        return json.dumps({"i": i, "key": item["key"], "ok": True, "graphs": graphs}, allow_nan=False)

    def failed(i: int, item: dict, err: BaseException) -> str:
        out = {"i": i, "key": item["key"], "ok": False}
        if isinstance(err, ItemTimeout):
            out.update(code="timeout", error=f"timed out after {item_timeout:g} s")
        elif isinstance(err, TraceFailure):
            out.update(code=err.code, error=str(err)[-MAX_ERROR_CHARS:])
        else:                          # SystemExit from the code is a failure of the item too
            tb = traceback.format_exception_only(type(err), err)
            out.update(code="forward_failed", error="".join(tb).strip()[-MAX_ERROR_CHARS:])
        return json.dumps(out, allow_nan=False)

    return _loop.serve(item_timeout, proto, answer, failed)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
