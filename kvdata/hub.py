"""The Hub folder: write ``data/<config>/train-*.parquet``, describe it in YAML, load it, push it.

Layout (what ``datasets.load_dataset(DIR, config)`` and the Hub viewer read)::

    DIR/README.md                                   YAML front matter (configs, license, sizes, features) + card
    DIR/data/<config>/train-00000-of-00002.parquet  zstd, schema.arrow_schema(config), ~rows_per_shard rows each
    DIR/accounting.json, DIR/rejects.parquet        written by the ledger

Shards are written while rows stream in (their count is unknown until the end), under a
temporary name, and renamed to ``train-XXXXX-of-NNNNN.parquet`` when the config closes.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from kvdata.schema import ALL_CONFIGS, arrow_schema

log = logging.getLogger(__name__)

DATA_DIR = "data"
SPLIT = "train"
_TMP_PREFIX = "partial-"
_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
#: What ``push`` uploads from a built folder.
PUSH_PATTERNS = ("README.md", "accounting.json", "rejects.parquet", "croissant.json", "data/*/*.parquet")


def config_dir(out_dir: str | Path, config: str) -> Path:
    return Path(out_dir) / DATA_DIR / config


def shard_files(out_dir: str | Path, config: str) -> list[Path]:
    """The finished shards of a config, in order."""
    return sorted(config_dir(out_dir, config).glob(f"{SPLIT}-*-of-*.parquet"))


def built_configs(out_dir: str | Path) -> list[str]:
    """Configs of a built folder that have at least one shard, in schema order."""
    return [c for c in ALL_CONFIGS if shard_files(out_dir, c)]


# ----------------------------------------------------------------- writing
@dataclass
class ConfigWriter:
    """Streams the rows of one config into zstd parquet shards of about ``rows_per_shard`` rows."""

    out_dir: Path
    config: str
    rows_per_shard: int = 50_000
    row_group_size: int = 5_000
    rows: int = 0
    _shards: list[Path] = field(default_factory=list)
    _writer: Any = None
    _in_shard: int = 0

    def __post_init__(self) -> None:
        self.schema = arrow_schema(self.config)

    def _open(self) -> None:
        import pyarrow.parquet as pq

        folder = config_dir(self.out_dir, self.config)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{_TMP_PREFIX}{len(self._shards):05d}.parquet"
        self._shards.append(path)
        self._writer = pq.ParquetWriter(path, self.schema, compression="zstd")
        self._in_shard = 0

    def write(self, table) -> None:
        """Append an Arrow table (already in this config's schema), splitting across shards."""
        start = 0
        while start < table.num_rows:
            if self._writer is None or self._in_shard >= self.rows_per_shard:
                self._close_shard()
                self._open()
            take = min(self.rows_per_shard - self._in_shard, table.num_rows - start)
            self._writer.write_table(table.slice(start, take), row_group_size=self.row_group_size)
            self._in_shard += take
            self.rows += take
            start += take

    def _close_shard(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def close(self) -> list[Path]:
        """Finish the last shard and give every shard its final ``train-i-of-n`` name."""
        self._close_shard()
        n = len(self._shards)
        final = []
        for i, tmp in enumerate(self._shards):
            path = tmp.with_name(f"{SPLIT}-{i:05d}-of-{n:05d}.parquet")
            tmp.replace(path)
            final.append(path)
        self._shards = []
        return final


def rows_to_table(rows: list[dict[str, Any]], config: str):
    """An Arrow table of row dicts in the config's schema (raises on a row that does not fit)."""
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=arrow_schema(config))


# ----------------------------------------------------------------- YAML metadata
def size_category(n: int) -> str:
    """The Hub's ``size_categories`` bucket of a row count."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                        (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")):
        if n < limit:
            return name
    return "10M<n<100M"


def corpus_license(licenses: Iterable[str]) -> str | list[str]:
    """The card's ``license`` field: the Hub license id of every SPDX id among the rows (one id as a string, several
    as a list), plus "other" when some row's license has no Hub id (an expression such as ``MIT OR Apache-2.0``,
    or an id the Hub does not list): only then does the card need ``license_name``.

    Per-row SPDX ids stay in the ``license`` column; the card lists them in a table.
    """
    hub_ids = {"MIT": "mit", "Apache-2.0": "apache-2.0", "BSD-3-Clause": "bsd-3-clause",
               "BSD-2-Clause": "bsd-2-clause", "CC0-1.0": "cc0-1.0", "CC-BY-4.0": "cc-by-4.0",
               "MPL-2.0": "mpl-2.0", "BSL-1.0": "bsl-1.0", "Unlicense": "unlicense", "ISC": "isc",
               "Zlib": "zlib", "0BSD": "0bsd", "NCSA": "ncsa", "UPL-1.0": "upl-1.0"}
    unique = sorted(set(licenses))
    ids = sorted({hub_ids[u] for u in unique if u in hub_ids}) + (["other"] if any(u not in hub_ids for u in unique)
                                                                    else [])
    return ids[0] if len(ids) == 1 else ids


def features_yaml(config: str) -> list[dict[str, Any]]:
    """The ``dataset_info.features`` list of a config, as ``datasets`` writes it."""
    from kvdata.schema import features

    return features(config)._to_yaml_list()


def card_metadata(counts: dict[str, int], licenses: Iterable[str], num_bytes: Optional[dict[str, int]] = None
                  ) -> dict[str, Any]:
    """The README's YAML front matter for configs with ``counts[config]`` rows."""
    configs = [c for c in ALL_CONFIGS if counts.get(c)]
    total = sum(counts[c] for c in configs)
    license_ids = sorted(set(licenses))
    meta: dict[str, Any] = {
        "license": corpus_license(license_ids),
        "pretty_name": "AMDKernelVault",
        "size_categories": [size_category(total)],
        "task_categories": ["text-generation"],
        "language": ["en"],
        "tags": ["code", "gpu-kernels", "hip", "rocm", "triton", "amd", "pytorch", "kernelbench"],
        "configs": [{"config_name": c,
                     "data_files": [{"split": SPLIT, "path": f"{DATA_DIR}/{c}/*.parquet"}]} for c in configs],
        "dataset_info": [{"config_name": c, "features": features_yaml(c),
                          "splits": [{"name": SPLIT, "num_examples": counts[c],
                                      **({"num_bytes": num_bytes[c]} if num_bytes and c in num_bytes else {})}]}
                         for c in configs],
    }
    if "other" in ([meta["license"]] if isinstance(meta["license"], str) else meta["license"]):
        meta["license_name"] = "per-row-spdx"
        meta["license_details"] = ("Each row carries its own SPDX license id in the `license` column: "
                                   + ", ".join(license_ids))
    return meta


