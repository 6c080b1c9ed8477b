"""Sandboxed worker: run pairs of PyTorch references on shared probe inputs and say whether they agree.

Run only through :mod:`kvdata.audit.behavioural`, inside :class:`kvdata.sandbox.Sandbox`, with ``python -I``: it
imports nothing from kvdata. It loads its helpers (``discover.py``, ``_probe_args.py``, ``_probe_sizes.py``,
``_probe_compare.py``) by path under private module names, so a code that does ``import discover`` gets nothing
of ours. It reads
its items (``{"key", "bench", "train"}``, one JSON line each) on stdin and writes one
:class:`ProbeAnswer` per line, as JSON, to its protocol channel (the original stdout, moved aside before any
untrusted code runs, so a ``print`` in the code cannot forge an answer). The parent imports this module only for
:class:`ProbeAnswer` (stdlib only at import time) and validates every line it receives.

Per pair: both codes are executed (on the CPU: a torch-function mode maps ``device="cuda"``, ``.cuda()`` and
``.to("cuda")`` to the CPU), their references found (:mod:`discover`, up to three each), and every combination
probed (:mod:`_probe_sizes` picks the sizes, :mod:`_probe_compare` the weights, probes and verdict) until one is
equivalent at two sizes; the best combination is reported. A per-pair alarm bounds Python-level hangs; past 80%
of it no new combination is started. The parent kills a worker that stops answering and restarts after that pair.
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import sys
import time
import traceback
from dataclasses import asdict, dataclass

MAX_DETAIL_CHARS = 1_000
OUT_OF_MEMORY = ("can't allocate memory", "MemoryError", "Cannot allocate memory")
REFS_PER_SIDE = 3
PROBER_CODES = {
    "timeout": "the pair ran past its time limit",
    "memory": "the pair ran past its memory limit",
    "worker_died": "the worker process died on this pair (a crash, os._exit, a signal)",
    "forward_failed": "a reference raised on every probe input",
    "shape_mismatch": "no size at which both references take the same inputs and give outputs of the same shapes",
    "inputs_failed": "the probe inputs could not be made",
    "too_large": "the inputs stay over the size limit at every size the code lets the prober pick",
    "probe_error": "the prober failed on this pair (a bug or an unusable answer)",
}


@dataclass
class ProbeAnswer:
    """One worker answer: the verdict for the pair on line ``i`` of the inputs."""

    i: int
    key: str
    score: float | None          # None when not probed (NaN does not cross as JSON)
    equivalent: bool
    reason: str                  # "" when probed, else a reason code
    detail: str = ""

    def to_line(self) -> str:
        return json.dumps(asdict(self), allow_nan=False)

    @classmethod
    def from_line(cls, line: bytes | str, index: int, key: str) -> "ProbeAnswer":
        """Parse and check one line from a worker (untrusted): ValueError on anything unexpected."""
        d = json.loads(line)
        if not isinstance(d, dict) or set(d) != {"i", "key", "score", "equivalent", "reason", "detail"}:
            raise ValueError("malformed answer")
        if d["i"] != index or d["key"] != key:
            raise ValueError("answer out of order")
        score = d["score"]
        if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))
                                  or not 0.0 <= score <= 1.0):
            raise ValueError(f"bad score {score!r}")
        if not isinstance(d["equivalent"], bool) or not isinstance(d["reason"], str) or \
                not isinstance(d["detail"], str) or len(d["reason"]) > 64:
            raise ValueError("bad field types")
        if d["equivalent"] and (score != 1.0 or d["reason"]):
            raise ValueError("equivalent answers have score 1 and no reason")
        return cls(index, key, None if score is None else float(score), d["equivalent"], d["reason"],
                   d["detail"][:MAX_DETAIL_CHARS])


def _load(name: str, filename: str):
    spec = importlib.util.spec_from_file_location(name, os.path.join(os.path.dirname(__file__), filename))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def cpu_only_mode():
    """A torch-function mode that sends every device request to the CPU."""
    import torch
    from torch.overrides import TorchFunctionMode

    def cpu(value):
        if isinstance(value, (str, torch.device)) and str(value).split(":")[0] in ("cuda", "hip", "mps", "xpu"):
            return torch.device("cpu")
        if isinstance(value, int) and not isinstance(value, bool):
            return torch.device("cpu")          # .cuda(0), .to(0)
        return value

    class CpuOnly(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            name = getattr(func, "__name__", "")
            if name == "cuda" and args and isinstance(args[0], torch.Tensor):
                return args[0]
            if "device" in kwargs:
                kwargs["device"] = cpu(kwargs["device"])
            if name == "to" and len(args) > 1:
                args = (args[0], cpu(args[1])) + tuple(args[2:])
            return func(*args, **kwargs)
    return CpuOnly()


def reset_torch_state() -> None:
    """Undo what an earlier pair's code may have changed process-wide (default dtype, grad mode, threads)."""
    import torch
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(False)


