"""From the worker's raw op list to a normalised op graph and its Weisfeiler-Lehman fingerprint.

Normalisation (:func:`normalize_graph`), on top of the decompositions the worker traced with:

- shapes are abstracted (only a convolution's dimensionality is kept);
- layout-only ops (view, reshape, permute, transpose, expand, contiguous, clone, detach, dtype casts,
  dropout, ...) collapse into their input; a transpose/permute leaves a mark on the edge, so ``A.T @ B`` is not
  ``A @ B`` while ``F.linear(x, w)`` and ``x @ w.t()`` still converge;
- in-place and out-of-place are one op (``relu_`` is ``relu``); ``mm``/``bmm``/``matmul`` are ``matmul``;
  ``addmm(b, x, w)`` is ``matmul(x, w) + b`` and a convolution's bias is an ``add`` after it, so ``nn.Linear``,
  ``F.linear`` and ``x @ w.T + b`` meet, and so do a biased conv and an unbiased conv plus a bias;
- scalar operands and filled tensors (``full``, ``zeros_like``, ``scalar_tensor``) are constants; a global
  average pool is a sum times a constant, like the mean it is;
- the algebra of :mod:`.algebra` (division, subtraction, powers, commutative chains, clamps) and common
  subexpression merging, repeated until nothing changes; then dead code is dropped.

Fingerprint (:func:`fingerprint_graph`): WL relabelling over the DAG, each node's label refined with its inputs
(ordered, or sorted for commutative ops, with the transpose mark) and its consumers, three rounds; the multiset
of all labels is the feature multiset, the multiset of final labels the exact hash. A second, upstream-only
relabelling (inputs only) gives the features graph containment uses (see :mod:`.similarity`).
"""
from __future__ import annotations

import hashlib
from collections import Counter
from typing import Iterable, Optional

from .algebra import Builder, Ref, rebuild
from .opgraph import NON_OPS, OpGraph
from .records import Fingerprint, GraphPrint

WL_ROUNDS = 3
MAX_PASSES = 8          # canonicalisation passes; each only rewrites towards the canonical form

# Ops that only change how data is laid out or referenced: the node becomes its first tensor input.
LAYOUT_OPS = frozenset({
    "view", "_unsafe_view", "reshape", "_reshape_alias", "expand", "expand_as", "contiguous", "clone", "detach",
    "alias", "t", "transpose", "permute", "squeeze", "unsqueeze", "flatten", "unflatten", "view_as", "as_strided",
    "lift_fresh", "lift_fresh_copy", "_to_copy", "to", "type_as", "dropout", "native_dropout", "feature_dropout",
    "alpha_dropout", "_assert_tensor_metadata", "movedim", "swapaxes", "mT", "numpy_T", "_conj", "resolve_conj",
    "resolve_neg", "view_copy", "unsqueeze_copy", "squeeze_copy", "permute_copy", "t_copy", "expand_copy",
    "transpose_copy", "_unsafe_view_copy", "alias_copy", "identity", "repeat", "tile", "broadcast_to",
    "_assert_async", "_functional_assert_async",
})
PERMUTING_OPS = frozenset({"t", "transpose", "permute", "movedim", "swapaxes", "mT", "numpy_T", "permute_copy",
                           "t_copy", "transpose_copy"})
# Layout ops that keep the dimension order (a pending permutation stays trackable through them).
SAME_LAYOUT_OPS = frozenset({"contiguous", "clone", "detach", "alias", "lift_fresh", "lift_fresh_copy", "_to_copy",
                             "to", "type_as", "dropout", "native_dropout", "feature_dropout", "alpha_dropout",
                             "_conj", "resolve_conj", "resolve_neg", "alias_copy", "identity", "copy", "expand",
                             "expand_as", "expand_copy", "broadcast_to"})
# Allocations whose contents are about to be overwritten: no computation.
EMPTY_OPS = frozenset({"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided"})
# Tensors filled with one value: a constant. value: which argument holds it (or the value itself).
FILL_OPS = {"full": ("arg", 1), "full_like": ("arg", 1), "new_full": ("arg", 2), "scalar_tensor": ("arg", 0),
            "ones": ("value", 1.0), "ones_like": ("value", 1.0), "new_ones": ("value", 1.0),
            "zeros": ("value", 0.0), "zeros_like": ("value", 0.0), "new_zeros": ("value", 0.0),
            "fill": ("arg", 1)}