def render_front_matter(meta: dict[str, Any]) -> str:
    import yaml

    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000) + "---\n"


def read_front_matter(out_dir: str | Path) -> dict[str, Any]:
    """The YAML front matter of a built folder's README.md."""
    import yaml

    text = (Path(out_dir) / "README.md").read_text()
    if not text.startswith("---\n"):
        return {}
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end]) or {}


# ----------------------------------------------------------------- loading
HUB_PROBE_TIMEOUT_S = 5.0


def resolve_data(source: str | Path, option: str = "--data") -> Path | str:
    """A ``--data`` value as a local folder (a ``Path``) or a Hub dataset id (a ``str``), never sending a local
    path to the Hub.

    A value that exists locally is a path. One that does not is a Hub id only if it has the Hub's ``org/name``
    form and does not start in a folder that exists here (``out/smaple`` is a typo of a path, not a repo);
    anything else is a missing folder, said at once. A Hub id is checked before ``datasets`` retries for half a
    minute: with ``HF_HUB_OFFLINE=1`` it fails at once, and without a network in a few seconds, one line each.
    """
    path = Path(source).expanduser()
    if path.exists():
        return path
    text = str(source)
    first = Path(text).parts[0] if Path(text).parts else ""
    if not _REPO_ID.match(text) or Path(first).is_dir() or text.startswith((".", "~", "/")):
        raise FileNotFoundError(f"{option} {text}: no such folder")
    require_hub(f"{option} {text}: not a local folder, and", "give a built folder (kvdata build --out DIR), or "
                "retry when online")
    return text


def require_hub(context: str, fix: str) -> None:
    """Raise ``ConnectionError("<context> the Hub ... ; <fix>")`` at once with ``HF_HUB_OFFLINE=1``, and after one
    connection attempt (no retries, seconds) when the Hub's endpoint cannot be reached: what every command checks
    before it asks the Hub for anything, instead of letting a client retry for half a minute."""
    import os

    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise ConnectionError(f"{context} HF_HUB_OFFLINE is set, so the Hub is not asked; {fix}")
    import socket
    from urllib.parse import urlparse

    from huggingface_hub import constants

    url = urlparse(constants.ENDPOINT)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname or "", port), timeout=HUB_PROBE_TIMEOUT_S).close()
    except OSError as e:
        raise ConnectionError(f"{context} the Hub ({url.hostname}) cannot be reached ({e.strerror or e}); "
                              f"{fix}") from None


class CorruptShard(ValueError):
    """A shard of a built folder that is not readable parquet (a truncated download, a disk error)."""


