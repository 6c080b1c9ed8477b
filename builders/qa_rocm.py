"""QA mined from rocBLAS / rocSOLVER source trees: the ``qa`` config.

The API headers of both libraries document every function group in a Doxygen block
(``\\brief``, ``\\details``, ``@param[in] name description``) followed by the exported
declarations of its precision variants; the Sphinx pages under ``docs/`` add sections
that list functions (``.. doxygenfunction::``) and some prose. This Source turns those
into question/answer rows whose answers are *grounded*: every row names the file and
the exact line range it was mined from, and is only kept when the content tokens of the
answer occur, in order, in those lines (else it is a ``Reject`` UNGROUNDED).

Accounting unit (one *input record*):
  * a Doxygen **function group** of a header under ``library/include/``: a doc block that
    opens a member group (``@{``) together with the declarations up to its ``@}``; or a
    doc block without ``@{`` that documents the declaration right after it (Doxygen's own
    rule), extended to the directly following declarations of the same function family
    (``rocsolver_sgetrf``, ``rocsolver_dgetrf``, ... in older headers). Doc blocks that
    document types, enums or macros (no ``@param`` and no declaration right after) are
    not function groups and are not records.
  * an **rst section** of ``docs/**/*.rst`` whose body holds prose or
    ``.. doxygenfunction::`` directives (sections that only hold sub-sections, labels or a
    toctree are structure, not records).

A group/section that cannot be used at all (no declarations, unterminated block or
``@{`` group, no license) becomes one Reject; a file that cannot be read or decoded
becomes one Reject; a single question of an otherwise good group that fails (empty
parameter description, ungrounded answer) becomes one Reject carrying its row id.
"""
from __future__ import annotations

import bisect
import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator, Optional

from kvdata.builders.base import Item, Source, open_fs
from kvdata.builders.common import is_problem, read_text, today
from kvdata.schema import QA_CONFIG, Provenance, QARecord, RejectReason

Problem = tuple[RejectReason, str]

LIBRARY_NAMES = {"rocblas": "rocBLAS", "rocsolver": "rocSOLVER"}
DEFAULT_REPOS = {"rocblas": "ROCm/rocBLAS", "rocsolver": "ROCm/rocSOLVER"}

#: Question kinds this Source emits (the ``kind`` column).
KINDS = ("purpose", "parameter", "signature", "precisions", "rst", "rst_functions")


# ============================================================ text positions
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


# ============================================================ grounding
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


# ============================================================ C comments and declarations
@dataclass
class Comment:
    start: int
    end: int              # offset after the closing */ (or the end of the line)
    text: str
    block: bool           # /* */ rather than //

    @property
    def is_doc(self) -> bool:
        """Doxygen comments: /*! ... */, /** ... */ (not a /***** banner), //! and ///."""
        t = self.text
        if self.block:
            return t.startswith("/*!") or (t.startswith("/**") and t[3:4] not in ("*", "/"))
        return t.startswith("//!") or (t.startswith("///") and t[3:4] != "/")


_LEXEME = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*', re.S)


def scan_comments(text: str) -> tuple[list[Comment], Optional[int]]:
    """All comments of C text (string literals skipped), and the offset of an unterminated one."""
    comments = []
    for m in _LEXEME.finditer(text):
        lexeme = m.group()
        if lexeme == "/*":                  # the lazy /*...*/ failed: never closed
            return comments, m.start()
        if lexeme[0] == "/":
            comments.append(Comment(m.start(), m.end(), lexeme, block=lexeme[1] == "*"))
    return comments, None


def mask_comments(text: str, comments: list[Comment]) -> str:
    """The text with every comment replaced by spaces (newlines kept, so offsets match)."""
    out, pos = [], 0
    for c in comments:
        out.append(text[pos:c.start])
        out.append(re.sub(r"[^\n]", " ", c.text))
        pos = c.end
    out.append(text[pos:])
    return "".join(out)


@dataclass
class Declaration:
    name: str
    text: str             # whitespace-normalised, export macros removed, no trailing ';'
    start: int            # offsets in the file
    end: int
    line_start: int
    line_end: int


