"""``croissant.json``: a built folder or an export described as Croissant 1.1 JSON-LD, with the RAI extension.

The Hub writes a Croissant file for every dataset, but its file carries only the schema and the files: none of
the Responsible-AI fields (where rows came from, under which licenses, what an overlap audit found, how many rows
were execution-verified). So every build and every export writes its own, next to README.md, built with
MLCommons' ``mlcroissant`` (the format's reference library: its node classes check each property as they are
made, and ``mlcroissant.Dataset`` reads the file back and streams its record sets).

Everything in the file is read from the folder, nothing is typed by hand:

- **distribution**: each parquet shard (and ``accounting.json``, ``rejects.parquet``, ``dataset_info.json``, an
  audit's ``audit.json`` inside the folder) as a ``FileObject`` with its sha256 and size; each config (or an
  export's splits) as a ``FileSet`` over its shards;
- **record sets**: one per config (an export: one, ``default``, with a ``split`` field taken from each file's
  name), the fields and types from the parquet schema; structs become sub-fields, lists ``isArray`` fields;
- **licenses**: the SPDX ids the rows' ``license`` expressions name, each with its spdx.org page;
- **RAI**: provenance (each source's repo, commit and counts from ``accounting.json``, rows per upstream repo,
  pipeline and generator), preprocessing (the build's checks, license allow-list and dedup; an export's filters),
  the verification state (rows carrying a ``verification`` record, how many correct, on which hardware), and
  known contamination (an ``audit-overlap`` report: the folder's ``audit/``, or the one an export filtered with);
- **PROV-O** (what Croissant 1.1 recommends for provenance): ``prov:wasDerivedFrom`` the upstream sources (an
  export: the corpus) and ``prov:wasGeneratedBy`` the kvdata command.

The package: :mod:`~kvdata.croissant.facts` reads the folder into a :class:`FolderDescription`,
:mod:`~kvdata.croissant.jsonld` renders it with mlcroissant, and this module writes and checks the file.

Paths in the file are relative to the folder and repositories are named by their ids: no local absolute path
is written. The dataset's ``url`` is its Hub page when a repo id is given, else ``.`` (the folder itself).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional, Sequence

from kvdata.croissant.facts import CROISSANT_FILE, FolderDescription, describe_build, describe_export
from kvdata.croissant.jsonld import to_jsonld

__all__ = ["CROISSANT_FILE", "FolderDescription", "describe_build", "describe_export", "to_jsonld", "write",
           "write_croissant", "write_export_croissant", "check"]


def write(folder: str | Path, d: FolderDescription) -> Path:
    """Write ``folder/croissant.json`` (through a temporary name, so that a reader never sees half a file)."""
    path = Path(folder) / CROISSANT_FILE
    tmp = path.with_name(CROISSANT_FILE + ".tmp")
    tmp.write_text(json.dumps(to_jsonld(d), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def write_croissant(folder: str | Path, repo_id: Optional[str] = None, audit: Optional[str | Path] = None,
                    version: Optional[str] = None) -> Path:
    """Describe a built folder and write its ``croissant.json`` (what ``kvdata build`` calls at the end)."""
    return write(folder, describe_build(folder, repo_id, audit, version))


def write_export_croissant(folder: str | Path, corpus: Optional[str | Path] = None, id_field: Sequence[str] = ("id",),
                           audit: Optional[str | Path] = None, verified: Optional[str | Path] = None,
                           repo_id: Optional[str] = None, version: Optional[str] = None) -> Path:
    """Describe an export folder and write its ``croissant.json`` (what ``kvdata export`` calls at the end; the
    arguments are :func:`describe_export`'s)."""
    return write(folder, describe_export(folder, corpus, id_field, audit, verified, repo_id, version))


def check(path: str | Path) -> list[str]:
    """Load ``path`` with ``mlcroissant.Dataset``, which raises ``mlcroissant.ValidationError`` on any error; the
    warnings it collected (e.g. a recommended property left out)."""
    import mlcroissant as mlc

    dataset = mlc.Dataset(jsonld=str(path))
    return sorted(dataset.metadata.ctx.issues.warnings)