def check_shards(folder: Path, config: str) -> None:
    """Every shard of ``config`` in a built folder opens as parquet (its footer is read), or one line names it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kvdata.errors import unreadable_parquet

    for shard in shard_files(folder, config):
        try:
            pq.ParquetFile(shard).close()
        except (pa.ArrowException, OSError) as e:
            raise unreadable_parquet(shard, e, CorruptShard, "rebuild the folder with `kvdata build`") from None


def load_config(source: str | Path, config: str, split: str = SPLIT, option: str = "--data", **kwargs):
    """A config as a ``datasets.Dataset`` from a built folder or a Hub id (see :func:`resolve_data`)."""
    import datasets

    if config not in ALL_CONFIGS:
        raise ValueError(f"unknown config {config!r}; expected one of {', '.join(ALL_CONFIGS)}")
    where = resolve_data(source, option)
    if isinstance(where, Path):
        if not where.is_dir():
            raise ValueError(f"{option} {where} is a file; give a built folder (data/<config>/*.parquet)")
        if not shard_files(where, config):
            raise FileNotFoundError(f"{where} has no data for config {config!r} "
                                    f"(configs there: {', '.join(built_configs(where)) or 'none'})")
        check_shards(where, config)
        return datasets.load_dataset(str(where), config, split=split, **kwargs)
    try:
        return datasets.load_dataset(where, config, split=split, **kwargs)
    except ValueError as e:
        if "config" in str(e).lower() or "BuilderConfig" in str(e):
            raise ValueError(f"{option} {where} on the Hub has no config {config!r} (a raw release tree has "
                             "none: download it and run `kvdata build --source release=DIR --out DIR`)") from None
        raise


# ----------------------------------------------------------------- pushing
def files_to_push(out_dir: str | Path) -> list[str]:
    """Relative paths ``push`` uploads; raises if the folder is not a built corpus."""
    out = Path(out_dir)
    if not out.is_dir():
        raise FileNotFoundError(f"{out} is not a folder")
    if not (out / "README.md").is_file() or not built_configs(out):
        raise FileNotFoundError(f"{out} is not a built corpus (needs README.md and data/<config>/*.parquet; "
                                "run `kvdata build --out DIR` first)")
    files = set()
    for pattern in PUSH_PATTERNS:
        files.update(str(p.relative_to(out)) for p in out.glob(pattern) if p.is_file())
    return sorted(files)


def validate_repo_id(repo_id: str) -> str:
    if not isinstance(repo_id, str) or not _REPO_ID.match(repo_id):
        raise ValueError(f"repo id must look like OWNER/NAME, got {repo_id!r}")
    return repo_id


def push(out_dir: str | Path, repo_id: str, token: Optional[str] = None, private: bool = False,
         dry_run: bool = False, commit_message: str = "Upload AMDKernelVault build") -> list[str]:
    """Upload a built folder as a Hub dataset repo; returns the uploaded files.

    ``dry_run`` validates and lists without touching the network. The README uploaded is the card rendered again
    for ``repo_id`` (its "How to load" names the repo); the folder's own README is left as it is. Without a
    network, one line says so in seconds (no retry loop).
    """
    validate_repo_id(repo_id)
    files = files_to_push(out_dir)
    if dry_run:
        return files
    from huggingface_hub import CommitOperationAdd, HfApi

    require_hub(f"cannot push to {repo_id}:", "nothing was uploaded; retry when online (--dry-run lists the files)")
    operations = [CommitOperationAdd(path_in_repo=f, path_or_fileobj=content)
                  for f, content in upload_contents(out_dir, repo_id, files).items()]
    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    api.create_commit(repo_id=repo_id, repo_type="dataset", operations=operations, commit_message=commit_message)
    return files


def upload_contents(out_dir: str | Path, repo_id: str, files: Optional[list[str]] = None) -> dict[str, Any]:
    """What ``push`` uploads, by path in the repo: a local file's path, or the bytes of the card and of
    croissant.json rendered again for ``repo_id`` (its id in "How to load" and in the dataset url). The folder's
    own copies stay as they are."""
    from kvdata.card import render_card
    from kvdata.croissant import CROISSANT_FILE, describe_build, to_jsonld

    out = Path(out_dir)
    rendered = {"README.md": render_card(out, repo_id),
                CROISSANT_FILE: json.dumps(to_jsonld(describe_build(out, repo_id)), indent=1, ensure_ascii=False)}
    contents: dict[str, Any] = {f: str(out / f) for f in (files or files_to_push(out)) if f not in rendered}
    contents.update({f: text.encode("utf-8") for f, text in rendered.items()})
    return contents


def config_row_count(out_dir: str | Path, config: str) -> int:
    """Rows of a written config, from the parquet footers (no data read)."""
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(p).metadata.num_rows for p in shard_files(out_dir, config))


def config_num_bytes(out_dir: str | Path, config: str) -> int:
    """Uncompressed size of a written config, from the parquet footers (the card's ``num_bytes``)."""
    import pyarrow.parquet as pq

    total = 0
    for p in shard_files(out_dir, config):
        meta = pq.ParquetFile(p).metadata
        total += sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    return total