_EXPORT = re.compile(r"\b[A-Z][A-Z0-9_]*_EXPORT\b")
_CALL_NAME = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_ATTRIBUTE_MACRO = re.compile(r"\b[A-Z][A-Z0-9_]*(?:DEPRECATED|NODISCARD)[A-Z0-9_]*"
                              r"(?:\s*\((?:[^()]|\([^()]*\))*\))?")


def find_declarations(code: str, index: LineIndex) -> list[Declaration]:
    """Exported function declarations (``XXX_EXPORT ... name(...);``) of comment-free code."""
    found = []
    for m in _EXPORT.finditer(code):
        line_start = code.rfind("\n", 0, m.start()) + 1
        if code[line_start:m.start()].lstrip().startswith("#"):
            continue                                    # a #define of the macro itself
        end = _statement_end(code, m.start())
        if end is None:
            continue
        statement = code[m.start():end]
        name = next((n for n in _CALL_NAME.findall(statement) if not re.fullmatch(r"[A-Z0-9_]+", n)), None)
        if name is None:
            continue
        found.append(Declaration(name=name, text=normalise_declaration(statement), start=m.start(), end=end,
                                 line_start=index.line_of(m.start()), line_end=index.line_of(end - 1)))
    return found


def _statement_end(code: str, start: int) -> Optional[int]:
    """Offset after the ``;`` (or before the ``{``) that ends the statement starting at ``start``."""
    depth = 0
    for i in range(start, len(code)):
        ch = code[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and ch == ";":
            return i + 1
        elif depth == 0 and ch == "{":
            return i
    return None


def normalise_declaration(statement: str) -> str:
    text = _EXPORT.sub(" ", statement)
    text = _ATTRIBUTE_MACRO.sub(" ", text)
    text = " ".join(text.split()).rstrip(";").strip()
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"\s+([),])", r"\1", text)
    return text


# ============================================================ Doxygen blocks
_COMMAND = re.compile(
    r"(?<![\w\\@])[@\\](?:(?P<cmd>brief|short|details|param|tparam|returns?|retval|result|note|warning|"
    r"remarks?|attention|see|sa|deprecated|since|ingroup|addtogroup|defgroup|file)(?![A-Za-z])|(?P<brace>[{}]))"
    r"(?:\[(?P<dir>[^\]]*)\])?")
_OPENS_GROUP = re.compile(r"(?<![\w\\@])[@\\]\{")
_CLOSES_GROUP = re.compile(r"(?<![\w\\@])[@\\]\}")


@dataclass
class Segment:
    """The text after one Doxygen command (``cmd`` None: text before any command)."""

    cmd: Optional[str]
    direction: Optional[str]
    text: str
    line_start: int
    line_end: int


@dataclass
class DocBlock:
    comment: Comment
    segments: list[Segment]
    line_start: int
    line_end: int

    def commands(self) -> set:
        return {s.cmd for s in self.segments}

    @property
    def opens_group(self) -> bool:
        return "{" in self.commands()

    @property
    def only_closes_group(self) -> bool:
        return self.commands() <= {None, "}"} and "}" in self.commands() and not self.text_of(None)

    def text_of(self, cmd: Optional[str]) -> str:
        return "\n".join(s.text for s in self.segments if s.cmd == cmd).strip()


def parse_doc_block(comment: Comment, index: LineIndex) -> DocBlock:
    """Split a doc comment into command segments, each knowing its file line range."""
    first_line = index.line_of(comment.start)
    body = comment.text[3:-2] if comment.block else comment.text[3:]
    lines = [_strip_decoration(line) for line in body.split("\n")]
    content = "\n".join(lines)
    content_starts = [0] + [m.end() for m in re.finditer("\n", content)]

    def file_line(offset: int) -> int:
        return first_line + bisect.bisect_right(content_starts, offset) - 1

    marks = list(_COMMAND.finditer(content))
    bounds = [(None, None, 0, 0)] + [(m.group("cmd") or m.group("brace"), m.group("dir"), m.start(), m.end())
                                     for m in marks]
    segments = []
    for k, (cmd, direction, cmd_start, text_start) in enumerate(bounds):
        text_end = bounds[k + 1][2] if k + 1 < len(bounds) else len(content)
        raw = content[text_start:text_end]
        if cmd is None and not raw.strip():
            continue
        lead = len(raw) - len(raw.lstrip())
        trail = len(raw.rstrip())
        lo = cmd_start if cmd is not None else text_start + lead
        hi = max(text_start + trail - 1, lo)
        segments.append(Segment(cmd=cmd if cmd != "short" else "brief",
                                direction=(direction or "").replace(" ", "").lower() or None,
                                text=raw, line_start=file_line(lo), line_end=file_line(hi)))
    return DocBlock(comment=comment, segments=segments, line_start=first_line,
                    line_end=index.line_of(comment.end - 1))


