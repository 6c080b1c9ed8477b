"""The Source protocol: what every builder implements.

A Source reads one raw upstream layout and yields, for every input record it finds,
exactly one ``KernelRecord``/``QARecord`` (kept) or one ``Reject`` (with a reason code).
It never writes files, counts or deduplicates: the build pipeline does that.

Paths may be local or any fsspec URL; ``hf://datasets/<repo>/<path>`` goes through
``huggingface_hub``'s file system, so a Source reads the released Hub tree unchanged.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import ClassVar, Iterator, Optional, Union

from kvdata.schema import KernelRecord, QARecord, Reject, RejectReason

Item = Union[KernelRecord, QARecord, Reject]


class Source(abc.ABC):
    """One raw upstream layout. Subclasses set ``kind`` and ``config`` and implement ``read``."""

    kind: ClassVar[str]          # the name used in ``--source KIND=PATH``
    config: ClassVar[str]        # the config its records go to
    description: ClassVar[str] = ""
    # The options this Source takes; set, an unknown one (a typo) is a ValueError at once.
    options_known: ClassVar[Optional[frozenset]] = None

    def __init__(self, path: str, **options) -> None:
        self.path = str(path)
        self.options = options
        if self.options_known is not None:
            unknown = sorted(set(options) - self.options_known)
            if unknown:
                raise ValueError(f"{self.kind}: unknown option(s) {', '.join(unknown)}; "
                                 f"known: {', '.join(sorted(self.options_known))}")

    @property
    def name(self) -> str:
        """Accounting key: one line per Source instance in accounting.json."""
        return self.options.get("name") or self.kind

    @abc.abstractmethod
    def read(self) -> Iterator[Item]:
        """Yield one item per input record; never raise for bad input, yield a Reject."""

    def reject(self, ref: str, reason: RejectReason, message: str = "", id: str | None = None) -> Reject:
        return Reject(source=self.name, ref=ref, reason=reason, message=message,
                      config=self.config, id=id)


@dataclass(frozen=True)
class SourceSpec:
    """A Source named in a build: its kind, its path and its options."""

    kind: str
    path: str
    options: tuple[tuple[str, object], ...] = ()


def open_fs(path: str):
    """(filesystem, root path) for a local path or an fsspec URL (hf://, s3://, ...)."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(path)
    return fs, root
