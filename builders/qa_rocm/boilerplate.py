"""Boilerplate parameter entries: rejected with reason ``boilerplate``, so the accounting shows them.

rocBLAS and rocSOLVER document every function group's parameters in full, so the same
text comes back group after group: in the real rocSOLVER headers 256 ``@param handle``
entries read ``[in] rocblas_handle.``, and in rocBLAS 183 read ``[in] [rocblas_handle]
handle to the rocblas library context queue.`` (177 with exactly that markup). Such rows
teach nothing a first one does not. Two rules, applied per tree (one Source) to the ``parameter`` rows that would
otherwise be kept (grounded, no other problem), in tree order (headers by path, then
file order):

1. **Type only.** A parameter entry whose description has no content token (``\\w+``,
   lower-cased) beyond the parameter's own name, its declared C type(s) in the group's
   declarations and the words in :data:`FILLER` says nothing a signature does not:
   ``handle: rocblas_handle.``, ``n: [rocblas_int]``. Every such row is rejected.
2. **Repeated.** Entries are keyed by (parameter name, the answer's content tokens), so
   case, punctuation, spacing and markup do not tell two texts apart. When more than
   ``repeats`` rows of the tree share a key (default :data:`DEFAULT_REPEATS` = 3), the
   first is kept and every later one is rejected, its message naming the row kept
   (id, file and lines). Up to ``repeats`` rows with one text are all kept: three is the
   plain / ``_batched`` / ``_strided_batched`` trio of one function, which share their
   parameter text by design; text found more often than that is copied across functions.

Only rows are removed: every row kept was checked by ``is_grounded`` before this step and
is unchanged, so the grounding guarantee holds for what remains. A rejected row carries
the id it would have had (as ``ungrounded`` rejects do).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Optional

from kvdata.builders.qa_rocm.entries import Entry
from kvdata.builders.qa_rocm.text import content_tokens
from kvdata.schema import QARecord, Reject, RejectReason

DEFAULT_REPEATS = 3
#: Words a type-only description may add to the name and type ("the rocblas_int n").
FILLER = frozenset({"a", "an", "the", "of", "type"})


@dataclass
class Mined:
    """One item of the tree before the boilerplate rule: a row (with the entry it came from) or a Reject."""

    item: object                       # QARecord or Reject
    entry: Optional[Entry] = None      # set for rows and entry-level rejects


def is_type_only(entry: Entry) -> bool:
    """Rule 1: the description adds nothing to the parameter's name and declared type."""
    allowed = FILLER | {(entry.parameter or "").lower()} | {
        t for declared in entry.declared_types for t in content_tokens(declared)}
    return all(t in allowed for t in content_tokens(entry.description))


def repeat_key(entry: Entry) -> tuple[str, str]:
    """Rule 2's key: the parameter name and the normalised answer (its content tokens)."""
    return entry.parameter or "", " ".join(content_tokens(entry.answer))


RejectMaker = Callable[..., Reject]     # (ref, reason, message, id=...) -> Reject: the Source's ``reject``


def _candidates(mined: list[Mined]) -> Iterator[tuple[int, Entry, QARecord]]:
    for k, m in enumerate(mined):
        if m.entry is not None and m.entry.kind == "parameter" and isinstance(m.item, QARecord):
            yield k, m.entry, m.item


def collapse(mined: Iterable[Mined], reject: RejectMaker, repeats: int = DEFAULT_REPEATS) -> Iterator[object]:
    """The items of ``mined`` in order, with boilerplate parameter rows replaced by Rejects."""
    mined = list(mined)
    replaced: dict[int, Reject] = {}
    keys: dict[tuple[str, str], list[int]] = {}
    for k, entry, record in _candidates(mined):
        if is_type_only(entry):
            types = " / ".join(entry.declared_types) or "unknown"
            replaced[k] = reject(_ref(record), RejectReason.BOILERPLATE,
                                 f"parameter `{entry.parameter}` of {entry.group}: the answer "
                                 f"{entry.answer!r} says nothing beyond its type ({types})", id=record.id)
        else:
            keys.setdefault(repeat_key(entry), []).append(k)
    for positions in keys.values():
        if len(positions) <= repeats:
            continue
        first = mined[positions[0]]
        for k in positions[1:]:
            entry, record = mined[k].entry, mined[k].item
            replaced[k] = reject(_ref(record), RejectReason.BOILERPLATE,
                                 f"parameter `{entry.parameter}` of {entry.group}: the same answer as row "
                                 f"{first.item.id} ({_ref(first.item)}, {first.entry.group}), which is kept; "
                                 f"{len(positions)} rows of this tree carry it (more than {repeats})",
                                 id=record.id)
    for k, m in enumerate(mined):
        yield replaced.get(k, m.item)


def _ref(record: QARecord) -> str:
    p = record.provenance
    return f"{p.path}:{p.line_start}-{p.line_end}"
