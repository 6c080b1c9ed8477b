"""Which revision of an upstream tree a Source read: a git checkout's HEAD, a stated ``PATH@REV``, a Hub revision.

``kvdata build --source KIND=PATH@REV`` states the revision of a tree without ``.git`` (an
exported archive); a git checkout's HEAD commit, and whether its files differ from it, are
read from git itself; an ``hf://`` source records the Hub revision it read. The commit goes
into every row's provenance and, with the repo, into the card's per-source table.
"""
from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from typing import Optional

_REV = re.compile(r"^[0-9A-Za-z][0-9A-Za-z._/+-]{0,199}$")
_SHA = re.compile(r"^[0-9a-f]{40}$")
_GIT_TIMEOUT_S = 30


@dataclass(frozen=True)
class TreeRevision:
    """``commit``: a sha or a stated revision; ``dirty``: a git checkout with uncommitted changes
    under the source path (None: not a checkout); ``repo``: the checkout's ``origin`` URL or the
    Hub repo; ``how``: ``stated`` (an option or ``@REV``), ``git``, ``hub`` or None (unknown)."""

    commit: Optional[str] = None
    dirty: Optional[bool] = None
    repo: Optional[str] = None
    how: Optional[str] = None


def split_revision(path: str) -> tuple[str, Optional[str]]:
    """``PATH@REV`` -> (PATH, REV); a path without one (or one that exists with its ``@``) as is.

    ``hf://`` URLs keep their own ``@rev`` syntax (``hf://datasets/org/name@rev/sub``) and are
    returned whole.
    """
    path = str(path)
    if "://" in path or "@" not in path or os.path.exists(path):
        return path, None
    base, _, rev = path.rpartition("@")
    if not base or not _REV.match(rev):
        return path, None
    return base, rev


def _git(path: str, *args: str) -> Optional[str]:
    try:
        done = subprocess.run(["git", "-c", "safe.directory=*", "-C", path, *args], capture_output=True,
                              text=True, timeout=_GIT_TIMEOUT_S, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_revision(path: str) -> Optional[TreeRevision]:
    """HEAD and dirtiness of the git checkout holding ``path`` (tracked files under ``path``
    only), or None when ``path`` is not inside a checkout or git is not installed."""
    if not os.path.isdir(path):
        return None
    head = _git(path, "rev-parse", "--verify", "HEAD")
    if not head or not _SHA.match(head):
        return None
    status = _git(path, "status", "--porcelain", "--untracked-files=no", "--", ".")
    origin = _git(path, "config", "--get", "remote.origin.url") or None
    return TreeRevision(commit=head, dirty=None if status is None else bool(status), repo=origin, how="git")


def hub_revision(repo: str, revision: Optional[str]) -> TreeRevision:
    """The Hub commit of ``repo`` at ``revision`` (a sha stays itself; a branch or tag is resolved
    through the Hub API when it can be reached, else recorded by name)."""
    if revision and _SHA.match(revision):
        return TreeRevision(commit=revision, repo=repo, how="hub")
    try:
        from huggingface_hub import HfApi

        info = HfApi().dataset_info(repo, revision=revision)
        return TreeRevision(commit=info.sha, repo=repo, how="hub")
    except Exception:  # noqa: BLE001 - offline, gated, not found: the stated name is all there is
        return TreeRevision(commit=revision, repo=repo, how="hub" if revision else None)


def tree_revision(path: str, stated: Optional[str] = None) -> TreeRevision:
    """The revision a Source at ``path`` reads: ``stated`` (the ``commit``/``version`` option or
    ``@REV``) wins; else git's HEAD; else the Hub's; else unknown."""
    from kvdata.builders.common import hub_location

    if stated:
        checkout = git_revision(path) if "://" not in path else None
        dirty = checkout.dirty if checkout is not None and checkout.commit.startswith(stated) else None
        return TreeRevision(commit=str(stated), dirty=dirty, repo=checkout.repo if checkout else None, how="stated")
    if path.startswith("hf://"):
        repo, rev, _ = hub_location(path)
        if repo:
            return hub_revision(repo, rev)
    if "://" not in path:
        found = git_revision(path)
        if found is not None:
            return found
    return TreeRevision()
