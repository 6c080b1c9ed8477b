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

Modules: :mod:`.text` (line positions, ``is_grounded``), :mod:`.doxygen` (comments,
declarations, doc blocks, function groups), :mod:`.rst` (sections of the Sphinx pages),
:mod:`.entries` (the questions a group or section yields), :mod:`.boilerplate` (parameter
entries that repeat across the tree or say nothing beyond the type) and :mod:`.source`
(``QaRocmSource``, registered as ``kvdata.builders.qa_rocm:QaRocmSource``).
"""
from __future__ import annotations

from kvdata.builders.qa_rocm.doxygen import (Comment, Declaration, DocBlock, FunctionGroup, Segment,
                                             clean_doxygen_text, family_stem, find_declarations, find_groups,
                                             group_label, parameter_types, parse_doc_block, scan_comments)
from kvdata.builders.qa_rocm.entries import KINDS, LIBRARY_NAMES, Entry, group_entries, section_entries
from kvdata.builders.qa_rocm.rst import RstSection, clean_rst_text, find_headings, parse_rst
from kvdata.builders.qa_rocm.source import DEFAULT_REPOS, QaRocmSource, library_from_exports, library_from_name
from kvdata.builders.qa_rocm.text import LineIndex, content_tokens, is_grounded, normalise_newlines

__all__ = [
    "Comment", "Declaration", "DocBlock", "FunctionGroup", "Segment", "clean_doxygen_text", "family_stem",
    "find_declarations", "find_groups", "group_label", "parameter_types", "parse_doc_block", "scan_comments",
    "KINDS", "LIBRARY_NAMES", "Entry", "group_entries", "section_entries",
    "RstSection", "clean_rst_text", "find_headings", "parse_rst",
    "DEFAULT_REPOS", "QaRocmSource", "library_from_exports", "library_from_name",
    "LineIndex", "content_tokens", "is_grounded", "normalise_newlines",
]
