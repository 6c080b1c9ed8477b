"""Which aten ops are data movement and which are matrix products: the op recorder's vocabulary.

Shared by the sandboxed side (``defences.torch_op_recorder`` counts work by these sets) and the parent
(``checks.check_torch_compute`` names the math ops a candidate ran); a module of its own so neither side imports
the other.
"""
from __future__ import annotations

__all__ = ["DATA_MOVEMENT_OPS", "PRODUCT_OPS"]

# aten ops that only allocate, copy, view, reshape, fill or join memory: what a kernel's
# wrapper does around a launch. Any other op in the candidate's forward is math done by torch.
DATA_MOVEMENT_OPS = frozenset({
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like",
    "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "fill_", "zero_",
    "copy_", "_to_copy", "clone", "contiguous", "lift_fresh", "lift_fresh_copy", "detach", "alias",
    "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided", "expand", "expand_as", "permute",
    "transpose", "t", "unsqueeze", "squeeze", "select", "slice", "narrow", "split", "split_with_sizes",
    "chunk", "unbind", "flatten", "unflatten", "view_as_real", "view_as_complex", "resize_", "set_",
    "cat", "stack", "constant_pad_nd", "_local_scalar_dense", "arange", "scalar_tensor",
})

# Ops PyTorch's FLOP registry has no formula for that still run a matrix product: (sparse or dense operand, dense
# operand) -> 2 x multiplications. An embedding bag with per-sample weights is a matmul too (the public catalogs
# use both to hide a Linear from a recorder that counts only the registry's ops).
PRODUCT_OPS = frozenset({"_sparse_addmm", "_sparse_mm", "sspaddmm", "_sparse_sparse_matmul", "_sparse_csr_mm",
                         "_embedding_bag", "_embedding_bag_forward_only", "embedding_bag"})
