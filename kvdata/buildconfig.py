"""What a build reads and how it filters: sources, license allow-list, dedup thresholds.

A build is described by a :class:`BuildConfig`, made from command-line arguments, a YAML
file, the bundled sample, or all three (file first, then the command line adds sources
and overrides settings). Problems in the description (an unknown kind, a path that does
not exist, a malformed ``KIND=PATH``) raise :class:`BuildConfigError` with a message a
user can act on; the CLI turns it into exit code 2.

YAML form::

    sources:
      - {kind: triton_table, path: data/kernels.jsonl, options: {license: MIT}}
      - {kind: hip2hip, path: /data/hip2hip}
    allow_license: [MIT, Apache-2.0]      # default: kvdata.licenses.DEFAULT_ALLOW
    near_dup_threshold: 0.9               # default: kvdata.dedup.DEFAULT_NEAR_DUP_THRESHOLD
    dedup: true
    rows_per_shard: 50000

Relative source paths in a YAML file are resolved against the file's folder.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Optional

import yaml

from kvdata.builders.base import SourceSpec
from kvdata.dedup import DEFAULT_NEAR_DUP_THRESHOLD, DEFAULT_NUM_PERM, DEFAULT_SHINGLE

DEFAULT_ROWS_PER_SHARD = 50_000
DEFAULT_BATCH_SIZE = 4_000


def default_workers() -> int:
    """In-process by default: workers (builders, checks, fingerprints) pay off only when cores are
    idle for them (on the shared 2-core box they measured slower; see docs/notes/build-pipeline.md).
    ``KVDATA_BUILD_WORKERS`` overrides."""
    return int(os.environ.get("KVDATA_BUILD_WORKERS", "0"))


class BuildConfigError(ValueError):
    """A build description that cannot be run; the message says what to fix."""


@dataclass
class BuildConfig:
    sources: list[SourceSpec] = field(default_factory=list)
    allow_license: Optional[frozenset[str]] = None      # None: kvdata.licenses.DEFAULT_ALLOW
    near_dup_threshold: float = DEFAULT_NEAR_DUP_THRESHOLD
    dedup: bool = True
    num_perm: int = DEFAULT_NUM_PERM
    shingle: int = DEFAULT_SHINGLE
    rows_per_shard: int = DEFAULT_ROWS_PER_SHARD
    batch_size: int = DEFAULT_BATCH_SIZE
    #: worker processes that fingerprint batches (normalise + MinHash) while the main process
    #: reads; 0 does it in-process. The output does not depend on it.
    workers: int = field(default_factory=lambda: default_workers())

    def allow_list(self) -> frozenset[str]:
        from kvdata.licenses import DEFAULT_ALLOW

        return DEFAULT_ALLOW if self.allow_license is None else self.allow_license

    def settings(self) -> dict[str, Any]:
        """The settings recorded in accounting.json (everything except the sources)."""
        return {
            "allow_license": sorted(self.allow_list()),
            "near_dup_threshold": self.near_dup_threshold,
            "dedup": self.dedup,
            "num_perm": self.num_perm,
            "shingle": self.shingle,
            "rows_per_shard": self.rows_per_shard,
        }

    def validate(self) -> "BuildConfig":
        """Raise BuildConfigError for unknown kinds, missing local paths or bad thresholds."""
        from kvdata.builders import SOURCES

        if not self.sources:
            raise BuildConfigError("no sources: pass --sample, --source KIND=PATH or --config FILE")
        from kvdata.builders.revision import split_revision

        for spec in self.sources:
            if spec.kind not in SOURCES:
                raise BuildConfigError(f"unknown source kind {spec.kind!r}; known kinds: {', '.join(sorted(SOURCES))}")
            path, _ = split_revision(spec.path)          # KIND=PATH@REV names a revision of PATH
            if "://" not in path and not os.path.exists(path):
                raise BuildConfigError(f"source {spec.kind}: path {path} does not exist")
        for spec in self.sources:
            check_options(spec)
        self.sources = expand_sources(self.sources)
        if not 0.0 < self.near_dup_threshold <= 1.0:
            raise BuildConfigError(f"near-dup threshold must be in (0, 1], got {self.near_dup_threshold}")
        if self.rows_per_shard < 1 or self.batch_size < 1:
            raise BuildConfigError("rows_per_shard and batch_size must be positive")
        return self


def check_options(spec: SourceSpec) -> None:
    """Make the Source once so an unknown or malformed option fails before the build starts.

    Builders raise TypeError/ValueError for option mistakes when they are made (not when they
    read), so this costs no input I/O.
    """
    from kvdata.builders import source_class

    try:
        cls = source_class(spec.kind)
    except ImportError as e:
        raise BuildConfigError(f"source kind {spec.kind!r} cannot be imported: {e}") from None
    try:
        cls(spec.path, **dict(spec.options))
    except (TypeError, ValueError) as e:
        raise BuildConfigError(f"source {spec.kind}={spec.path}: {e}") from None


def expand_sources(specs: list[SourceSpec]) -> list[SourceSpec]:
    """Each spec whose kind reads through others (``release``: one Source per subset it finds) replaced by
    those; the others as they are."""
    from kvdata.builders import source_class

    out: list[SourceSpec] = []
    for spec in specs:
        expand = getattr(source_class(spec.kind), "expand", None)
        if expand is None:
            out.append(spec)
            continue
        try:
            out.extend(expand(spec))
        except ValueError as e:
            raise BuildConfigError(str(e)) from None
    return out


# ----------------------------------------------------------------- parsing pieces
def parse_source_arg(text: str) -> SourceSpec:
    """``KIND=PATH`` -> SourceSpec."""
    kind, sep, path = text.partition("=")
    if not sep or not kind.strip() or not path.strip():
        raise BuildConfigError(f"--source expects KIND=PATH, got {text!r}")
    return SourceSpec(kind=kind.strip(), path=path.strip())


def parse_option_arg(text: str) -> tuple[str, str, Any]:
    """``KIND.key=value`` -> (kind, key, value); the value is read as YAML (numbers, booleans, lists)."""
    lhs, sep, raw = text.partition("=")
    kind, dot, key = lhs.partition(".")
    if not sep or not dot or not kind.strip() or not key.strip():
        raise BuildConfigError(f"--option expects KIND.key=value, got {text!r}")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw
    return kind.strip(), key.strip(), value


def with_options(spec: SourceSpec, options: dict[str, Any]) -> SourceSpec:
    merged = dict(spec.options)
    merged.update(options)
    return replace(spec, options=tuple(sorted(merged.items())))


def specs_from_list(entries: Any, base_dir: Path, where: str) -> list[SourceSpec]:
    """The ``sources:`` list of a YAML file (or a sample's sources.yaml) as SourceSpecs."""
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise BuildConfigError(f"{where}: `sources` must be a list of {{kind, path, options}}")
    specs = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or "kind" not in entry or "path" not in entry:
            raise BuildConfigError(f"{where}: source #{i} needs `kind` and `path`, got {entry!r}")
        options = entry.get("options") or {}
        if not isinstance(options, dict):
            raise BuildConfigError(f"{where}: source #{i} `options` must be a mapping")
        path = str(entry["path"])
        if "://" not in path and not os.path.isabs(path):
            path = str((base_dir / path).resolve())
        specs.append(SourceSpec(kind=str(entry["kind"]), path=path, options=tuple(sorted(options.items()))))
    return specs


def _load_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise BuildConfigError(f"config file {path} does not exist") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1}: {getattr(e, 'problem', '') or 'syntax'})" \
            if mark is not None else ""
        raise BuildConfigError(f"config file {path} is not valid YAML{where}") from None