class Prober:
    def __init__(self):
        self.discover = _load("kv_probe_discover", "discover.py")
        self.args = _load("kv_probe_args", "_probe_args.py")
        self.sizes = _load("kv_probe_sizes", "_probe_sizes.py")
        self.compare = _load("kv_probe_compare", "_probe_compare.py")

    def sides(self, label: str, code: str, name: str):
        module = self.discover.load_code(code, name, exec_context=cpu_only_mode())
        refs = self.discover.find_references(module, max_refs=REFS_PER_SIDE)
        return [self.sizes.Side(label, ref, module) for ref in refs]

    def probe_pair(self, bench: str, train: str, index: int, budget_s: float) -> tuple:
        """(score, equivalent, reason, detail) for one pair."""
        deadline = time.monotonic() + 0.8 * budget_s
        names = (f"kv_probe_bench_{index}", f"kv_probe_train_{index}")
        reset_torch_state()
        try:
            with cpu_only_mode():
                try:
                    a_sides = self.sides("bench", bench, names[0])
                except self.discover.DiscoveryError as err:
                    return None, False, err.code, f"bench: {err.message}"
                try:
                    b_sides = self.sides("train", train, names[1])
                except self.discover.DiscoveryError as err:
                    return None, False, err.code, f"train: {err.message}"
                if all(s.ref.inputs is None for s in a_sides + b_sides):
                    return None, False, "no_inputs", "neither side has get_inputs() or an inputs helper"
                return self._best(a_sides, b_sides, deadline)
        finally:
            for name in names:
                self.discover.unload(name)

    def _best(self, a_sides, b_sides, deadline) -> tuple:
        best, failure = None, None
        for a in a_sides:
            for b in b_sides:
                if time.monotonic() > deadline and (best is not None or failure is not None):
                    break
                verdict, why = self._probe_refs(a, b, deadline)
                if verdict is None:
                    failure = failure or why
                    continue
                verdict.detail = f"{a.ref.name} ~ {b.ref.name}: {verdict.detail}"
                if verdict.equivalent:
                    return 1.0, True, "", verdict.detail
                if verdict.reason:
                    failure = failure or (verdict.reason, verdict.detail)
                elif best is None or verdict.score > best.score:
                    best = verdict
        if best is not None:
            return best.score, False, "", best.detail
        return None, False, failure[0], failure[1]

    def _probe_refs(self, a, b, deadline):
        """(Verdict or None, (reason, detail) when no verdict)."""
        if a.ref.inputs is None and b.ref.inputs is None:
            return None, ("no_inputs", f"{a.ref.name} ~ {b.ref.name}: neither has inputs")
        best, seen = None, 0
        try:
            for plan in self.sizes.plans(a, b):
                seen += 1
                verdict = self.compare.compare_plan(plan, deadline)
                if verdict.equivalent:
                    return self._confirm(plan, verdict, deadline), None
                if best is None or (not verdict.reason and (best.reason or verdict.score > best.score)):
                    best = verdict
                if time.monotonic() > deadline or seen >= 6:
                    break
        except self.sizes.TooLarge as err:
            if best is None:
                return None, ("too_large", f"{a.ref.name} ~ {b.ref.name}: {err}")
        except self.sizes.ShapeMismatch as err:
            if best is None:
                return None, ("shape_mismatch", f"{a.ref.name} ~ {b.ref.name}: {err}")
        except self.discover.DiscoveryError as err:
            return None, (err.code, f"{a.ref.name} ~ {b.ref.name}: {err.message}")
        if best is None:
            return None, ("shape_mismatch", f"{a.ref.name} ~ {b.ref.name}: no size fits both")
        return best, None


    def _confirm(self, plan, verdict, deadline):
        """Run an equivalent plan again at a second size: a coincidence of one size must not pass."""
        again, size = None, None
        for n, size in enumerate(self.sizes.second_sizes(plan)):
            again = self.sizes.at_size(plan, *size)
            if again is not None or n >= 3:
                break
        if again is None:
            return verdict
        second = self.compare.compare_plan(again, deadline)
        if second.reason:                     # does not run at that size: the first verdict stands
            return verdict
        where = f"1/{size[0]} size" + (f" (floor {size[1]})" if size[1] != self.sizes.FLOOR else "")
        if not second.equivalent:
            second.detail = f"{second.detail} (agreed at 1/{plan.factor} size, not at {where})"
            return second
        verdict.detail = f"{verdict.detail}; confirmed at {where}"
        return verdict


def main(argv: list[str]) -> int:
    pair_timeout = float(argv[1])
    loop = _load("kv_worker_loop", "_worker_loop.py")
    proto = loop.protocol_channel()
    import logging

    import torch
    torch.set_num_threads(1)
    logging.getLogger("torch._subclasses.fake_tensor").setLevel(logging.CRITICAL)   # fake-run misses are expected
    prober = Prober()

    def line(i: int, item: dict, score, equivalent, reason: str, detail) -> str:
        if score is not None and (math.isnan(score) or not 0.0 <= score <= 1.0):
            score = None
        if reason and reason != "memory" and any(s in str(detail) for s in OUT_OF_MEMORY):
            reason = "memory"
        return ProbeAnswer(i, item["key"], score, bool(equivalent) and score == 1.0, reason or "",
                           str(detail)[:MAX_DETAIL_CHARS]).to_line()

    def answer(i: int, item: dict) -> str:
        return line(i, item, *prober.probe_pair(item["bench"], item["train"], i, pair_timeout))

    def failed(i: int, item: dict, err: BaseException) -> str:
        if isinstance(err, loop.ItemTimeout):
            return line(i, item, None, False, "timeout", f"over {pair_timeout:g} s")
        if isinstance(err, MemoryError):
            return line(i, item, None, False, "memory", "MemoryError")
        tb = "".join(traceback.format_exception_only(type(err), err)).strip()   # SystemExit too: this pair's failure
        return line(i, item, None, False, "probe_error", tb[-MAX_DETAIL_CHARS:])

    return loop.serve(pair_timeout, proto, answer, failed)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
