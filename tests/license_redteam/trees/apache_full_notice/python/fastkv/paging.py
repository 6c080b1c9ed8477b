# Copyright 2021-2024 The FastKV Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""Page-table helpers for the paged KV cache."""

from __future__ import annotations

import math


def pages_needed(num_tokens: int, page_size: int) -> int:
    """Number of fixed-size pages required to hold ``num_tokens`` tokens."""
    if page_size <= 0:
        raise ValueError("page_size must be positive")
    return math.ceil(num_tokens / page_size)


def build_block_table(seq_lens: list[int], page_size: int) -> list[list[int]]:
    """Assign consecutive physical page ids to each sequence."""
    table, next_page = [], 0
    for n in seq_lens:
        k = pages_needed(n, page_size)
        table.append(list(range(next_page, next_page + k)))
        next_page += k
    return table
