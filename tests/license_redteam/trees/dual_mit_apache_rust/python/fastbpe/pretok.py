# SPDX-License-Identifier: MIT OR Apache-2.0
"""Pure-Python pre-tokenizer used when the native extension is unavailable."""

import re

_PAT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\w+| ?\d+| ?[^\s\w\d]+|\s+(?!\S)|\s+""")


def pretokenize(text: str) -> list[str]:
    """Split ``text`` into the chunks that BPE merges operate on."""
    return _PAT.findall(text)


def byte_encode(chunk: str) -> bytes:
    return chunk.encode("utf-8")
