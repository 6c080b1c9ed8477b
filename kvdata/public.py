"""What kvdata publishes names places by repo id or relative path, never by a path of the machine it ran on.

Cards, reports, ``accounting.json`` and ``rejects.parquet`` are pushed to the Hub with the data; an absolute path
there tells the world a user's home directory and is useless to anyone else.
"""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["public_path", "PathScrubber"]


def public_path(path: str | os.PathLike) -> str:
    """``path`` as it may be published: relative to the working directory when inside it, else its last component
    (a file) or last two (a folder inside another: ``sample/hip2hip``). Relative paths and URLs stay as they are."""
    text = os.fspath(path)
    if text.startswith("file://"):
        text = text[len("file://"):]
    elif "://" in text or not text:
        return text
    p = Path(text).expanduser()
    if not p.is_absolute():
        return text
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(Path(*p.parts[-2:])) if len(p.parts) > 2 else p.name


class PathScrubber:
    """Replaces the absolute roots it was given by their public form inside any text (reject messages, refs)."""

    def __init__(self) -> None:
        self._roots: list[tuple[str, str]] = []

    def add(self, root: str | os.PathLike) -> str:
        """Remember ``root``; returns its public form."""
        text = os.fspath(root)
        public = public_path(text)
        if os.path.isabs(text) and text not in dict(self._roots):
            self._roots.append((text, public))
            self._roots.sort(key=lambda rp: -len(rp[0]))
        return public

    def __call__(self, text):
        if not isinstance(text, str) or not self._roots:
            return text
        for root, public in self._roots:
            text = text.replace(root, public)
        return text
