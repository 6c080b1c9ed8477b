"""Output folders a command owns file by file: nothing of the user's is deleted or overwritten, and an interrupted
write never leaves a half-written output that looks complete.

Every command that writes a folder (``build``, ``export``, ``audit-overlap``, ``score``, ``reverify-report``)
goes through :class:`OutputFolder`:

- **Before the work** (``check``): the folder must be absent, empty, or an earlier output of the same command.
  Anything else is refused with one line naming a file kvdata did not write. An earlier output is recognised by
  the manifest kvdata leaves in it (``.kvdata-output.json``: the command and every file it wrote), or, for
  folders written before manifests existed, by the command's marker file (``accounting.json`` of a build, ...).
- **The work writes into a staging sibling** (``staged``): ``.<name>.kvdata-partial-<pid>`` next to the folder,
  on the same file system. If the command fails or is interrupted, the staging folder is removed and the output
  folder is as it was.
- **Commit**: the files of the earlier output (those its manifest names, nothing else) are removed, the new files
  are renamed into place, and the new manifest is written last. A new file whose name a file of the user's
  already has stops the commit before anything is removed.

Files the user added to an output folder later (notes next to a build) are never touched: they are not in the
manifest.
"""
from __future__ import annotations

import fnmatch
import json
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

MANIFEST = ".kvdata-output.json"
_PARTIAL = ".kvdata-partial-"

__all__ = ["OutputFolder", "OutputRefused", "OutputKind", "MANIFEST", "KINDS"]


class OutputRefused(ValueError):
    """The output folder holds files kvdata did not write (or is a file): nothing was written."""


@dataclass(frozen=True)
class OutputKind:
    """What one command writes, to recognise an output written before manifests existed: ``marker``, a JSON file
    its output has, with the top-level ``keys`` only that command writes there (a build's and an export's
    ``accounting.json`` differ by them), and ``patterns``, the relative paths (``fnmatch`` globs) its files match."""

    command: str
    marker: str
    keys: tuple[str, ...]
    patterns: tuple[str, ...]

    def owns(self, relpath: str) -> bool:
        return any(fnmatch.fnmatchcase(relpath, p) for p in self.patterns)

    def marks(self, folder: Path) -> bool:
        try:
            data = json.loads((folder / self.marker).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return isinstance(data, dict) and all(k in data for k in self.keys)


KINDS = {k.command: k for k in (
    OutputKind("build", "accounting.json", ("sources", "totals", "reconciles"),
               ("README.md", "accounting.json", "rejects.parquet", "croissant.json", "data/*/*.parquet")),
    OutputKind("export", "accounting.json", ("examples", "format"),
               ("README.md", "accounting.json", "dataset_info.json", "lengths.png", "croissant.json",
                "data/*.parquet")),
    OutputKind("audit-overlap", "audit.json", ("n_bench", "n_train"),
               ("audit.json", "*.parquet", "clean_tasks.txt", "report.md", "report.html", "plots/*.png")),
    OutputKind("score", "score.json", ("settings", "models"), ("score.json", "report.md", "report.html", "forest.png")),
    OutputKind("reverify-report", "summary.json", ("total", "by_status"), ("report.md", "summary.json", "*.png")),
)}


@dataclass
class _Manifest:
    command: str
    files: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, folder: Path) -> Optional["_Manifest"]:
        try:
            data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("command"), str) \
                or not isinstance(data.get("files"), list):
            return None
        return cls(data["command"], [f for f in data["files"] if isinstance(f, str) and _is_relative(f)])

    def write(self, folder: Path) -> None:
        from kvdata import __version__

        tmp = folder / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps({"command": self.command, "kvdata": __version__, "files": sorted(self.files)},
                                  indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, folder / MANIFEST)


def _is_relative(p: str) -> bool:
    parts = Path(p).parts
    return bool(parts) and not Path(p).is_absolute() and ".." not in parts


def _files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() or p.is_symlink())