def _strip_decoration(line: str) -> str:
    """Drop a leading `` * `` comment gutter and lines that are only ``****`` rules."""
    stripped = line.strip()
    if stripped and set(stripped) <= set("*=-/"):
        return ""
    return re.sub(r"^\s*\*+\s?", "", line) if stripped.startswith("*") else line


_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_HTML_TAG = re.compile(r"</?(?:b|i|em|strong|tt|code|br|p|u|s|sub|sup|center|ul|ol|li|pre)\s*/?>", re.I)


def clean_doxygen_text(text: str) -> str:
    """Doxygen text as plain paragraphs: math as ``$...$``, inline commands and HTML dropped."""
    text = re.sub(r"\\f\$(.*?)\\f\$", lambda m: "$" + m.group(1).strip() + "$", text, flags=re.S)
    text = text.replace("\\f[", "$$").replace("\\f]", "$$")
    text = _HTML_TAG.sub("", text)
    text = re.sub(r"[@\\](?:p|c|a|b|e|em|ref)\s+", "", text)
    text = re.sub(r"[@\\](?:code|endcode|verbatim|endverbatim)(?![A-Za-z])(?:\{[^}]*\})?", "", text)
    text = re.sub(r"\\n(?![A-Za-z])", " ", text)
    text = re.sub(r"&(lt|gt|amp|quot);", lambda m: _ENTITIES[m.group(1)], text)
    paragraphs = (" ".join(p.split()) for p in re.split(r"\n\s*\n", text))
    return "\n\n".join(p for p in paragraphs if p)


# ============================================================ function groups
@dataclass
class FunctionGroup:
    """One input record of a header: a documented group and the declarations it covers."""

    block: Optional[DocBlock]
    declarations: list[Declaration]
    line_start: int
    problem: Optional[Problem] = None


_PREFIX = re.compile(r"^(rocblas|rocsolver|hipblas|hipsolver)_")
_PRECISION = re.compile(r"^(?P<pre>i?)(?:bf|[sdczh])(?P<rest>[a-z].*)$")


def family_stem(name: str) -> str:
    """The name with its precision letter replaced: rocsolver_sgetrf -> rocsolver_<type>getrf."""
    prefix = _PREFIX.match(name)
    head = prefix.group() if prefix else ""
    rest = name[len(head):]
    m = _PRECISION.match(rest)
    return head + (f"{m.group('pre')}<type>{m.group('rest')}" if m else rest)


def group_label(names: list[str]) -> str:
    """How a question names the group: the shared family (``rocblas_<type>gemm``) or the one name."""
    if len(names) == 1:
        return names[0]
    stem, count = Counter(family_stem(n) for n in names).most_common(1)[0]
    return stem if count >= 2 and "<type>" in stem else names[0]


