"""Questions and answers: the entries a function group or an rst section yields."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Optional

from kvdata.builders.common import Problem
from kvdata.builders.qa_rocm.doxygen import DocBlock, FunctionGroup, clean_doxygen_text, group_label, \
    parameter_types
from kvdata.builders.qa_rocm.rst import RstSection
from kvdata.schema import RejectReason

LIBRARY_NAMES = {"rocblas": "rocBLAS", "rocsolver": "rocSOLVER"}

#: Question kinds this Source emits (the ``kind`` column).
KINDS = ("purpose", "parameter", "signature", "precisions", "rst", "rst_functions")


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
    #: ``parameter`` entries only: what the boilerplate rule (:mod:`.boilerplate`) looks at.
    parameter: Optional[str] = None               # the documented name
    description: str = ""                         # the answer without its ``[direction]``
    declared_types: tuple[str, ...] = ()          # its C type in each declaration of the group
    group: str = ""                               # the group label (``rocblas_<type>gemm``)


def group_entries(group: FunctionGroup, library: str) -> Iterator[Entry]:
    """purpose, parameter (one per @param), signature (one per declaration), precisions."""
    lib = LIBRARY_NAMES[library]
    names = [d.name for d in group.declarations]
    label, symbol = group_label(names), names[0]
    block = group.block

    yield _purpose_entry(block, label, symbol, lib)

    types = [parameter_types(d) for d in group.declarations]
    seen_params = set()
    for seg in (s for s in block.segments if s.cmd == "param"):
        m = re.match(r"\s*([A-Za-z_]\w*)[:,]?", seg.text)
        name = m.group(1) if m else "?"
        description = clean_doxygen_text(seg.text[m.end():] if m else seg.text)
        question = f"In {lib}, what does the parameter `{name}` of {label} specify?"
        answer = f"[{seg.direction}] {description}" if seg.direction else description
        declared = tuple(dict.fromkeys(t[name] for t in types if name in t))
        entry = Entry("parameter", question, answer, symbol, seg.line_start, seg.line_end, parameter=name,
                      description=description, declared_types=declared, group=label)
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