RENAMED_OPS = {
    "mm": "matmul", "bmm": "matmul", "matmul": "matmul", "dot": "matmul", "mv": "matmul",
    "native_batch_norm": "batch_norm", "_native_batch_norm_legit": "batch_norm",
    "_native_batch_norm_legit_no_training": "batch_norm", "native_batch_norm_legit_functional": "batch_norm",
    "native_layer_norm": "layer_norm", "native_group_norm": "group_norm", "_softmax": "softmax",
    "_safe_softmax": "softmax", "_log_softmax": "log_softmax", "max_pool1d_with_indices": "max_pool1d",
    "max_pool2d_with_indices": "max_pool2d", "max_pool3d_with_indices": "max_pool3d", "true_divide": "div",
    "multiply": "mul", "subtract": "sub", "divide": "div", "absolute": "abs", "clip": "clamp", "greater": "gt",
    "less": "lt", "greater_equal": "ge", "less_equal": "le", "negative": "neg", "arctan2": "atan2",
    "scaled_dot_product_attention": "sdpa", "_scaled_dot_product_flash_attention_for_cpu": "sdpa",
    "_scaled_dot_product_efficient_attention": "sdpa", "_scaled_dot_product_flash_attention": "sdpa",
    "_adaptive_avg_pool2d": "adaptive_avg_pool2d", "_adaptive_avg_pool3d": "adaptive_avg_pool3d",
}
# Overload-specific names: torch.max(x, dim) is a reduction, torch.max(a, b) is maximum.
OVERLOAD_NAMES = {("max", "other"): "maximum", ("min", "other"): "minimum", ("max", "dim"): "amax",
                  ("max", "default"): "amax", ("min", "dim"): "amin", ("min", "default"): "amin"}
# addmm(bias, a, b) is matmul(a, b) + bias.
FUSED_ADD_MATMUL = frozenset({"addmm", "baddbmm", "addbmm", "addmv"})
# Ops whose numeric (non-tensor) arguments are operands: they become constants in place.
SCALAR_OPERAND_OPS = frozenset({
    "add", "mul", "sub", "div", "pow", "maximum", "minimum", "rsub", "remainder", "fmod", "gt", "lt", "ge", "le",
    "eq", "ne", "where", "masked_fill", "atan2", "fmax", "fmin", "hypot", "copysign", "xlogy", "floor_divide",
    "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor",
})
ADAPTIVE_AVG_POOLS = frozenset({"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"})


def split_target(target: str) -> tuple[str, str]:
    """``aten.relu_.default`` → (``relu``, ``default``); in-place → out-of-place; a builtin's name unchanged."""
    name, overload = target, "default"
    if name.startswith("aten."):
        parts = name.split(".")
        name = parts[1]
        overload = parts[2] if len(parts) > 2 else "default"
    elif name.startswith("<built-in function "):
        name = name[len("<built-in function "):-1]
    if name.endswith("_") and not name.endswith("__") and name.rstrip("_"):
        name = name.rstrip("_")
    return name, overload


def base_op_name(target: str) -> str:
    """``aten.relu_.default`` → ``relu``; ``aten._softmax.default`` → ``softmax``; others stay readable."""
    name, overload = split_target(target)
    if (name, overload) in OVERLOAD_NAMES:
        return OVERLOAD_NAMES[(name, overload)]
    return RENAMED_OPS.get(name, name)


def _refs(arg) -> list[int]:
    """Raw node indices referenced by a recorded argument (nested lists flattened)."""
    if isinstance(arg, dict) and set(arg) == {"n"}:
        return [int(arg["n"])]
    if isinstance(arg, list):
        return [r for a in arg for r in _refs(a)]
    return []


def _number(arg) -> Optional[float]:
    if isinstance(arg, bool) or not isinstance(arg, (int, float)):
        return None
    return float(arg)