def find_groups(text: str, index: LineIndex) -> list[FunctionGroup]:
    """The function groups of a header, in file order (problems included as groups)."""
    comments, unterminated = scan_comments(text)
    code = mask_comments(text, comments)
    declarations = find_declarations(code, index)
    decl_starts = [d.start for d in declarations]
    blocks = [parse_doc_block(c, index) for c in comments if c.is_doc and c.block]
    closers = [c.start for c in comments if c.is_doc and _CLOSES_GROUP.search(c.text)
               and not _OPENS_GROUP.search(c.text)]
    openers = [b.comment.start for b in blocks if b.opens_group]
    block_starts = [b.comment.start for b in blocks if not b.only_closes_group]
    groups = []
    for block in blocks:
        if block.only_closes_group or "file" in block.commands():
            continue
        k = bisect.bisect_right(block_starts, block.comment.start)
        next_block = block_starts[k] if k < len(block_starts) else len(text)
        if block.opens_group:
            groups.append(_member_group(block, declarations, closers, openers, len(text)))
            continue
        members = _documented_run(block, declarations, decl_starts, code, next_block)
        has_params = "param" in block.commands()
        if members or has_params:
            groups.append(FunctionGroup(block, members, block.line_start, None if members else (
                RejectReason.NO_DECLARATION, "documented group is followed by no exported declaration")))
    if unterminated is not None:
        line = index.line_of(unterminated)
        groups.append(FunctionGroup(None, [], line, (RejectReason.MALFORMED,
                      f"comment opened at line {line} is never closed; the rest of the file is not parsed")))
    return groups


def _member_group(block: DocBlock, declarations, closers, openers, text_end) -> FunctionGroup:
    start = block.comment.end
    k = bisect.bisect_right(closers, start)
    close = closers[k] if k < len(closers) else None
    k = bisect.bisect_right(openers, start)
    next_open = openers[k] if k < len(openers) else text_end
    if close is None or close > next_open:
        return FunctionGroup(block, [], block.line_start, (
            RejectReason.MALFORMED, "member group opened with @{ is not closed with @} before the next group"))
    members = [d for d in declarations if start <= d.start < close]
    if not members:
        return FunctionGroup(block, [], block.line_start, (
            RejectReason.NO_DECLARATION, "member group declares no exported function"))
    return FunctionGroup(block, members, block.line_start)


_ONLY_PREPROCESSOR = re.compile(r"\s*(?:#[^\n]*(?:\n|$)\s*)*")


def _documented_run(block, declarations, decl_starts, code, limit) -> list[Declaration]:
    """The declaration right after a block, and the same-family ones right after it."""
    i = bisect.bisect_left(decl_starts, block.comment.end)
    run: list[Declaration] = []
    pos = block.comment.end
    while i < len(declarations) and declarations[i].start < limit:
        decl = declarations[i]
        if not _ONLY_PREPROCESSOR.fullmatch(code[pos:decl.start]):
            break
        if run and family_stem(decl.name) != family_stem(run[0].name):
            break
        run.append(decl)
        pos = decl.end
        i += 1
    return run


# ============================================================ rst sections
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


# ============================================================ questions
@dataclass
class Entry:
    """One question/answer before it becomes a row (``problem`` set: it becomes a Reject)."""

    kind: str
    question: str
    answer: str
    symbol: str
    line_start: int
    line_end: int
    problem: Optional[Problem] = None


def group_entries(group: FunctionGroup, library: str) -> Iterator[Entry]:
    """purpose, parameter (one per @param), signature (one per declaration), precisions."""
    lib = LIBRARY_NAMES[library]
    names = [d.name for d in group.declarations]
    label, symbol = group_label(names), names[0]
    block = group.block

    yield _purpose_entry(block, label, symbol, lib)

    seen_params = set()
    for seg in (s for s in block.segments if s.cmd == "param"):
        m = re.match(r"\s*([A-Za-z_]\w*)[:,]?", seg.text)
        name = m.group(1) if m else "?"
        description = clean_doxygen_text(seg.text[m.end():] if m else seg.text)
        question = f"In {lib}, what does the parameter `{name}` of {label} specify?"
        answer = f"[{seg.direction}] {description}" if seg.direction else description
        entry = Entry("parameter", question, answer, symbol, seg.line_start, seg.line_end)
        if m is None:
            entry.problem = (RejectReason.MISSING_FIELD, f"@param at line {seg.line_start} names no parameter")
        elif not description:
            entry.problem = (RejectReason.MISSING_FIELD, f"parameter {name} of {label} has no description")
        elif name in seen_params:
            entry.problem = (RejectReason.MALFORMED, f"parameter {name} of {label} is documented twice")
        seen_params.add(name)
        yield entry

    for decl in group.declarations:
        yield Entry("signature", f"What is the C declaration of {decl.name} in {lib}?", decl.text,
                    decl.name, decl.line_start, decl.line_end)

    if len(names) >= 2:
        yield Entry("precisions", f"Which variants of {label} does {lib} declare in this group?",
                    ", ".join(names), symbol, group.declarations[0].line_start, group.declarations[-1].line_end)


