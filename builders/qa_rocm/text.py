"""Text positions and grounding: line numbers of offsets, and whether an answer is in its lines."""
from __future__ import annotations

import bisect
import re


class LineIndex:
    """Offset -> 1-based line number of a text, and the text of a line range."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.lines = text.split("\n")

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def span(self, line_start: int, line_end: int) -> str:
        return "\n".join(self.lines[line_start - 1:line_end])


def normalise_newlines(text: str) -> str:
    """Strip a BOM and turn CRLF/CR into LF; the line count stays the same."""
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


# ------------------------------------------------------------ grounding
_TOKEN = re.compile(r"\w+")


def content_tokens(text: str) -> list[str]:
    """Words and numbers, lower-cased: punctuation, markup symbols and spacing do not count."""
    return [t.lower() for t in _TOKEN.findall(text)]


def is_grounded(answer: str, source: str) -> bool:
    """True when the answer's content tokens occur in ``source`` in the same order.

    Answers are the source minus stripped markup (Doxygen commands, HTML tags, rst roles,
    export macros), so every token they keep must be found, in order, in the mined lines.
    """
    wanted = content_tokens(answer)
    if not wanted:
        return False
    it = iter(content_tokens(source))
    return all(any(tok == have for have in it) for tok in wanted)
