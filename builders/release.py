"""``--source release=PATH``: AMD's release as downloaded, read by the kinds its folders need.

The release (``amd/AIG-Datasets``) is a tree of subsets: v0.1's gpumode tree (``hip_gpumode``, its ``hip_opt``
as a folder or a tar) and v0.2's five folders (``v02_*``, :mod:`kvdata.builders.release_v02`). This kind reads
nothing itself: before the build, :meth:`ReleaseSource.expand` finds each subset at or below the folder the
user named (the release root, ``v0.1/``, ``v0.2/`` or one subset folder) and puts one Source of the right kind
in its place, named ``release:<folder>`` so that each subset keeps its own line in the accounting and the
card. Options given to ``release`` reach every subset kind that takes them.
"""
from __future__ import annotations

import os
import posixpath
from typing import Iterator

from kvdata.builders.archive import is_archive_name
from kvdata.builders.base import Item, Source, SourceSpec, open_fs
from kvdata.builders.hip_gpumode import RELEASE_PATH, is_gpumode_root
from kvdata.builders.locate import MAX_DEPTH, AmbiguousTree, find_subtree, subfolders
from kvdata.builders.release_v02 import V02_KINDS


class ReleaseError(ValueError):
    """The named folder holds no subset of the release."""


def release_subsets(path: str) -> list[tuple[str, str]]:
    """``(kind, folder)`` of every release subset at or below ``path``: the v0.1 gpumode tree, then each v0.2
    folder. :class:`~kvdata.builders.locate.AmbiguousTree` when two v0.1 trees match equally well."""
    if is_archive_name(path) and "://" not in path:      # a release packed whole: walk the archive
        path = f"tar://::{os.path.abspath(path)}"
    fs, root = open_fs(path)
    root = root.rstrip("/") or ("" if path.startswith("tar://") else "/")
    found: list[tuple[str, str]] = []
    gpumode = find_subtree(fs, root, lambda f: is_gpumode_root(fs, f) and "v0.2" not in f.split("/"),
                           RELEASE_PATH)
    if gpumode is not None:
        found.append(("hip_gpumode", gpumode.root))
    for folder in _v02_folders(fs, root):
        if is_gpumode_root(fs, folder):      # v0.1's gpumode tree shares its name with a v0.2 folder
            continue
        found.append((V02_KINDS[posixpath.basename(folder)], folder))
    return [(k, _url_of(path, f)) for k, f in found]


def _url_of(named: str, folder: str) -> str:
    """``folder`` (a path on the file system of ``named``) as what a Source takes: a local path, or a URL of the
    same protocol, chained to the same archive (``tar://<folder>::<archive>``)."""
    if "://" not in named:
        return folder
    protocol, rest = named.split("://", 1)
    chained = rest.split("::", 1)[1] if "::" in rest else None
    return f"{protocol}://{folder}" + (f"::{chained}" if chained is not None else "")


def _v02_folders(fs, root: str) -> list[str]:
    """The v0.2 subset folders at or below ``root`` (breadth first, a few levels down)."""
    if posixpath.basename(root) in V02_KINDS and not is_gpumode_root(fs, root):
        return [root]
    out, frontier = [], [root]
    for _ in range(MAX_DEPTH):
        deeper = []
        for folder in frontier:
            children = subfolders(fs, folder)
            for child in children:
                is_subset = posixpath.basename(child) in V02_KINDS and not is_gpumode_root(fs, child)
                (out if is_subset else deeper).append(child)
        if out:
            return out
        frontier = deeper
    return out


class ReleaseSource(Source):
    """A downloaded release (or part of it): expanded into one Source per subset before the build."""

    kind = "release"
    config = "hip_gpumode"
    description = "AMD's release as downloaded: v0.1 gpumode (folder or tar) and the v0.2 folders, each by its kind"
    options_known = frozenset({"name", "license", "allow", "repo", "commit", "path_prefix", "generator",
                               "hardware", "arch", "columns"})

    @classmethod
    def expand(cls, spec: SourceSpec) -> list[SourceSpec]:
        """One SourceSpec per subset found; ReleaseError when there is none."""
        from kvdata.builders import source_class

        try:
            subsets = release_subsets(spec.path)
        except AmbiguousTree as e:
            raise ReleaseError(f"release: {e}") from None
        if not subsets:
            raise ReleaseError(f"release: no v0.1 gpumode tree (pytorch_code_module/) and no v0.2 folder "
                               f"({', '.join(V02_KINDS)}) at or below {spec.path}; "
                               f"`kvdata sources --inspect {spec.path}` shows what is there")
        options = dict(spec.options)
        named = spec.path if "://" in spec.path or not is_archive_name(spec.path) else \
            f"tar://::{os.path.abspath(spec.path)}"
        _, base = open_fs(named)
        base = base.rstrip("/")
        specs = []
        for kind, folder in subsets:
            known = source_class(kind).options_known
            mine = {k: v for k, v in options.items() if k in known and k != "name"}
            _, inside = open_fs(folder)
            inside = inside.rstrip("/")
            below = inside[len(base) + 1:] if base and inside.startswith(base + "/") else inside
            mine["name"] = f"{options.get('name') or 'release'}:{below or posixpath.basename(inside)}"
            specs.append(SourceSpec(kind, folder, tuple(sorted(mine.items()))))
        return specs

    def read(self) -> Iterator[Item]:
        """A release is read through :meth:`expand`; reading it whole here reads each subset in turn."""
        from kvdata.builders import source_class

        for spec in self.expand(SourceSpec(self.kind, self.path, tuple(sorted(self.options.items())))):
            yield from source_class(spec.kind)(spec.path, **dict(spec.options)).read()

