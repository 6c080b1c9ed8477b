# Copyright (c) Example Labs, Inc. and affiliates.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""Quantized paged KV cache."""

import torch

from .quant import quantize


class QuantizedKVCache:
    def __init__(self, num_pages: int, page_size: int, head_dim: int):
        self.k = torch.zeros(num_pages, page_size, head_dim, dtype=torch.int8)
        self.v = torch.zeros(num_pages, page_size, head_dim, dtype=torch.int8)
        self.page_size = page_size

    def write(self, page: int, k: torch.Tensor, v: torch.Tensor):
        qk, _ = quantize(k)
        qv, _ = quantize(v)
        self.k[page, : k.shape[0]] = qk
        self.v[page, : v.shape[0]] = qv
