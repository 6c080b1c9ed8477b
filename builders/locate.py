"""Finding the folder a Source reads inside whatever folder of a downloaded release the user named.

A user who downloads AMD's release (``amd/AIG-Datasets``) names the folder they have: the release root,
``v0.1/``, ``v0.1/PyTorch_HIP_kernel_dataset/`` or the subset folder itself. AMD's own converter
(hip_kernel_llm_lab ``rl/rl4kernel_hip/dataset/convert_to_verl_parquet.py``) reads the gpumode subset at
``AIG-Datasets/v0.1/PyTorch_HIP_kernel_dataset/pytorch_hip_kernel_gpumode``; see docs/notes/layouts.md.

:func:`find_subtree` walks down from the named folder (a few levels, breadth first) to the folders that hold
a marker (``pytorch_code_module/`` for the gpumode layout) and picks one by the release's own path, so that
``--source hip_gpumode=AIG-Datasets`` and ``--source hip_gpumode=AIG-Datasets/v0.1/.../pytorch_hip_kernel_gpumode``
read the same tree. Two equally good matches are an error that names both: guessing would build the wrong
subset without a word.
"""
from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from kvdata.builders.common import relative

#: How deep below the named folder a subset folder is looked for (release root -> v0.1 -> dataset -> subset).
MAX_DEPTH = 4
#: Folders never walked into: they hold code or caches, not a release.
_SKIP = frozenset({".git", "__pycache__", ".cache", "node_modules", ".venv"})


@dataclass(frozen=True)
class Located:
    """Where a Source's subset lies under the folder the user named."""

    root: str                    # the folder that holds the marker
    below: str                   # its path relative to the named folder ("" when it is the named folder)


class AmbiguousTree(ValueError):
    """The named folder holds several subset folders that match equally well."""


def find_subtree(fs, path: str, has_marker: Callable[[str], bool], prefer: Sequence[str] = ()) -> Optional[Located]:
    """The folder at or below ``path`` for which ``has_marker(folder)`` holds, or None.

    ``path`` itself wins when it matches. Otherwise every match down to :data:`MAX_DEPTH` levels is
    ranked: a match whose relative path contains more of the ``prefer`` names (the release's own
    folder names, in order of weight) ranks first, then the shallower one. A tie at the top is
    :class:`AmbiguousTree`.
    """
    path = path.rstrip("/") or "/"
    if _safe(has_marker, path):
        return Located(path, "")
    matches: list[str] = []
    frontier = [path]
    for _ in range(MAX_DEPTH):
        deeper: list[str] = []
        for folder in frontier:
            for child in subfolders(fs, folder):
                if _safe(has_marker, child):
                    matches.append(child)
                else:
                    deeper.append(child)
        frontier = deeper
        if not frontier:
            break
    if not matches:
        return None

    def rank(found: str) -> tuple:
        parts = relative(found, path).split("/")
        score = sum(len(prefer) - i for i, name in enumerate(prefer) if name in parts)
        return (-score, len(parts))

    matches.sort(key=lambda m: (rank(m), m))
    if len(matches) > 1 and rank(matches[0]) == rank(matches[1]):
        names = ", ".join(relative(m, path) for m in matches[:4])
        raise AmbiguousTree(f"{path} holds several such folders ({names}); name one of them")
    return Located(matches[0], relative(matches[0], path))


def subfolders(fs, folder: str) -> list[str]:
    """The folders directly under ``folder``, sorted, less caches and VCS folders; [] where it cannot be listed."""
    try:
        entries = fs.ls(folder, detail=True)
    except (OSError, ValueError):
        return []
    found = []
    for entry in entries:
        name = str(entry.get("name", "")).rstrip("/")
        if entry.get("type") == "directory" and posixpath.basename(name) not in _SKIP:
            found.append(name)
    return sorted(found)


def _safe(check: Callable[[str], bool], folder: str) -> bool:
    try:
        return bool(check(folder))
    except (OSError, ValueError):
        return False


def is_dir(fs, path: str) -> bool:
    """Whether ``path`` is a folder on ``fs`` (False where it cannot be asked)."""
    try:
        return fs.isdir(path)
    except OSError:
        return False


def is_file(fs, path: str) -> bool:
    """Whether ``path`` is a file on ``fs`` (False where it cannot be asked)."""
    try:
        return fs.isfile(path)
    except OSError:
        return False


def release_top(path: str) -> str:
    """The folder whose LICENSE covers ``path``: the release root when ``path`` lies in a ``v0.1/`` or ``v0.2/``
    folder of it (the release ships one LICENSE at its root), else ``path`` itself."""
    parts = path.rstrip("/").split("/")
    for version in ("v0.1", "v0.2"):
        if version in parts:
            return "/".join(parts[:parts.index(version)]) or "/"
    return path.rstrip("/") or "/"