# ----------------------------------------------------------------- the bundled sample
def sample_root() -> Path:
    """The bundled sample folder, found through the installed package (not a relative path)."""
    import kvdata.builders

    for root in kvdata.builders.__path__:
        candidate = Path(root) / "sample"
        if candidate.is_dir():
            return candidate
    raise BuildConfigError("the bundled sample (kvdata/builders/sample) is not installed")


def sample_specs() -> list[SourceSpec]:
    """Every ``sample/*/sources.yaml``, in folder-name order (a stable order keeps dedup winners stable)."""
    specs: list[SourceSpec] = []
    for listing in sorted(sample_root().glob("*/sources.yaml")):
        specs.extend(specs_from_list(_load_yaml(listing), listing.parent, str(listing)))
    if not specs:
        raise BuildConfigError(f"no sources.yaml under {sample_root()}")
    return specs


# ----------------------------------------------------------------- assembling a config
def load_config_file(path: str | Path) -> BuildConfig:
    path = Path(path)
    data = _load_yaml(path) or {}
    if not isinstance(data, dict):
        raise BuildConfigError(f"config file {path}: expected a mapping with `sources:`")
    known = {"sources", "allow_license", "near_dup_threshold", "dedup", "num_perm", "shingle",
             "rows_per_shard", "batch_size", "workers", "sample"}
    unknown = set(data) - known
    if unknown:
        raise BuildConfigError(f"config file {path}: unknown keys {sorted(unknown)}; known: {sorted(known)}")
    cfg = BuildConfig(sources=specs_from_list(data.get("sources"), path.parent.resolve(), str(path)))
    if data.get("sample"):
        cfg.sources = sample_specs() + cfg.sources
    if data.get("allow_license") is not None:
        cfg.allow_license = _allow_set(data["allow_license"])
    for key in ("near_dup_threshold",):
        if key in data:
            setattr(cfg, key, float(data[key]))
    for key in ("num_perm", "shingle", "rows_per_shard", "batch_size", "workers"):
        if key in data:
            setattr(cfg, key, int(data[key]))
    if "dedup" in data:
        cfg.dedup = bool(data["dedup"])
    return cfg


