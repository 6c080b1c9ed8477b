"""The clocks GPU timing reads, taken before any candidate code runs, and the check that they stayed put.

Runs inside the sample's process. A candidate can replace what timing calls: ``time.perf_counter``,
``torch.cuda.synchronize``, ``torch.cuda.Event`` or its ``record``/``elapsed_time`` (the public exploit catalogs
do all of these: a patched ``elapsed_time`` that divides by 20 reported 12.6x). :meth:`Clocks.capture` resolves
every entry point once, before the reference or the candidate is imported; the timing loop then calls those
handles (an unbound ``Event.record`` captured here is not the one a candidate writes onto the class later), and
:meth:`Clocks.replaced` names each entry point whose public name no longer resolves to the captured object. A
replaced clock is ``timer_tampered``: the sample fails and gets no speedup. What this cannot see: a patch below
Python (the C runtime's symbols); the host-clock cross-check is for that.
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ENTRY_POINTS", "Clocks", "resolve"]

ENTRY_POINTS = (
    "time.perf_counter", "time.perf_counter_ns", "time.monotonic", "time.monotonic_ns", "time.time",
    "time.time_ns", "time.process_time",
    "torch.cuda.synchronize", "torch.cuda.current_stream", "torch.cuda.Event", "torch.cuda.Event.record",
    "torch.cuda.Event.elapsed_time", "torch.cuda.Event.synchronize", "torch.cuda.Event.query",
    "torch.cuda.Stream", "torch.cuda.Stream.synchronize", "torch.cuda.Stream.wait_event",
    "torch.cuda.Stream.wait_stream",
)


def resolve(dotted: str):
    """The object a dotted name reaches now (``None`` where it does not resolve)."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = vars(obj).get(attr) if isinstance(obj, type) else getattr(obj, attr, None)
            if obj is None:
                return None
        return obj
    return None


@dataclass
class Clocks:
    """Every timing entry point, as it was when captured (see the module docstring)."""

    handles: dict = field(default_factory=dict)

    @classmethod
    def capture(cls) -> "Clocks":
        return cls({name: resolve(name) for name in ENTRY_POINTS})

    def replaced(self) -> list[str]:
        """The entry points whose name now reaches another object than the captured one."""
        return [name for name, obj in self.handles.items() if resolve(name) is not obj]

    # the handles the timing loop calls (torch.cuda.* only on a GPU)
    def monotonic(self) -> float:
        return self.handles["time.monotonic"]()

    def synchronize(self) -> None:
        self.handles["torch.cuda.synchronize"]()

    def event(self):
        return self.handles["torch.cuda.Event"](enable_timing=True)

    def record(self, event) -> None:
        self.handles["torch.cuda.Event.record"](event)

    def wait(self, event) -> None:
        self.handles["torch.cuda.Event.synchronize"](event)

    def elapsed_ms(self, start, end) -> float:
        return self.handles["torch.cuda.Event.elapsed_time"](start, end)
