"""Reading a tar archive member by member, without unpacking it to disk.

The release ships the 22,397 gpumode variants as a tar of ``hip_opt/`` (docs/notes/layouts.md). The archive
is read once, as a stream (``tarfile`` mode ``r|*``: plain, gzip, bzip2 or xz, detected from the bytes), so a
compressed archive is never seeked backwards and nothing is written to disk. Members come in archive order,
grouped by their folder: a folder's files and its ``info.json`` reach the caller together, as a
:class:`MemberGroup`, as long as the archive keeps them together (``tar`` writes a folder's files in a run;
a folder that comes back later in the archive is a second group).
"""
from __future__ import annotations

import posixpath
import tarfile
from dataclasses import dataclass, field
from typing import Iterator, Optional

#: The names an archive of a folder ``NAME`` may have beside it.
ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
#: A member larger than this is not read into memory (no kernel file is near it).
MAX_MEMBER_BYTES = 64 << 20


@dataclass
class Member:
    """One regular file of an archive: its path inside the archive and its bytes (None when too large)."""

    name: str
    data: Optional[bytes]
    size: int


@dataclass
class MemberGroup:
    """The consecutive members of one folder of an archive."""

    folder: str
    members: list[Member] = field(default_factory=list)


class ArchiveError(OSError):
    """The archive cannot be read (not a tar, truncated, corrupt)."""


def archive_beside(fs, folder: str) -> Optional[str]:
    """The archive ``<folder><suffix>`` next to ``folder``, if one exists."""
    for suffix in ARCHIVE_SUFFIXES:
        candidate = folder.rstrip("/") + suffix
        try:
            if fs.isfile(candidate):
                return candidate
        except OSError:
            continue
    return None


def is_archive_name(path: str) -> bool:
    return str(path).lower().endswith(ARCHIVE_SUFFIXES)


def member_groups(fs, path: str) -> Iterator[MemberGroup]:
    """The archive's regular files, folder by folder, in archive order.

    Raises :class:`ArchiveError` when the archive cannot be read; groups yielded before the error stand
    (they are files the archive does hold)."""
    try:
        handle = fs.open(path, "rb")
    except OSError as e:
        raise ArchiveError(f"{path}: {e}") from e
    with handle:
        try:
            stream = tarfile.open(fileobj=handle, mode="r|*")
        except (tarfile.TarError, OSError, EOFError) as e:
            raise ArchiveError(f"{path}: not a readable tar archive ({e})") from e
        group: Optional[MemberGroup] = None
        try:
            for info in stream:
                if not info.isfile():
                    continue
                name = clean_name(info.name)
                data = None
                if info.size <= MAX_MEMBER_BYTES:
                    extracted = stream.extractfile(info)
                    data = extracted.read() if extracted is not None else b""
                    if len(data) != info.size:          # the stream ended inside this member
                        raise tarfile.ReadError(f"{name}: {len(data)} of {info.size} bytes")
                folder = posixpath.dirname(name)
                if group is None or group.folder != folder:
                    if group is not None:
                        yield group
                    group = MemberGroup(folder)
                group.members.append(Member(name, data, info.size))
            # tarfile ends a stream quietly at a header cut short; a whole archive ends with a zero block
            read = getattr(getattr(stream, "fileobj", None), "pos", None)
            if isinstance(read, int) and read < stream.offset + tarfile.BLOCKSIZE:
                raise tarfile.ReadError("the archive ends inside a member header")
        except (tarfile.TarError, OSError, EOFError, ValueError) as e:
            if group is not None:
                yield group
            raise ArchiveError(f"{path}: archive broken after {group.members[-1].name if group else 'its start'} "
                               f"({e})") from e
        finally:
            stream.close()
        if group is not None:
            yield group


def clean_name(name: str) -> str:
    """A member name as a relative POSIX path (``./`` and leading ``/`` dropped). A name with a ``..`` component
    is kept as it is (:func:`has_parent_step`): the caller rejects it rather than guess where it belongs."""
    name = str(name).replace("\\", "/").lstrip("/")
    if has_parent_step(name):
        return name
    return posixpath.normpath(name)


def has_parent_step(name: str) -> bool:
    """Whether a member name has a ``..`` component: GNU tar refuses to extract such a member, and so does
    kvdata (``hip_opt/1/../2/x.hip`` is not read as sample 2's)."""
    return ".." in name.split("/")
