"""The Source: walk a rocBLAS/rocSOLVER tree, mine every header and rst page, and yield rows
and rejects (see the package docstring for the accounting unit)."""
from __future__ import annotations

import datetime
import posixpath
import re
from typing import Iterator, Optional

from kvdata.builders.base import Item, Source, open_fs
from kvdata.builders.common import is_problem, read_text, today
from kvdata.builders.qa_rocm.boilerplate import DEFAULT_REPEATS, Mined, collapse
from kvdata.builders.qa_rocm.doxygen import FunctionGroup, find_groups
from kvdata.builders.qa_rocm.entries import LIBRARY_NAMES, Entry, group_entries, section_entries
from kvdata.builders.qa_rocm.rst import parse_rst
from kvdata.builders.qa_rocm.text import LineIndex, is_grounded, normalise_newlines
from kvdata.schema import QA_CONFIG, Provenance, QARecord, RejectReason

DEFAULT_REPOS = {"rocblas": "ROCm/rocBLAS", "rocsolver": "ROCm/rocSOLVER"}


# ------------------------------------------------------------ library detection
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


# ------------------------------------------------------------ the Source
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
    true), ``retrieved`` (ISO date; default today), ``boilerplate`` (reject boilerplate
    parameter entries, see :mod:`.boilerplate`; default true), ``boilerplate_repeats``
    (how many rows may share one parameter text before only the first is kept; default 3),
    ``name``.

    Not a ``UnitSource``: the boilerplate rule needs every parameter entry of the tree
    before it can decide on one, so the tree is mined in one pass and then filtered
    (both real trees: ~9,000 entries, a few seconds).
    """

    kind = "qa_rocm"
    config = QA_CONFIG
    description = "QA from rocBLAS/rocSOLVER Doxygen headers and rst docs, grounded by line range"
    options_known = frozenset({"name", "library", "repo", "commit", "license", "allow", "subset", "docs",
                               "retrieved", "boilerplate", "boilerplate_repeats"})
    option_defaults = {"docs": True, "boilerplate": True, "boilerplate_repeats": DEFAULT_REPEATS}

    def check_options(self) -> None:
        library = self.option("library")
        if library is not None and library not in LIBRARY_NAMES:
            raise self.option_error(f"`library` must be one of {', '.join(LIBRARY_NAMES)}, not {library!r}")
        self.flag("docs")
        self.flag("boilerplate")
        repeats = self.option("boilerplate_repeats")
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
            raise self.option_error(f"`boilerplate_repeats` must be a positive integer, got {repeats!r}")
        retrieved = self.option("retrieved")
        if retrieved is not None:
            try:
                datetime.date.fromisoformat(str(retrieved))
            except ValueError:
                raise self.option_error(f"`retrieved` must be an ISO date (YYYY-MM-DD), got {retrieved!r}") from None

    def read(self) -> Iterator[Item]:
        mined = self._mine()
        if not self.flag("boilerplate"):
            yield from (m.item for m in mined)
            return
        yield from collapse(mined, self.reject, self.option("boilerplate_repeats"))

    def _mine(self) -> Iterator[Mined]:
        """Every item of the tree, in order, before the boilerplate rule (rows keep their entry)."""
        fs, root = open_fs(self.path)
        root = root.rstrip("/") or "/"
        try:
            if not fs.isdir(root):
                reason = RejectReason.UNREADABLE if fs.exists(root) else RejectReason.MISSING_FILE
                yield Mined(self.reject(self.path, reason, f"{self.path} is not a directory tree"))
                return
            paths = sorted(fs.find(root))
        except OSError as e:
            yield Mined(self.reject(self.path, RejectReason.UNREADABLE, f"{self.path}: {e}"))
            return
        inputs = [(p, _relative(p, root)) for p in paths]
        want_docs = self.flag("docs")
        inputs = [(p, r) for p, r in inputs if _is_header(r) or (want_docs and _is_doc_page(r))]
        inputs.sort(key=lambda pr: (not _is_header(pr[1]), pr[1]))   # headers first: they name the library
        if not any(_is_header(r) for _, r in inputs):
            yield Mined(self.reject(self.path, RejectReason.MISSING_FILE,
                                    "no library/include/**/*.h header in the tree"))
            if not inputs:
                return
        tree = self.tree_license(fs, root)
        revision = self.revision()
        tree_library = self.option("library") or library_from_name(posixpath.basename(root))
        for path, rel in inputs:
            text = read_text(fs, path)
            if is_problem(text):
                yield Mined(self.reject(rel, text[0], text[1]))
                continue
            text = normalise_newlines(text)
            library = self._library(rel, text, tree_library)
            if library is None:
                yield Mined(self.reject(rel, RejectReason.OTHER,
                                        "cannot tell whether this is rocBLAS or rocSOLVER; pass the library option"))
                continue
            tree_library = tree_library or library
            # every entry of a file carries that file's license: its own header, else the tree's
            license_, license_problem = self.row_license(text, tree)
            yield from self._read_file(rel, text, library, license_, license_problem, revision)

    # ---------------------------------------------------------------- steps
    def _library(self, rel: str, text: str, tree_library: Optional[str]) -> Optional[str]:
        if self.option("library"):
            return self.option("library")
        if _is_header(rel):
            return library_from_name(posixpath.basename(rel)) or library_from_exports(text) or tree_library
        return tree_library or library_from_name(rel)

    def _read_file(self, rel, text, library, license_, license_problem, revision) -> Iterator[Mined]:
        index = LineIndex(text)
        if _is_header(rel):
            units = [(g.line_start, g.problem, g) for g in find_groups(text, index)]
        else:
            sections = [s for s in parse_rst(text) if s.prose or s.functions]
            units = [(s.line_start, None, s) for s in sections]
        for line, problem, unit in units:
            ref = f"{rel}:{line}"
            if problem or license_problem:
                yield Mined(self.reject(ref, *(problem or license_problem)))
                continue
            if isinstance(unit, FunctionGroup):
                entries = group_entries(unit, library)
            else:
                entries = section_entries(unit, library)
            for entry in entries:
                yield Mined(self._item(entry, rel, ref, library, license_, index, revision), entry)

    def _item(self, entry: Entry, rel: str, ref: str, library: str, license_: dict, index: LineIndex,
              revision=None) -> Item:
        revision = revision or self.revision()
        record = QARecord(
            subset=self.options.get("subset") or library, library=library, kind=entry.kind,
            question=entry.question, answer=entry.answer, symbol=entry.symbol, **license_,
            provenance=Provenance(repo=self.options.get("repo") or revision.repo or DEFAULT_REPOS[library], path=rel,
                                  commit=revision.commit, dirty=revision.dirty,
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
