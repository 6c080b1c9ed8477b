"""The Source protocol: what every builder implements.

A Source reads one raw upstream layout and yields, for every input record it finds,
exactly one ``KernelRecord``/``QARecord`` (kept) or one ``Reject`` (with a reason code).
It never writes files, counts or deduplicates: the build pipeline does that.

Paths may be local or any fsspec URL; ``hf://datasets/<repo>/<path>`` goes through
``huggingface_hub``'s file system, so a Source reads the released Hub tree unchanged.

Two pieces every builder shares live here:

* **Options.** Every Source declares ``options_known``; ``Source.__init__`` rejects any
  other option (a typo such as ``licence=``) with :class:`SourceOptionError`, and
  ``check_options`` (a hook) rejects bad values with the same exception. There is no
  other option check in the builders. ``option_defaults`` gives values to options that
  were not passed, read with :meth:`Source.option`.
* **Units.** :class:`UnitSource` is a Source read in two halves, ``read_units()`` (cheap,
  in the main process) and ``unit_to_item(unit)`` (costly, run by the build's worker
  processes), with ``read() == map(unit_to_item, read_units())``. Its per-process state
  (an opened file system, memoised licenses or references) lives in one place, the
  :meth:`UnitSource.per_process` cache, which is never pickled and never outlives a fork.
"""
from __future__ import annotations

import abc
import difflib
import os
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator, Mapping, TypeVar, Union

from kvdata.schema import KernelRecord, QARecord, Reject, RejectReason

Item = Union[KernelRecord, QARecord, Reject]
T = TypeVar("T")


class SourceOptionError(ValueError):
    """A Source was given an option it does not know, or a value it cannot use.

    The one exception every Source raises for option mistakes, when it is made (never
    while reading), so ``kvdata build`` reports a typo before any input is read. A
    ``ValueError``, so callers that catch those keep working.
    """


