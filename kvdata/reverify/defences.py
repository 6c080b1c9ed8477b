"""The defences that run inside the sample's process, around the candidate's calls, where the buffers exist.

Imported only by the sandboxed side (``harness``, ``knockout``, ``rehearsal``, ``zygote``); the parent judges what
they measured with ``checks``. Each names the trick it is there for.
"""
from __future__ import annotations

from typing import Sequence

__all__ = ["poison_allocator", "fill_poison", "torch_op_recorder", "output_aliases"]


def poison_allocator(device: str, shapes: Sequence[tuple], dtypes: Sequence, block_mb: int,
                     index_safe: bool = False) -> None:
    """Defeats reuse of the reference's freed output buffer.

    Before each candidate call, blocks of the reference outputs' shapes (and one large
    block on a GPU) are filled with NaN (integers: a sentinel) and freed, so memory the
    allocator hands back to a candidate that never writes its output holds garbage, not
    a right answer. CPU: exact-size blocks land back in malloc's free lists; GPU: the
    caching allocator keeps the freed blocks and hands them out next. ``index_safe``: see
    ``fill_poison``.
    """
    import torch

    junk = []
    for shape, dtype in zip(shapes, dtypes):
        for _ in range(2):
            t = torch.empty(shape, dtype=dtype, device=device)
            fill_poison(t, index_safe)
            junk.append(t)
    if device != "cpu" and block_mb > 0:
        block = torch.empty(block_mb * 2**20 // 4, dtype=torch.float32, device=device)
        block.fill_(float("nan"))
        junk.append(block)
    del junk

def fill_poison(t, index_safe: bool = False) -> None:
    """NaN for floating tensors; a sentinel for integers (True for bools).

    ``index_safe`` (the knockout rounds): integers 0 and bools False instead, so that an index
    a disabled kernel should have computed still addresses valid memory. A knockout must make
    the answer wrong, not crash the device for the calls that follow.
    """
    import torch

    if t.is_floating_point() or t.is_complex():
        t.fill_(float("nan"))
    elif index_safe:
        t.zero_()
    elif t.dtype == torch.bool:
        t.fill_(True)
    else:
        t.fill_(-0x2A2A2A2A if t.element_size() >= 4 else 42)

def torch_op_recorder():
    """A context manager that counts the aten ops run inside it, by name (``.counts``), and their FLOPs (``.flops``,
    by PyTorch's own FLOP formulas, ``torch.utils.flop_counter.flop_registry``: matmuls, convolutions,
    attention; elementwise ops count 0).

    One dispatch mode and no module hooks: ``FlopCounterMode`` tracks modules with global forward hooks, which
    put an extra frame above every ``forward`` while it is active, so a candidate could tell a recorded call
    from the others by its callers (``calls.py``).
    """
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils.flop_counter import flop_registry

    class TorchOpRecorder(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.counts: dict[str, int] = {}
            self.flops = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            packet = func.overloadpacket
            self.counts[packet.__name__] = self.counts.get(packet.__name__, 0) + 1
            out = func(*args, **kwargs)
            count = flop_registry.get(packet)
            if count is not None:
                self.flops += int(count(*args, **kwargs, out_val=out))
            return out

    return TorchOpRecorder()

def output_aliases(outputs: Sequence, tensors: Sequence) -> bool:
    """Catches candidates that return one of their inputs, or a view of the reference's
    output, instead of computing into memory of their own: True when any output shares
    storage with any of ``tensors``."""
    import torch

    spans = []
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.numel():
            s = t.untyped_storage()
            spans.append((s.data_ptr(), s.data_ptr() + s.nbytes()))
    for o in outputs:
        if not isinstance(o, torch.Tensor) or not o.numel():
            continue
        s = o.untyped_storage()
        lo, hi = s.data_ptr(), s.data_ptr() + s.nbytes()
        if any(lo < b and a < hi for a, b in spans):
            return True
    return False