class _Parser:
    """One pass over the raw node list, emitting canonical nodes through a :class:`Builder`."""

    def __init__(self, nodes: list):
        self.nodes = nodes
        self.b = Builder()
        self.mapped: list[Optional[Ref]] = []      # raw node index → graph node (None: carries no data)
        self.ranks: list[Optional[int]] = []
        self.perm: dict[int, object] = {}           # raw layout node → net permutation since its computing op

    def resolve(self, refs: Iterable[int]) -> list[Ref]:
        out = []
        for r in refs:
            if not 0 <= r < len(self.mapped):
                raise ValueError(f"reference to node {r} before it exists")
            if self.mapped[r] is not None:
                out.append(self.mapped[r])
        return out

    def operand(self, arg) -> Optional[Ref]:
        """A tensor argument, or a numeric one as a constant; None for anything else."""
        refs = self.resolve(_refs(arg))
        if refs:
            return refs[0]
        value = _number(arg)
        return self.b.const(value) if value is not None else None

    def run(self) -> tuple[OpGraph, int]:
        output_refs: list[Ref] = []
        for raw in self.nodes:
            if not isinstance(raw, dict) or not isinstance(raw.get("op"), str):
                raise ValueError("malformed node")
            rank = raw.get("rank")
            self.ranks.append(rank if isinstance(rank, int) and not isinstance(rank, bool) else None)
            args, kwargs = raw.get("args") or [], raw.get("kw") or {}
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise ValueError("malformed node arguments")
            op = raw["op"]
            if op in ("placeholder", "get_attr"):
                self.mapped.append(self.b.leaf("input" if raw.get("kind") == "input" else "param"))
            elif op == "output":
                output_refs = self.resolve(_refs(args))
                self.mapped.append(None)
            else:
                self.mapped.append(self.call(op, args, kwargs))
        out = self.b.graph.add("output", output_refs)
        return self.b.graph.without_dead(out)

    def call(self, op: str, args: list, kwargs: dict) -> Optional[Ref]:
        b = self.b
        name = base_op_name(op)
        flat = [r for a in args for r in self.resolve(_refs(a))] + self.resolve(_refs(list(kwargs.values())))
        if name == "getitem":
            return self.getitem(args, flat)
        if name in EMPTY_OPS:
            return None
        if name in LAYOUT_OPS or (name == "copy" and len(flat) == 2):
            return self.layout(name, args)
        if name in FILL_OPS:
            how, where = FILL_OPS[name]
            value = where if how == "value" else (_number(args[where]) if len(args) > where else None)
            return b.const(value)
        if name in FUSED_ADD_MATMUL and len(flat) >= 3:
            return b.emit("add", [flat[0], b.emit("matmul", flat[1:3])])
        if name in ("clamp", "clamp_min", "clamp_max", "hardtanh"):
            return self.clamp(name, args, kwargs)
        if name == "convolution":
            return self.convolution(args, flat)
        if name in ADAPTIVE_AVG_POOLS and len(args) > 1 and isinstance(args[1], list) \
                and args[1] and all(v == 1 for v in args[1]) and flat:
            return b.emit("mul", [b.emit("sum", flat[:1]), b.const(None)])
        if name in SCALAR_OPERAND_OPS:
            return self.scalar_operands(name, args, kwargs)
        return b.emit(name, flat)

    def layout(self, name: str, args: list) -> Optional[Ref]:
        """A layout op is its data source (``copy_(dst, src)``: src; else the first tensor input), with the net
        permutation of the dimensions since the last computing op tracked, so a transpose that is undone (the
        ``transpose(1, 2)`` pair around an attention) leaves no mark while a real one does."""
        raw = [r for a in args for r in _refs(a) if 0 <= r < len(self.mapped) and self.mapped[r] is not None]
        if not raw:
            return None
        src = raw[-1] if name == "copy" else raw[0]
        state = self.perm.get(src)
        if name in PERMUTING_OPS:
            state = self._permute(name, args, state, self.ranks[src])
        elif state is not None and name not in SAME_LAYOUT_OPS:
            state = "?"
        self.perm[len(self.mapped)] = state
        return self.mapped[src][0], state is not None

    @staticmethod
    def _permute(name: str, args: list, state, rank: Optional[int]):
        """The net permutation after ``name`` (None: identity; "?": a permutation that cannot be followed)."""
        if state == "?" or not isinstance(rank, int) or rank < 1:
            return "?"
        order = list(state) if state is not None else list(range(rank))
        try:
            if name in ("permute", "permute_copy"):
                order = [order[int(d) % rank] for d in args[1]]
            elif name in ("transpose", "transpose_copy", "swapaxes"):
                d0, d1 = int(args[1]) % rank, int(args[2]) % rank
                order[d0], order[d1] = order[d1], order[d0]
            elif name in ("t", "t_copy", "numpy_T", "mT") and rank >= 2:
                order[-1], order[-2] = order[-2], order[-1]
            else:
                return "?"
        except (IndexError, TypeError, ValueError):
            return "?"
        if sorted(order) != list(range(rank)):
            return "?"
        return None if order == list(range(rank)) else tuple(order)

    def getitem(self, args: list, flat: list[Ref]) -> Optional[Ref]:
        """One result of a multi-result op: the first is the op itself, the others a node of their own."""
        if not flat:
            return None
        index = args[1] if len(args) > 1 and isinstance(args[1], int) else 0
        if index == 0:
            return flat[0]
        source = flat[0]
        label = self.b.graph.labels[source[0]]
        if label in ("amax", "amin") and index == 1:
            return self.b.emit("argmax" if label == "amax" else "argmin",
                               list(zip(self.b.graph.inputs[source[0]], self.b.graph.permuted[source[0]])))
        return self.b.emit(f"{label}[{index}]", [source])

    def clamp(self, name: str, args: list, kwargs: dict) -> Optional[Ref]:
        x = self.operand(args[0]) if args else None
        if x is None:
            return None
        lo_arg = args[1] if len(args) > 1 else kwargs.get("min", kwargs.get("min_val"))
        hi_arg = args[2] if len(args) > 2 else kwargs.get("max", kwargs.get("max_val"))
        if name == "clamp_max":
            lo_arg, hi_arg = None, (args[1] if len(args) > 1 else kwargs.get("max"))
        if name == "hardtanh":
            lo_arg = -1.0 if lo_arg is None else lo_arg
            hi_arg = 1.0 if hi_arg is None else hi_arg
        lo, hi = self.operand(lo_arg), self.operand(hi_arg)
        if lo is not None:
            x = self.b.emit("maximum", [x, lo])
        if hi is not None:
            x = self.b.emit("minimum", [x, hi])
        return x

    def convolution(self, args: list, flat: list[Ref]) -> Optional[Ref]:
        weight = _refs(args[1]) if len(args) > 1 else []
        weight_rank = self.ranks[weight[0]] if weight and 0 <= weight[0] < len(self.ranks) else None
        transposed = len(args) > 6 and args[6] is True
        dims = f"{weight_rank - 2}d" if isinstance(weight_rank, int) and weight_rank >= 3 else ""
        label = f"conv_transpose{dims}" if transposed else f"conv{dims}"
        x = self.operand(args[0]) if args else None
        w = self.operand(args[1]) if len(args) > 1 else None
        bias = self.resolve(_refs(args[2])) if len(args) > 2 else []
        if x is None or w is None:
            return self.b.emit(label, flat)
        out = self.b.emit(label, [x, w])
        return self.b.emit("add", [out, bias[0]]) if bias else out

    def scalar_operands(self, name: str, args: list, kwargs: dict) -> Optional[Ref]:
        b = self.b
        ins = [r for r in (self.operand(a) for a in args) if r is not None]
        ins += self.resolve(_refs([v for k, v in kwargs.items() if k not in ("alpha", "rounding_mode")]))
        alpha = _number(kwargs.get("alpha"))
        if name in ("add", "sub", "rsub") and alpha is not None and alpha != 1 and len(ins) == 2:
            ins[1] = b.emit("mul", [ins[1], b.const(alpha)])
        mode = kwargs.get("rounding_mode")
        if name == "div" and isinstance(mode, str):
            return b.emit(f"div_{mode}", ins)
        if name == "pow" and len(ins) == 2 and b.graph.labels[ins[0][0]] == "const":
            return b.emit("rpow", ins)   # c ** x: an exponential, not a power
        return b.emit(name, ins)


