# Copyright (c) 2022-2024, Example Labs, Inc.
# All rights reserved.
#
# See LICENSE for details.
"""Python front-end for the int8 KV-cache quantizer."""

import torch

from . import _C


def quantize(x: torch.Tensor, group_size: int = 64):
    """Quantize a float tensor to int8 with one scale per ``group_size`` values."""
    flat = x.contiguous().view(-1).float()
    q = torch.empty_like(flat, dtype=torch.int8)
    scales = torch.empty((flat.numel() + group_size - 1) // group_size)
    _C.quantize_int8(flat, q, scales, group_size)
    return q.view_as(x), scales