class Source(abc.ABC):
    """One raw upstream layout. Subclasses set ``kind``, ``config`` and ``options_known``
    and implement ``read``."""

    kind: ClassVar[str]          # the name used in ``--source KIND=PATH``
    config: ClassVar[str]        # the config its records go to
    description: ClassVar[str] = ""
    #: The options this Source takes; any other is a SourceOptionError when the Source is made.
    #: Every builder declares its own; ``name`` (the accounting key) is the one every Source knows.
    options_known: ClassVar[frozenset[str]] = frozenset({"name"})
    #: Values of options that were not passed (keys must be in ``options_known``), read by ``option``.
    option_defaults: ClassVar[Mapping[str, Any]] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        known = cls.options_known
        if not isinstance(known, frozenset) or not all(isinstance(k, str) for k in known):
            raise TypeError(f"{cls.__name__}.options_known must be a frozenset of option names")
        if "name" not in known:
            raise TypeError(f"{cls.__name__}.options_known must include 'name' (the accounting key)")
        stray = sorted(set(cls.option_defaults) - known)
        if stray:
            raise TypeError(f"{cls.__name__}.option_defaults names options it does not know: {stray}")

    def __init__(self, path: str, **options) -> None:
        from kvdata.builders.revision import split_revision

        # ``KIND=PATH@REV``: the revision of a tree without .git, stated on the command line
        self.path, self.stated_revision = split_revision(str(path))
        self.options = options
        unknown = sorted(set(options) - self.options_known)
        if unknown:
            raise SourceOptionError(f"{self.kind}: unknown option(s) {', '.join(map(repr, unknown))}"
                                    f"{_suggestions(unknown, self.options_known)}; "
                                    f"known: {', '.join(sorted(self.options_known))}")
        self.check_options()

    def check_options(self) -> None:
        """Check the values of the options (their names are already checked); raise
        :class:`SourceOptionError` (via :meth:`option_error`) for one that cannot be used."""

    def option_error(self, message: str) -> SourceOptionError:
        """The exception for a bad option value, naming this Source's kind."""
        return SourceOptionError(f"{self.kind}: {message}")

    def option(self, key: str, default: Any = None) -> Any:
        """The value of option ``key``: as passed, else ``option_defaults[key]``, else ``default``.

        Reading an option the Source does not declare is a bug in the Source (a KeyError)."""
        if key not in self.options_known:
            raise KeyError(f"{type(self).__name__} reads option {key!r} but does not declare it in options_known")
        if key in self.options:
            return self.options[key]
        return self.option_defaults.get(key, default)

    def flag(self, key: str) -> bool:
        """Option ``key`` as a boolean: ``true``/``false`` (YAML), or ``true/false/yes/no/1/0``
        as text; anything else is a SourceOptionError (``bool("false")`` would be true)."""
        value = self.option(key)
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _FLAG_TEXT:
            return _FLAG_TEXT[value.strip().lower()]
        raise self.option_error(f"`{key}` must be true or false, got {value!r}")

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

    # ------------------------------------------------------------- licenses and revision
    # Both are resolved once, in the process that reads the Source (the main process, before
    # any unit is sent to a worker), and kept as plain attributes: they travel with the
    # pickled Source, so workers never load ScanCode for the tree's LICENSE or run git.
    def tree_license(self, fs, root: str):
        """The tree's :class:`~kvdata.licenses.TreeLicense` (its ``license`` option as the declared one)."""
        found = self.__dict__.get("_tree_license")
        if found is None:
            from kvdata.licenses import tree_license

            declared = self.options.get("license") if "license" in self.options_known else None
            found = self._tree_license = tree_license(fs, root, declared)
        return found

    def declared_tree(self):
        """A :class:`~kvdata.licenses.TreeLicense` holding only the ``license`` option: for a Source
        that reads a table, not a tree with a LICENSE file."""
        found = self.__dict__.get("_declared_tree")
        if found is None:
            from kvdata.licenses import TreeLicense, declared_expression
            from kvdata.schema import RejectReason as Reason

            option = self.options.get("license") if "license" in self.options_known else None
            spdx = declared_expression(option) if option not in (None, "", []) else None
            problem = None if spdx else (
                (Reason.UNKNOWN_LICENSE, f"`license` option {option!r} maps to no SPDX id") if option not in (None, "", [])
                else (Reason.MISSING_LICENSE, "the record names no license and the source has no `license` option"))
            found = self._declared_tree = TreeLicense(declared=spdx, problem=problem)
        return found

    def revision(self):
        """The :class:`~kvdata.builders.revision.TreeRevision` this Source reads (``commit``/``version``
        option, ``PATH@REV``, git HEAD, or the Hub's)."""
        found = self.__dict__.get("_revision")
        if found is None:
            from kvdata.builders.revision import tree_revision

            stated = self.options.get("commit") or self.options.get("version") or self.stated_revision
            found = self._revision = tree_revision(self.path, stated)
        return found

    def row_license(self, text, tree, declared=None) -> tuple[dict, Any]:
        """({"license", "license_source"} for a record, None) or (None, problem) for a row whose code is
        ``text``: :func:`kvdata.licenses.row_license`, then the Source's own ``allow`` option if it has
        one (the build's allow-list is applied to every row later, by the pipeline)."""
        from kvdata.licenses import evaluate_allow, row_license

        finding, problem = row_license(text, tree, declared)
        if problem:
            return None, problem
        allow = self.options.get("allow") if "allow" in self.options_known else None
        if allow is not None:
            decision = evaluate_allow(finding.expression, allow)
            if not decision.allowed:
                return None, decision.problem
        return {"license": finding.expression, "license_source": finding.source}, None

    def origin(self):
        """Where this Source's rows came from (:class:`kvdata.ledger.SourceOrigin`), for the card."""
        from kvdata.ledger import SourceOrigin

        rev = self.__dict__.get("_revision") or self.revision()
        tree = self.__dict__.get("_tree_license") or self.declared_tree()
        repo = self.options.get("repo") if "repo" in self.options_known else None
        return SourceOrigin(repo=repo or rev.repo, commit=rev.commit, dirty=rev.dirty,
                            license=(tree.declared or tree.expression) if tree else None,
                            license_full=tree.full_expression if tree else None,
                            license_files=tree.files if tree else ())


