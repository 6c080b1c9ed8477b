"""rst pages of ``docs/``: section headings, prose paragraphs and ``.. doxygenfunction::`` lists."""
from __future__ import annotations

import re
from dataclasses import dataclass, field


_UNDERLINE = re.compile(r"^([=\-~^*#+\"'`:.<>_])\1{2,}\s*$")
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:-]+)::\s*(.*)$")
_RST_COMMENT = re.compile(r"^(\s*)\.\.(?:\s|$)")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#\.)\s+")


@dataclass
class RstSection:
    page_title: str
    title: str
    line_start: int                                     # the title line
    prose: list[tuple[str, int, int]] = field(default_factory=list)   # (paragraph, first, last line)
    functions: list[tuple[str, int]] = field(default_factory=list)    # (name, line)


def _is_title_text(line: str) -> bool:
    return bool(line.strip()) and not line[0].isspace() and not _UNDERLINE.match(line) \
        and not line.startswith("..")


def find_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first line index, last line index, title) of every section heading (0-based)."""
    headings, i = [], 0
    while i + 1 < len(lines):
        over, title = lines[i], lines[i + 1]
        if (_UNDERLINE.match(over) and i + 2 < len(lines) and _is_title_text(title.strip())
                and _UNDERLINE.match(lines[i + 2]) and lines[i + 2].strip()[0] == over.strip()[0]):
            headings.append((i, i + 2, title.strip()))
            i += 3
            continue
        previous_blank = i == 0 or not lines[i - 1].strip() or (headings and headings[-1][1] == i - 1)
        if previous_blank and _is_title_text(over) and _UNDERLINE.match(title):
            headings.append((i, i + 1, over.strip()))
            i += 2
            continue
        i += 1
    return headings


def clean_rst_text(text: str) -> str:
    text = re.sub(r":[\w:+.-]+:`([^`]*?)\s*(?:<[^>`]*>)?`", r"\1", text)   # :role:`text <target>`
    text = re.sub(r"``([^`]+)``", r"\1", text)
    text = re.sub(r"`([^`<]*?)\s*(?:<[^>`]*>)?`__?", r"\1", text)          # `text <url>`_
    text = re.sub(r"`([^`]+)`", r"\1", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\1", text)
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])", r"\1", text)
    text = re.sub(r"\]_", "]", text)
    text = re.sub(r"::(\s|$)", r":\1", text)
    return " ".join(text.split())


def parse_rst(text: str) -> list[RstSection]:
    """The sections of an rst page with their prose paragraphs and documented functions."""
    lines = text.split("\n")
    headings = find_headings(lines)
    if not headings:
        return []
    page_title = clean_rst_text(headings[0][2])
    sections = []
    for k, (first, last, title) in enumerate(headings):
        body_end = headings[k + 1][0] if k + 1 < len(headings) else len(lines)
        section = RstSection(page_title=page_title, title=clean_rst_text(title), line_start=first + 1
                             if not _UNDERLINE.match(lines[first]) else first + 2)
        _read_rst_body(lines, last + 1, body_end, section)
        sections.append(section)
    return sections


def _read_rst_body(lines: list[str], start: int, end: int, section: RstSection) -> None:
    paragraph: list[tuple[str, int]] = []

    def flush():
        if paragraph:
            joined = clean_rst_text(" ".join(t for t, _ in paragraph))
            if joined:
                section.prose.append((joined, paragraph[0][1], paragraph[-1][1]))
            paragraph.clear()

    i = start
    while i < end:
        line = lines[i]
        directive = _DIRECTIVE.match(line)
        comment = _RST_COMMENT.match(line)
        if directive or comment:
            flush()
            indent = len((directive or comment).group(1))
            if directive and directive.group(2).lower() == "doxygenfunction":
                name = re.match(r"[\w:]+", directive.group(3).strip() or "-")
                if name:
                    section.functions.append((name.group(), i + 1))
            i += 1
            while i < end and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
                i += 1
            continue
        if not line.strip():
            flush()
        elif not re.fullmatch(r"[\s=\-+|:~^*#]+", line):       # table rules and borders
            paragraph.append((_BULLET.sub("", line), i + 1))
        i += 1
    flush()