def _allow_set(items: Iterable[str]) -> frozenset[str]:
    """The allow-list as canonical SPDX ids (or ``A WITH E``); a common name ("Apache License 2.0")
    is accepted for an id, an entry that names no license is a BuildConfigError."""
    from kvdata.licenses import declared_expression

    if isinstance(items, str):
        items = [items]
    out = set()
    for item in items:
        spdx = declared_expression(item) if isinstance(item, str) else None
        if spdx is None or " AND " in spdx or " OR " in spdx:
            raise BuildConfigError(f"allow-list entry {item!r} is not a known SPDX license id")
        out.add(spdx)
    return frozenset(out)


def make_build_config(
    *,
    config_file: Optional[str] = None,
    sample: bool = False,
    sources: Iterable[str] = (),
    options: Iterable[str] = (),
    allow_license: Iterable[str] = (),
    near_dup_threshold: Optional[float] = None,
    no_dedup: bool = False,
    rows_per_shard: Optional[int] = None,
    workers: Optional[int] = None,
) -> BuildConfig:
    """The BuildConfig of ``kvdata build``'s arguments, validated."""
    cfg = load_config_file(config_file) if config_file else BuildConfig()
    if sample:
        cfg.sources = sample_specs() + cfg.sources
    cfg.sources = cfg.sources + [parse_source_arg(s) for s in sources]
    by_kind: dict[str, dict[str, Any]] = {}
    for text in options:
        kind, key, value = parse_option_arg(text)
        by_kind.setdefault(kind, {})[key] = value
    for kind in by_kind:
        if not any(spec.kind == kind for spec in cfg.sources):
            raise BuildConfigError(f"--option names kind {kind!r}, but no source of that kind is in the build")
    cfg.sources = [with_options(s, by_kind[s.kind]) if s.kind in by_kind else s for s in cfg.sources]
    allow = list(allow_license)
    if allow:
        cfg.allow_license = _allow_set(allow)
    if near_dup_threshold is not None:
        cfg.near_dup_threshold = float(near_dup_threshold)
    if no_dedup:
        cfg.dedup = False
    if rows_per_shard is not None:
        cfg.rows_per_shard = int(rows_per_shard)
    if workers is not None:
        cfg.workers = int(workers)
    return cfg.validate()