_FLAG_TEXT = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}


def _suggestions(unknown: list[str], known: frozenset[str]) -> str:
    """`` (did you mean 'license'?)`` for options that are close to a known one."""
    close = {u: difflib.get_close_matches(u, sorted(known), n=1, cutoff=0.75) for u in unknown}
    hints = [f"{m[0]!r} for {u!r}" for u, m in close.items() if m]
    return f" (did you mean {', '.join(hints)}?)" if hints else ""


#: The attribute that holds a UnitSource's per-process cache: (pid, {key: value}).
_CACHE_ATTR = "_per_process"


class UnitSource(Source):
    """A Source read in two halves, so that the build can run the costly one in workers.

    ``read_units()`` yields one *unit* per input record: a picklable description of the
    record (a file name and line, a row, a path) or a ``Reject`` for a problem found while
    listing. ``unit_to_item(unit)`` turns one unit into exactly one item; a Reject unit is
    returned as is. ``read()`` is their composition, so a build with workers and one
    without yield the same items in the same order.

    **Pickling.** The build sends the Source to forked worker processes by pickling it
    (with its first chunk of units). Everything in ``__dict__`` travels except the
    per-process cache, so a Source's state is its path and options plus whatever a
    subclass sets in ``__init__`` (which must be picklable).

    **Per-process cache** (:meth:`per_process`). State that is expensive to make and
    must not cross a process boundary - an opened fsspec file system, resolved licenses,
    parsed references of a task - is made on first use in each process and kept for
    that process only (for the life of the object there: a tree is taken not to change while
    it is read): it is dropped when the Source is pickled, and it is also dropped
    when the Source is used in a process other than the one that filled it (a fork that
    inherited the object), so a child never reuses its parent's open handles.
    """

    @abc.abstractmethod
    def read_units(self) -> Iterator[Any]:
        """One unit (or a Reject) per input record; cheap: list and split, do not check."""

    @abc.abstractmethod
    def unit_to_item(self, unit: Any) -> Item:
        """Exactly one item for ``unit``; never raise for bad input."""

    def read(self) -> Iterator[Item]:
        for unit in self.read_units():
            yield self.unit_to_item(unit)

    # ------------------------------------------------------------- the per-process cache
    def per_process(self, key: str, make: Callable[[], T]) -> T:
        """The value cached under ``key`` in this process, made with ``make()`` on first use."""
        cache = self._process_cache()
        if key not in cache:
            cache[key] = make()
        return cache[key]

    def _process_cache(self) -> dict:
        held = self.__dict__.get(_CACHE_ATTR)
        pid = os.getpid()
        if held is None or held[0] != pid:
            held = self.__dict__[_CACHE_ATTR] = (pid, {})
        return held[1]

    def __getstate__(self) -> dict:
        """The Source without its per-process cache (the receiving process makes its own)."""
        state = dict(self.__dict__)
        state.pop(_CACHE_ATTR, None)
        return state

    def line_files(self):
        """This process's reader of located lines (:class:`kvdata.builders.tables.LineFiles`)."""
        from kvdata.builders.tables import LineFiles

        return self.per_process("line_files", LineFiles)

    def tree(self) -> tuple[Any, str]:
        """(file system, root without a trailing ``/``) of ``self.path``, opened once per process."""
        def open_tree():
            fs, root = open_fs(self.path)
            return fs, root.rstrip("/") or "/"
        return self.per_process("tree", open_tree)


def located_lines(source: Source, fs, path: str, name: str) -> Iterator[Union[tuple, Reject]]:
    """``(name, line number, line)`` for each non-blank line of a JSONL file, the line located
    (:func:`kvdata.builders.tables.iter_lines`: read and decoded by ``unit_to_item``, in the build's
    workers); one Reject (``name`` as its ref) when the file cannot be read. Lines read before a read
    error stand: they are records the file does hold."""
    from kvdata.builders.tables import iter_lines

    try:
        for lineno, line in iter_lines(fs, path, locate=True):
            yield name, lineno, line
    except OSError as e:
        yield source.reject(name, RejectReason.UNREADABLE, f"{name}: {e}")


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
