"""Doxygen scanning of rocBLAS/rocSOLVER headers: comments, exported declarations, doc
blocks and the function groups they document (one group = one input record)."""
from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass
from typing import Optional

from kvdata.builders.common import Problem
from kvdata.builders.qa_rocm.text import LineIndex
from kvdata.schema import RejectReason


# ------------------------------------------------------------ C comments and declarations
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


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_FUNCTION_POINTER = re.compile(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(")


def parameter_types(declaration: Declaration) -> dict[str, str]:
    """Parameter name -> its declared C type, from a declaration's parameter list.

    ``rocblas_status rocblas_sgemm(rocblas_handle handle, const float* alpha, const float* A[])``
    gives ``{"handle": "rocblas_handle", "alpha": "const float*", "A": "const float* []"}``.
    A parameter is the text between top-level commas; its name is the last identifier
    (default values dropped), its type everything else. Unnamed parameters are skipped.
    """
    text = declaration.text
    open_at = text.find("(", text.find(declaration.name) + len(declaration.name))
    if open_at < 0:
        return {}
    params, depth, start = [], 0, open_at + 1
    for i in range(open_at, len(text)):
        ch = text[i]
        if ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth -= 1
            if depth == 0 and ch == ")":
                params.append(text[start:i])
                break
        elif ch == "," and depth == 1:
            params.append(text[start:i])
            start = i + 1
    types = {}
    for param in params:
        param = param.split("=", 1)[0].strip()
        pointer = _FUNCTION_POINTER.search(param)
        if pointer:                              # `void (*callback)(int, int)`
            types.setdefault(pointer.group(1), " ".join((param[:pointer.start(1)] + param[pointer.end(1):]).split()))
            continue
        names = list(_IDENTIFIER.finditer(param))
        if len(names) < 2:                       # `void`, or a type without a name
            continue
        last = names[-1]
        kind = (param[:last.start()] + param[last.end():]).strip()
        types.setdefault(last.group(), " ".join(kind.split()))
    return types


# ------------------------------------------------------------ Doxygen blocks
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


# ------------------------------------------------------------ function groups
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
