"""Finding a file a record names by its base name, somewhere in a tree.

AMD's evaluation kit records a candidate as a bare file name (``foo_gen0.hip``) and keeps the file in one of
several run folders (``staging/optimized/``, ``generated/``, ``turn_NN/generated/``; docs/notes/layouts.md).
:class:`FileIndex` lists a tree once and answers "which ``foo_gen0.hip``?": the copy in a folder whose
name the caller prefers (``optimized``), then the one nearest the result file that named it. Everything it
returns lies inside the tree it listed, so a record cannot make the build read a file from elsewhere.
"""
from __future__ import annotations

import posixpath
from collections import defaultdict
from typing import Iterable, Optional, Sequence


class FileIndex:
    """The files of a tree with the given suffixes, by base name."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._by_name: dict[str, list[str]] = defaultdict(list)
        for path in paths:
            self._by_name[posixpath.basename(path)].append(path)

    @classmethod
    def of_tree(cls, fs, root: str, suffixes: Sequence[str]) -> "FileIndex":
        try:
            found = fs.find(root)
        except (OSError, ValueError):
            found = []
        suffixes = tuple(suffixes)
        return cls(sorted(str(p) for p in found if str(p).endswith(suffixes)))

    def find(self, name: str, near: str = "", prefer: Sequence[str] = (), avoid: Sequence[str] = (),
             exclude: Optional[str] = None) -> Optional[str]:
        """The file called ``name``: among the copies, those under a folder named in ``prefer`` (earlier names
        weigh more) and under none named in ``avoid`` first, then the one sharing the longest folder prefix
        with ``near``, then the first in sorted order. ``exclude`` (a path) is never returned."""
        copies = [p for p in self._by_name.get(posixpath.basename(name), ()) if p != exclude]
        if not copies:
            return None

        def rank(path: str) -> tuple:
            folders = path.split("/")[:-1]
            liked = sum(len(prefer) - i for i, want in enumerate(prefer) if want in folders)
            disliked = sum(1 for bad in avoid if bad in folders)
            return (-liked, disliked, -_shared_prefix(path, near), path)

        return min(copies, key=rank)

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_name.values())


def _shared_prefix(a: str, b: str) -> int:
    """How many leading folders two paths share."""
    n = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")):
        if x != y:
            break
        n += 1
    return n