def normalize_graph(nodes: list[dict]) -> OpGraph:
    """Turn the worker's raw node list into a canonical :class:`OpGraph` (see the module docstring).

    Raises ``ValueError`` on anything malformed: this is untrusted data.
    """
    if not isinstance(nodes, list):
        raise ValueError("graph nodes must be a list")
    graph, output = _Parser(nodes).run()
    for _ in range(MAX_PASSES):
        again, output = rebuild(graph, output)
        if again.same_as(graph):
            break
        graph = again
    return graph


# ---------------------------------------------------------------------------------------------- hashing
def _h(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def wl_labels(graph: OpGraph, rounds: int = WL_ROUNDS, consumers: bool = True) -> list[list[str]]:
    """Weisfeiler-Lehman refinement: round r+1 label = hash(own label, input labels[, consumer labels]).

    Inputs keep their order except for commutative ops (sorted) and carry a mark when reached through a
    transpose/permute; consumers are a multiset. ``consumers=False`` gives upstream-only labels: a node's round-r
    label then describes exactly the computation within r steps upstream of it.
    """
    users = graph.consumers() if consumers else None
    current = [_h(graph.label_text(n)) for n in range(len(graph.labels))]
    history = [current]
    for _ in range(rounds):
        nxt = []
        for n, own in enumerate(current):
            ins = [current[i] + ("T" if p else "") for i, p in zip(graph.inputs[n], graph.permuted[n])]
            if not graph.ordered[n]:
                ins.sort()
            outs = sorted(current[c] for c in users[n]) if users is not None else []
            nxt.append(_h(f"{own}|{','.join(ins)}|{','.join(outs)}"))
        current = nxt
        history.append(current)
    return history


def input_distance(graph: OpGraph) -> list[float]:
    """Per node, the fewest edges upstream to a graph input (``inf`` when none is upstream)."""
    dist: list[float] = []
    for n, label in enumerate(graph.labels):
        if label == "input":
            dist.append(0)
        else:
            dist.append(min((dist[i] + 1 for i in graph.inputs[n]), default=float("inf")))
    return dist


def source_op_counts(counts: dict) -> dict[str, int]:
    """Normalised labels of the ops a code issued before decomposition (the worker's ``source`` counts): layout
    ops, allocations, fills and getitem are not operations; a convolution is named by its weight's rank."""
    if not isinstance(counts, dict):
        raise ValueError("malformed source op counts")
    out: Counter = Counter()
    for target, n in counts.items():
        if not isinstance(target, str) or isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError("malformed source op counts")
        target, _, weight = target.partition("#w")
        if target.startswith("prim."):
            continue
        name = base_op_name(target)
        if name in LAYOUT_OPS or name in EMPTY_OPS or name in FILL_OPS or name in ("getitem", "copy"):
            continue
        if name == "convolution":
            name = f"conv{int(weight) - 2}d" if weight.isdigit() and int(weight) >= 3 else "conv"
        out[name] += n
    return dict(sorted(out.items()))


def fingerprint_graph(graph: OpGraph, cls: str = "Model", source: Optional[dict] = None,
                      kind: str = "module") -> GraphPrint:
    history = wl_labels(graph)
    features = Counter(f"{r}{label}" for r, labels in enumerate(history) for label in labels)
    canonical = hashlib.sha256("\n".join(sorted(history[-1])).encode()).hexdigest()[:32]
    ops = graph.op_counts()
    cone_history = wl_labels(graph, consumers=False)
    dist = input_distance(graph)
    cone: Counter = Counter()
    core: Counter = Counter()
    for n, label in enumerate(graph.labels):
        if label in NON_OPS:
            continue
        for r in range(1, WL_ROUNDS + 1):
            feat = f"c{r}{cone_history[r][n]}"
            cone[feat] += 1
            if dist[n] > r:
                core[feat] += 1
    source_ops = source_op_counts(source) if source is not None else ops
    return GraphPrint(cls=cls, n_ops=sum(ops.values()), features=dict(features), canonical=canonical, ops=ops,
                      source_ops=source_ops, n_source_ops=sum(source_ops.values()), cone=dict(cone),
                      core=dict(core), kind=kind)


def fingerprint_from_worker(key: str, graphs: list) -> Fingerprint:
    """Validate and fingerprint the graphs a worker reported (untrusted JSON)."""
    if not isinstance(graphs, list) or not graphs:
        raise ValueError("worker reported no graphs")
    prints = []
    for g in graphs:
        if not isinstance(g, dict):
            raise ValueError("malformed graph record")
        kind = "function" if g.get("kind") == "function" else "module"
        prints.append(fingerprint_graph(normalize_graph(g.get("nodes")), cls=str(g.get("cls", "?"))[:200],
                                        source=g.get("source"), kind=kind))
    return Fingerprint(key=key, graphs=prints)