class OutputFolder:
    """The output folder ``out`` of ``command`` (a key of :data:`KINDS`); see the module docstring."""

    def __init__(self, out: str | Path, command: str, option: str = "--out", besides: tuple = ()):
        """``besides``: folders the command itself uses inside ``out`` without owning them (a cache the user
        pointed there): their files are neither the user's nor the output's, and are never touched."""
        self.out, self.kind, self.option = Path(out), KINDS[command], option
        self._besides = [Path(b).resolve() for b in besides if b]

    def _present(self) -> list[str]:
        root = self.out.resolve()
        skip = [str(b.relative_to(root)) for b in self._besides if root in b.parents]
        return [f for f in _files_under(self.out)
                if f != MANIFEST and not any(f == d or f.startswith(d + "/") for d in skip)]

    def owned(self) -> set[str]:
        """The files of an earlier output of this command in the folder (relative paths); raises
        :class:`OutputRefused` when the folder is a file or holds files kvdata did not write."""
        out = self.out
        if not out.exists():
            return set()
        if not out.is_dir():
            raise OutputRefused(f"{self.option} {out} is a file; give a folder")
        present = self._present()
        if not present:
            return set()
        manifest = _Manifest.read(out)
        if manifest is not None and manifest.command == self.kind.command:
            return set(manifest.files) & set(present)
        if manifest is None and self.kind.marks(out):                  # written before manifests existed
            owned = {f for f in present if self.kind.owns(f)}
            if owned:
                return owned
        what = f"an output of `kvdata {manifest.command}`" if manifest is not None else "files kvdata did not write"
        listed = set(manifest.files) if manifest is not None else set()
        foreign = next((f for f in present if f not in listed), present[0])
        raise OutputRefused(f"{self.option} {out} holds {what} (e.g. {foreign}); nothing was written: "
                            f"choose an empty or new folder")

    def check(self) -> None:
        """Refuse now (before the work) what :meth:`staged` would refuse at the end."""
        self.owned()

    @contextmanager
    def staged(self) -> Iterator[Path]:
        """A staging folder to write the whole output into; committed into ``out`` when the block ends without an
        exception, removed otherwise."""
        self.check()
        parent = self.out.resolve().parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise OutputRefused(f"{self.option} {self.out}: cannot create its parent folder ({e.strerror})") from None
        stage = parent / f".{self.out.name}{_PARTIAL}{os.getpid()}"
        shutil.rmtree(stage, ignore_errors=True)
        try:
            stage.mkdir()
        except OSError as e:
            raise OutputRefused(f"{self.option} {self.out}: cannot write next to it ({e.strerror})") from None
        try:
            yield stage
            self._commit(stage)
        finally:
            shutil.rmtree(stage, ignore_errors=True)

    def _commit(self, stage: Path) -> None:
        owned = self.owned()
        new = _files_under(stage)
        clash = [f for f in new if (self.out / f).exists() and f not in owned and f != MANIFEST]
        if clash:
            raise OutputRefused(f"{self.option} {self.out}: {clash[0]} is not kvdata's and would be overwritten; "
                                "nothing was written")
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / MANIFEST).unlink(missing_ok=True)        # from here until the end, the folder is not complete
        for f in sorted(owned):
            (self.out / f).unlink(missing_ok=True)
        for d in sorted({(self.out / f).parent for f in owned}, key=lambda p: len(p.parts), reverse=True):
            _remove_empty_dirs(d, self.out)
        for f in new:
            target = self.out / f
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / f, target)
        _Manifest(self.kind.command, [f for f in new if f != MANIFEST]).write(self.out)


def _remove_empty_dirs(d: Path, root: Path) -> None:
    """Remove ``d`` and its parents up to (not including) ``root`` while they are empty."""
    root = root.resolve()
    d = d.resolve()
    while d != root and root in d.parents:
        try:
            d.rmdir()
        except OSError:
            return
        d = d.parent
