"""Every call of a model in the sample's process goes through one thread and one function, so that the calls look
the same from inside.

Runs inside the sample's process. A candidate can walk its caller's frames (``sys._getframe``, a traceback's
``tb_frame``) and tell a judged call from a knockout call or a timed one by the functions it finds there, then
compute honestly only where it is judged. So the harness hands every call (every round, knockout mode, other
configuration, warm-up and timed call, the reference's timed calls too) to one thread, started before any
candidate code exists, where one function makes it the same way every time: whole-device synchronisation, the
host clock, the start event, the call, its outputs checked to be plain tensors, synchronisation, the end event.
Above the candidate's ``forward`` there are then the same frames, running the same code, in every call; whether
a call is timed, recorded or knocked out is decided in the harness's own thread. The timing region is inside that
function, so handing a call over costs the timing nothing.

What this does not hide: objects the candidate can reach otherwise (``gc``, the kernel gate's state, a dispatch
mode it asks torch for). The op recorders of round A are entered in this thread for the calls they watch
(``modes``), as torch keeps dispatch modes per thread.
"""
from __future__ import annotations

import contextlib
import queue
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

__all__ = ["CallResult", "CallServer", "flatten_outputs", "refuse_lazy", "LazyOutput"]


def flatten_outputs(out: Any) -> list:
    """A forward's result as a flat list of tensors (numbers become 0-d tensors)."""
    import torch

    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        flat = []
        for o in out:
            flat.extend(flatten_outputs(o))
        return flat
    if isinstance(out, (int, float, bool, complex)):
        return [torch.tensor(out)]
    raise TypeError(f"forward returned {type(out).__name__}, expected tensors")


class LazyOutput(TypeError):
    """A call returned something other than a plain tensor (see :func:`refuse_lazy`)."""


def refuse_lazy(outputs: list) -> None:
    """Inside every call's region: every output must be a plain tensor. A tensor subclass can compute on first read
    (after the region closed) and a lazy object likewise, so a timing of either would time nothing; the call
    fails instead, with this reason."""
    import torch

    for t in outputs:
        if type(t) not in (torch.Tensor, torch.nn.Parameter):
            raise LazyOutput(f"a call returned a {type(t).__module__}.{type(t).__qualname__}, not a plain "
                             "tensor: it could compute after the timed region, so it cannot be timed")


@dataclass
class CallResult:
    """One call: its outputs (flattened), the device-event and host-clock milliseconds of its region (events:
    ``None`` without a device), and with ``snapshot_early`` copies of the outputs taken when the current stream
    had finished but before the whole device had (``None`` otherwise)."""

    outputs: list
    event_ms: Optional[float]
    host_ms: float
    early: Optional[list] = None


@dataclass
class _Request:
    fn: Callable
    args: tuple
    snapshot_early: bool
    before: Optional[Callable[[], None]] = None
    done: threading.Event = field(default_factory=threading.Event)
    result: Optional[CallResult] = None
    error: Optional[BaseException] = None


class CallServer:
    """The thread every model call runs in (see the module docstring). ``clocks``: the handles captured before any
    candidate code ran (:class:`kvdata.reverify.clocks.Clocks`, or anything with its methods); ``events``: bracket
    each call with device events and synchronisations (default: on any device but the CPU)."""

    def __init__(self, clocks, device: str, events: Optional[bool] = None):
        self.clocks, self.device = clocks, device
        self.events = device != "cpu" if events is None else events
        self.modes: Sequence = ()          # context managers entered around the next calls, in this thread
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="kvdata-calls", daemon=True)
        self._thread.start()

    def call(self, fn: Callable, args: Sequence, snapshot_early: bool = False,
             before: Optional[Callable[[], None]] = None) -> CallResult:
        """``fn(*args)`` in the call thread; what it raised is raised here. ``before``: run first in the same thread,
        outside the call's region: the allocator poisoning, since the CPU's malloc keeps a heap per thread, and
        blocks poisoned in another thread are not the ones this thread's next allocation gets."""
        request = _Request(fn, tuple(args), snapshot_early, before)
        self._requests.put(request)
        request.done.wait()
        if request.error is not None:
            raise request.error
        return request.result

    def close(self) -> None:
        """Stop the thread (before the process forks: a forked child would inherit a thread that is not there)."""
        self._requests.put(None)
        self._thread.join()

    def __enter__(self) -> "CallServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _serve(self) -> None:
        if self.device != "cpu":
            import torch

            torch.cuda.set_device(torch.device(self.device).index or 0)    # the device is chosen per thread
        while True:
            request = self._requests.get()
            if request is None:
                return
            try:
                request.result = self._invoke(request)
            except BaseException as e:  # noqa: BLE001 - the caller's thread raises it
                request.error = e
            finally:
                request.done.set()

    def _invoke(self, request: _Request) -> CallResult:
        import torch

        clocks, events = self.clocks, self.events
        if request.before is not None:
            request.before()
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.no_grad())
            for mode in self.modes:
                stack.enter_context(mode)
            start = end = early = None
            if events:
                start, end = clocks.event(), clocks.event()
                clocks.synchronize()
            t0 = clocks.monotonic()
            if events:
                clocks.record(start)
            outputs = flatten_outputs(request.fn(*request.args))
            refuse_lazy(outputs)
            if events and request.snapshot_early:
                early = [t.detach().to("cpu", copy=True) for t in outputs]    # waits for the current stream only
            if events:
                clocks.synchronize()
                clocks.record(end)
                clocks.wait(end)
            host_ms = (clocks.monotonic() - t0) * 1e3
        return CallResult(outputs, clocks.elapsed_ms(start, end) if events else None, host_ms, early)
