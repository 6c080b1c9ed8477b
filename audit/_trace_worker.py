"""Sandboxed worker: trace PyTorch reference modules to ATen op graphs on fake tensors.

Run only through :mod:`kvdata.audit.structural`, inside :class:`kvdata.sandbox.Sandbox`. It imports nothing from
kvdata (the sandbox runs it with ``python -I``), reads ``inputs.jsonl`` (``{"key", "code"}`` per line) from its
working directory, and for each item writes ONE JSON line to its protocol channel (the original stdout, which is
moved aside before any untrusted code runs, so a ``print`` in the code under trace cannot forge a result):

    {"i": <line index>, "key": ..., "ok": true,  "graphs": [{"cls": name, "nodes": [...]}, ...]}
    {"i": <line index>, "key": ..., "ok": false, "error": "..."}

Each node is ``{"op": target, "args": [...], "kw": {...}, "rank": int|null, "kind": ...}`` where a tensor argument
is ``{"n": <node index>}`` and anything else is a JSON scalar or a type tag. The parent does all normalisation and
hashing; this side only records what the tracer saw.

Why fake tensors: ``get_inputs()`` of a KernelBench problem allocates gigabytes (``torch.rand(8192, 8192)``) and
its ``forward`` would run for seconds; under ``FakeTensorMode`` every tensor is metadata only, so tracing costs
milliseconds and no memory, and no GPU is needed. A per-item alarm bounds Python-level hangs; the parent kills the
whole worker if an item stops the process from answering at all, and restarts after it.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import traceback
import types

MAX_NODES = 50_000          # a graph larger than this is an unrolled loop nobody will compare against
MAX_ERROR_CHARS = 2_000


class ItemTimeout(BaseException):
    """Raised by the alarm; a BaseException so ``except Exception`` in traced code does not swallow it."""


def _on_alarm(signum, frame):
    signal.setitimer(signal.ITIMER_REAL, 1.0)   # keep firing if the code swallows it anyway
    raise ItemTimeout()


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
            raise ValueError(f"graph has more than {MAX_NODES} nodes")
    return nodes


def _init_calls(init):
    """Ways to call a constructor with ``get_init_inputs()``: ``*args``, or KernelBook's ``[args, kwargs]``."""
    if isinstance(init, dict):
        return [((), init)]
    init = list(init) if isinstance(init, (list, tuple)) else [init]
    calls = [(tuple(init), {})]
    if len(init) == 2 and isinstance(init[0], (list, tuple)) and isinstance(init[1], dict):
        calls.insert(0, (tuple(init[0]), dict(init[1])))
    return calls


def _construct(cls, init, fake_mode):
    """An instance built on fake tensors; if the constructor needs real values (``.item()`` on a linspace),
    build it for real (the sandbox's memory limit bounds that) and swap its tensors for fake ones."""
    errors = []
    for real in (False, True):
        for args, kwargs in _init_calls(init):
            try:
                if not real:
                    with fake_mode:
                        return cls(*args, **kwargs)
                return _to_fake(cls(*_real(args), **_real(kwargs)), fake_mode)
            except ItemTimeout:
                raise
            except Exception as err:  # noqa: BLE001 - any failure of untrusted code is data
                errors.append(f"{'real' if real else 'fake'} {type(err).__name__}: {err}")
    raise RuntimeError("; ".join(errors))


def _real(value):
    """Init inputs made under fake mode, as real tensors (only small ones are worth it; others stay empty)."""
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


def trace_module(module, inputs, fake_mode):
    """make_fx of module.forward with parameters and buffers as graph inputs; returns (graph, kinds)."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

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
        gm = make_fx(forward, tracing_mode="real")(params, buffers, *tensors)
    kinds = ["param"] * len(params) + ["buffer"] * len(buffers) + ["input"] * len(tensors)
    return gm, kinds


def _candidate_classes(namespace: dict, module_name: str):
    import torch.nn as nn
    classes = [v for v in namespace.values()
               if isinstance(v, type) and issubclass(v, nn.Module) and v.__module__ == module_name]
    named = [c for c in classes if c.__name__ == "Model"]
    return named or classes


def trace_code(code: str, name: str) -> list[dict]:
    """Execute ``code`` as a module and trace its module(s) with ``get_inputs()`` / ``get_init_inputs()``."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    fake_mode = FakeTensorMode(allow_non_fake_inputs=True)
    mod = types.ModuleType(name)
    mod.__file__ = f"<{name}>"
    sys.modules[name] = mod
    try:
        torch.manual_seed(0)
        compiled = compile(code, f"<{name}>", "exec")
        with fake_mode:  # module-level tensors (``A = torch.randn(N, N)``) are fake too
            exec(compiled, mod.__dict__)
        ns = mod.__dict__
        get_inputs = ns.get("get_inputs")
        if not callable(get_inputs):
            raise LookupError("no get_inputs() in the code")
        get_init = ns.get("get_init_inputs")
        with fake_mode:
            init = get_init() if callable(get_init) else []
        classes = _candidate_classes(ns, name)
        if not classes:
            raise LookupError("no nn.Module subclass defined in the code")
        built, errors = [], []
        for cls in classes:
            try:
                built.append((cls, _construct(cls, init, fake_mode)))
            except ItemTimeout:
                raise
            except Exception as err:  # noqa: BLE001
                errors.append(f"{cls.__name__}(): {err}")
        # A class used inside another traced class is part of that one's graph, not a model of its own.
        inner = {type(m) for _, inst in built for m in list(inst.modules())[1:]}
        graphs = []
        for cls, inst in built:
            if cls in inner and len(built) > 1:
                continue
            try:
                with fake_mode:
                    inputs = get_inputs()
                inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
                gm, kinds = trace_module(inst, inputs, fake_mode)
                graphs.append({"cls": cls.__name__, "nodes": graph_record(gm, kinds)})
            except ItemTimeout:
                raise
            except Exception as err:  # noqa: BLE001
                errors.append(f"{cls.__name__}.forward: {type(err).__name__}: {err}")
        if not graphs:
            raise RuntimeError("nothing traced: " + " | ".join(errors))
        return graphs
    finally:
        sys.modules.pop(name, None)


def _warm_up() -> None:
    """Trace a tiny module once, so lazy imports inside the tracer don't count against the first item's time."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    fake_mode = FakeTensorMode(allow_non_fake_inputs=True)
    with fake_mode:
        module, x = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU()), torch.randn(2, 4)
    trace_module(module, [x], fake_mode)


def main(argv: list[str]) -> int:
    inputs_path, item_timeout = argv[1], float(argv[2])
    # The protocol channel is a private copy of stdout; fd 1 now points at stderr for whatever the code prints.
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    import torch
    torch.set_num_threads(1)
    _warm_up()
    signal.signal(signal.SIGALRM, _on_alarm)
    with open(inputs_path, encoding="utf-8") as f:
        items = [json.loads(line) for line in f if line.strip()]
    for i, item in enumerate(items):
        out = {"i": i, "key": item["key"]}
        try:
            signal.setitimer(signal.ITIMER_REAL, item_timeout)
            out.update(ok=True, graphs=trace_code(item["code"], f"kv_traced_{i}"))
        except ItemTimeout:
            out.update(ok=False, error=f"timed out after {item_timeout:g} s")
        except BaseException as err:  # noqa: BLE001 - SystemExit from the code is a failure of the item too
            tb = traceback.format_exception_only(type(err), err)
            out.update(ok=False, error="".join(tb).strip()[-MAX_ERROR_CHARS:])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        proto.write(json.dumps(out, allow_nan=False) + "\n")
        proto.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