def _purpose_entry(block: DocBlock, label: str, symbol: str, lib: str) -> Entry:
    brief_segments = [s for s in block.segments if s.cmd in ("brief", None)]
    detail_segments = [s for s in block.segments if s.cmd in ("details", "note", "warning", "remark",
                                                              "remarks", "attention")]
    parts = [clean_doxygen_text(s.text) for s in brief_segments + detail_segments]
    answer = "\n\n".join(p for p in parts if p)
    used = [s for s in brief_segments + detail_segments if clean_doxygen_text(s.text)]
    lines = (min(s.line_start for s in used), max(s.line_end for s in used)) if used else \
        (block.line_start, block.line_end)
    entry = Entry("purpose", f"What does {label} do in {lib}?", answer, symbol, *lines)
    if not answer:
        entry.problem = (RejectReason.MISSING_FIELD, f"group {label} has no \\brief or \\details text")
    return entry


def section_entries(section: RstSection, library: str) -> Iterator[Entry]:
    """rst: the prose of a section; rst_functions: the functions it documents."""
    lib = LIBRARY_NAMES[library]
    where = (f'the {lib} documentation page "{section.page_title}"' if section.title == section.page_title
             else f'the section "{section.title}" of the {lib} documentation page "{section.page_title}"')
    symbol = section.functions[0][0] if section.functions else section.title
    if section.prose:
        yield Entry("rst", f"What does {where} explain?", "\n\n".join(p for p, _, _ in section.prose),
                    symbol, section.prose[0][1], section.prose[-1][2])
    if section.functions:
        names = list(dict.fromkeys(n for n, _ in section.functions))
        yield Entry("rst_functions", f"Which functions are documented in {where}?", ", ".join(names),
                    symbol, section.functions[0][1], section.functions[-1][1])


# ============================================================ library detection
def library_from_name(name: str) -> Optional[str]:
    lowered = name.lower()
    if "rocsolver" in lowered:
        return "rocsolver"
    if "rocblas" in lowered:
        return "rocblas"
    return None


def library_from_exports(text: str) -> Optional[str]:
    m = re.search(r"\b(ROCSOLVER|ROCBLAS)_EXPORT\b", text)
    return m.group(1).lower() if m else None


# ============================================================ the Source
def _is_header(rel: str) -> bool:
    return rel.startswith("library/include/") and rel.endswith(".h")


def _is_doc_page(rel: str) -> bool:
    return rel.startswith("docs/") and rel.endswith(".rst")


