"""Leak-free train/validation/test splits: by task group, never by row.

Rows are linked when they share a task name or the same PyTorch reference after normalisation
(comments, docstrings and whitespace removed: :func:`kvdata.normalize.normalize_code`), and linked
rows form one group (union-find over the keys, so links are transitive: variants of a task, and
tasks renamed around one reference, all stay together). A group goes to a split by a hash of its
first key (task names before references, then in sorted order), so the split is deterministic,
independent of row order, and stable when rows are added: a new row moves nothing unless it links
two existing groups into one or brings a task name that sorts first into a group. A new variant of
a task, even with a reworded reference, never moves the task: the name, not the reference, names
the group. No split computed from the rows alone can be stable under every addition (a new key can
always become the group's name), so ``pinned`` (``kvdata export --keep-splits EARLIER_EXPORT``)
keeps every row an earlier export held on the side it was on.

:func:`crossings` re-checks any assignment independently: every key whose rows landed in more
than one split. There must be none.
"""
from __future__ import annotations

import functools
import re
from typing import Callable, Iterable, NamedTuple, Optional, Sequence

import xxhash

from kvdata.normalize import normalize_code

SPLITS = ("train", "validation", "test")


class SplitRow(NamedTuple):
    """What the split needs of a row: its id and the keys that tie it to other rows (a named tuple:
    one is made per exported row)."""

    id: str
    keys: tuple[str, ...]


def row_keys(task_name: Optional[str], reference: Optional[str], extra: Iterable[str] = ()) -> tuple[str, ...]:
    """A row's grouping keys: ``task:<name>`` (case-folded, blanks collapsed: ``Clamp`` and ``clamp `` are one
    task), ``ref:<digest of the normalised reference>``, and ``extra``."""
    keys = []
    name = " ".join(str(task_name).split()).casefold() if task_name is not None else ""
    if name:
        keys.append(f"task:{name}")
    if reference and reference.strip():
        keys.append("ref:" + _reference_digest(reference))
    keys.extend(extra)
    return tuple(keys)


#: Blanks and quote characters: a reference that differs from another only in these is the same reference
#: (``a+b`` and ``a + b``, ``'x'`` and ``"x"``). Dropping all of them can only join more references, never
#: fewer: over-joining costs split balance, under-joining leaks.
_LAYOUT = re.compile(r"[\s'\"]+")


@functools.lru_cache(maxsize=65536)
def _reference_digest(reference: str) -> str:
    """The digest of a reference without comments, docstrings, blanks and quote characters; memoised (a
    task's variants share one reference)."""
    return xxhash.xxh3_128_hexdigest(_LAYOUT.sub("", normalize_code(reference)).encode("utf-8", "surrogatepass"))


def _rank(key: str) -> tuple[bool, str]:
    """Group names: a task name before any reference digest, then the smallest."""
    return (not key.startswith("task:"), key)


def groups(rows: Sequence[SplitRow]) -> dict[str, str]:
    """Row id -> its group's name (its first key by :func:`_rank`); a row with no keys is its own group.

    Connected components of the keys: each distinct key tuple (a task's variants share one) joins the
    components its keys are in, the smaller merged into the larger, so a key moves O(log n) times."""
    component: dict[str, int] = {}                 # key -> component number
    members: dict[int, list[str]] = {}
    for keys in {r.keys for r in rows}:
        if not keys:
            continue
        found = {component[k] for k in keys if k in component}
        if not found:
            c = len(component)                     # unused: numbers only grow with the keys seen
            members[c] = []
        else:
            c = max(found, key=lambda n: len(members[n]))
            for other in found - {c}:
                for k in members.pop(other):
                    component[k] = c
                    members[c].append(k)
        for k in keys:
            if k not in component:
                component[k] = c
                members[c].append(k)
    name = {c: min(ks, key=_rank) for c, ks in members.items()}
    return {r.id: name[component[r.keys[0]]] if r.keys else f"id:{r.id}" for r in rows}


def split_of_group(group: str, val_fraction: float, test_fraction: float, seed: str = "") -> str:
    """The split a group goes to: a uniform hash of its name against the fractions."""
    u = xxhash.xxh3_64_intdigest(f"{seed}\x00{group}".encode("utf-8", "surrogatepass")) / 2.0 ** 64
    if u < test_fraction:
        return "test"
    if u < test_fraction + val_fraction:
        return "validation"
    return "train"


def assign_splits(rows: Sequence[SplitRow], val_fraction: float = 0.0, test_fraction: float = 0.0,
                  seed: str = "", named: Optional[dict[str, str]] = None,
                  pinned: Optional[dict[str, str]] = None) -> dict[str, str]:
    """Row id -> split, by group (module docstring); ``named``: :func:`groups` of ``rows``, if already known.

    ``pinned`` (row id -> split, from an earlier export): a group holding pinned rows goes where they went,
    whatever its hash, so that an export of a grown corpus moves no row it exported before. A group whose
    pinned rows were on several sides (a new row joined them) goes to the most held-out of those sides."""
    if not (0 <= val_fraction < 1 and 0 <= test_fraction < 1 and val_fraction + test_fraction < 1):
        raise ValueError(f"split fractions must be in [0, 1) and sum below 1 (validation {val_fraction}, "
                         f"test {test_fraction})")
    ids = [r.id for r in rows]
    if len(set(ids)) != len(ids):
        raise ValueError("row ids must be unique to split")
    named = groups(rows) if named is None else named
    cache: dict[str, str] = {}
    if pinned:
        held_out = {s: i for i, s in enumerate(SPLITS)}            # train < validation < test
        for r in rows:
            s = pinned.get(r.id)
            if s in held_out:
                g = named[r.id]
                if g not in cache or held_out[s] > held_out[cache[g]]:
                    cache[g] = s
    out = {}
    for r in rows:
        g = named[r.id]
        if g not in cache:
            cache[g] = split_of_group(g, val_fraction, test_fraction, seed)
        out[r.id] = cache[g]
    return out


def crossings(rows: Sequence[SplitRow], assignment: Callable[[str], str] | dict[str, str]) -> dict[str, set[str]]:
    """Every key whose rows are in more than one split (key -> those splits); empty for a leak-free split."""
    get = assignment.get if isinstance(assignment, dict) else assignment
    seen: dict[str, set[str]] = {}
    for keys, split in {(r.keys, get(r.id)) for r in rows}:
        for k in keys:
            seen.setdefault(k, set()).add(split)
    return {k: v for k, v in seen.items() if len(v) > 1}
