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

def _tensors(args) -> list:
    import torch
    from torch.utils._pytree import tree_leaves

    return [a for a in tree_leaves(args) if isinstance(a, torch.Tensor)]


def _numel(t) -> int:
    return int(t._nnz()) if t.is_sparse else t.numel()


def _product_flops(name: str, args) -> int:
    """Multiply-adds x 2 of a sparse matmul or an embedding bag (see ``aten_ops.PRODUCT_OPS``)."""
    ts = _tensors(args)
    if name.startswith("_embedding_bag") or name == "embedding_bag":
        weight, indices = ts[0], ts[1]
        return 2 * indices.numel() * (weight.shape[-1] if weight.dim() else 1)
    mats = [t for t in ts if t.dim() == 2]
    if len(mats) < 2:
        return 0
    a, b = mats[-2], mats[-1]                               # addmm-style ops put the added matrix first
    return 2 * min(_numel(a) * b.shape[-1], _numel(b) * a.shape[0])


def _elements_touched(args, out) -> int:
    """A lower bound on the work of an op with no FLOP formula: the larger of the elements it reads and writes
    (one operation per element: an exp, a cumsum, a mean, a product's broadcast multiply)."""
    return max(sum(_numel(t) for t in _tensors(args)), sum(_numel(t) for t in _tensors(out)))


def torch_op_recorder():
    """A context manager that counts the aten ops run inside it, by name (``.counts``), and their work.

    ``.flops``: PyTorch's own formulas (``torch.utils.flop_counter.flop_registry``: matmuls, convolutions,
    attention), and ``aten_ops.PRODUCT_OPS`` for the matrix products the registry lacks (sparse, embedding bags).
    ``.elements``: for any other op that is math rather than data movement (``aten_ops.DATA_MOVEMENT_OPS``), the
    elements it touches. So a matmul spelt as a broadcast multiply and a sum, a softmax from cumulative scans, an
    FFT convolution, or a LayerNorm written out in torch ops all count, as does a reference's elementwise work.

    One dispatch mode and no module hooks: ``FlopCounterMode`` tracks modules with global forward hooks, which
    put an extra frame above every ``forward`` while it is active, so a candidate could tell a recorded call
    from the others by its callers (``calls.py``).
    """
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils.flop_counter import flop_registry

    from kvdata.reverify.aten_ops import DATA_MOVEMENT_OPS, PRODUCT_OPS

    class TorchOpRecorder(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.counts: dict[str, int] = {}
            self.flops = 0          # matrix products and convolutions (registry and PRODUCT_OPS)
            self.elements = 0       # every other math op: the elements it touches

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            packet = func.overloadpacket
            name = packet.__name__
            self.counts[name] = self.counts.get(name, 0) + 1
            out = func(*args, **kwargs)
            count = flop_registry.get(packet)
            if count is not None:
                self.flops += int(count(*args, **kwargs, out_val=out))
            elif name in PRODUCT_OPS:
                self.flops += _product_flops(name, args)
            elif name not in DATA_MOVEMENT_OPS and name.rstrip("_") not in DATA_MOVEMENT_OPS:
                self.elements += _elements_touched((args, kwargs), out)
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