class QaRocmSource(Source):
    """Questions and answers mined from a rocBLAS or rocSOLVER tree (local path or fsspec URL).

    Options: ``library`` (rocblas | rocsolver; detected from the tree name, file names and
    export macros otherwise), ``repo`` (default ROCm/rocBLAS or ROCm/rocSOLVER), ``commit``,
    ``license`` (a declared license that overrides the LICENSE file), ``allow`` (license
    allow-list), ``subset`` (default: the library), ``docs`` (mine docs/**/*.rst; default
    true), ``retrieved`` (ISO date; default today), ``name``.
    """

    kind = "qa_rocm"
    config = QA_CONFIG
    description = "QA from rocBLAS/rocSOLVER Doxygen headers and rst docs, grounded by line range"

    def __init__(self, path: str, **options) -> None:
        super().__init__(path, **options)
        library = options.get("library")
        if library is not None and library not in LIBRARY_NAMES:
            raise ValueError(f"library must be one of {', '.join(LIBRARY_NAMES)}, not {library!r}")

    def read(self) -> Iterator[Item]:
        fs, root = open_fs(self.path)
        root = root.rstrip("/") or "/"
        try:
            if not fs.isdir(root):
                reason = RejectReason.UNREADABLE if fs.exists(root) else RejectReason.MISSING_FILE
                yield self.reject(self.path, reason, f"{self.path} is not a directory tree")
                return
            paths = sorted(fs.find(root))
        except OSError as e:
            yield self.reject(self.path, RejectReason.UNREADABLE, f"{self.path}: {e}")
            return
        inputs = [(p, _relative(p, root)) for p in paths]
        want_docs = str(self.options.get("docs", True)).lower() not in ("false", "0", "no")
        inputs = [(p, r) for p, r in inputs if _is_header(r) or (want_docs and _is_doc_page(r))]
        inputs.sort(key=lambda pr: (not _is_header(pr[1]), pr[1]))   # headers first: they name the library
        if not any(_is_header(r) for _, r in inputs):
            yield self.reject(self.path, RejectReason.MISSING_FILE, "no library/include/**/*.h header in the tree")
            if not inputs:
                return
        license_id, license_problem = self._license(fs, root)
        tree_library = self.options.get("library") or library_from_name(posixpath.basename(root))
        for path, rel in inputs:
            text = read_text(fs, path)
            if is_problem(text):
                yield self.reject(rel, text[0], text[1])
                continue
            text = normalise_newlines(text)
            library = self._library(rel, text, tree_library)
            if library is None:
                yield self.reject(rel, RejectReason.OTHER,
                                  "cannot tell whether this is rocBLAS or rocSOLVER; pass the library option")
                continue
            tree_library = tree_library or library
            yield from self._read_file(rel, text, library, license_id, license_problem)

    # ---------------------------------------------------------------- steps
    def _license(self, fs, root: str) -> tuple[Optional[str], Optional[Problem]]:
        from kvdata.licenses import check_allowed, resolve_license

        spdx, problem = resolve_license(fs, root, declared=self.options.get("license"))
        if problem is None:
            problem = check_allowed(spdx, self.options.get("allow"))
        return spdx, problem

    def _library(self, rel: str, text: str, tree_library: Optional[str]) -> Optional[str]:
        if self.options.get("library"):
            return self.options["library"]
        if _is_header(rel):
            return library_from_name(posixpath.basename(rel)) or library_from_exports(text) or tree_library
        return tree_library or library_from_name(rel)

    def _read_file(self, rel, text, library, license_id, license_problem) -> Iterator[Item]:
        index = LineIndex(text)
        if _is_header(rel):
            units = [(g.line_start, g.problem, g) for g in find_groups(text, index)]
        else:
            sections = [s for s in parse_rst(text) if s.prose or s.functions]
            units = [(s.line_start, None, s) for s in sections]
        for line, problem, unit in units:
            ref = f"{rel}:{line}"
            if problem or license_problem:
                yield self.reject(ref, *(problem or license_problem))
                continue
            if isinstance(unit, FunctionGroup):
                entries = group_entries(unit, library)
            else:
                entries = section_entries(unit, library)
            for entry in entries:
                yield self._item(entry, rel, ref, library, license_id, index)

    def _item(self, entry: Entry, rel: str, ref: str, library: str, license_id: str, index: LineIndex) -> Item:
        record = QARecord(
            subset=self.options.get("subset") or library, library=library, kind=entry.kind,
            question=entry.question, answer=entry.answer, symbol=entry.symbol, license=license_id,
            provenance=Provenance(repo=self.options.get("repo") or DEFAULT_REPOS[library], path=rel,
                                  commit=self.options.get("commit"),
                                  retrieved=self.options.get("retrieved") or today(),
                                  line_start=entry.line_start, line_end=entry.line_end))
        if entry.problem:
            return self.reject(ref, *entry.problem, id=record.id)
        if not is_grounded(entry.answer, index.span(entry.line_start, entry.line_end)):
            return self.reject(f"{rel}:{entry.line_start}-{entry.line_end}", RejectReason.UNGROUNDED,
                               f"{entry.kind} answer for {entry.symbol} is not found in lines "
                               f"{entry.line_start}-{entry.line_end}", id=record.id)
        return record


def _relative(path: str, root: str) -> str:
    path = path.rstrip("/")
    return posixpath.relpath(path, root) if root != "/" else path.lstrip("/")
