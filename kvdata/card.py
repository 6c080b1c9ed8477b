"""The dataset card (README.md), rendered from the written data and accounting.json.

Nothing in the card is typed by hand: :func:`collect_card_data` reads the parquet shards
(only the small columns: subset, language, license, provenance) and the ledger's
``accounting.json``, and the jinja2 template ``kvdata/cards/dataset_card.md.j2`` lays the
numbers out. The YAML front matter comes from :func:`kvdata.hub.card_metadata`.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from kvdata.hub import built_configs, card_metadata, config_num_bytes, render_front_matter, shard_files
from kvdata.ledger import read_accounting
from kvdata.schema import arrow_schema

TEMPLATE = "dataset_card.md.j2"
PROVENANCE_FIELDS = ("repo", "pipeline", "generator")
TOP_N = 25


@dataclass
class ConfigStats:
    """Counts of one written config."""

    name: str
    rows: int = 0
    shards: int = 0
    subsets: Counter = field(default_factory=Counter)
    languages: Counter = field(default_factory=Counter)
    licenses: Counter = field(default_factory=Counter)
    verified: int = 0                   # rows that carry an execution verification (``verification`` not null)
    provenance: dict[str, Counter] = field(default_factory=lambda: {f: Counter() for f in PROVENANCE_FIELDS})


def config_stats(out_dir: str | Path, config: str) -> ConfigStats:
    """Read the small columns of a config's shards and count them."""
    import pyarrow.parquet as pq

    stats = ConfigStats(config)
    names = set(arrow_schema(config).names)
    for shard in shard_files(out_dir, config):
        stats.shards += 1
        columns = [c for c in ("subset", "language", "license", "provenance", "verification") if c in names]
        table = pq.read_table(shard, columns=columns)
        stats.rows += table.num_rows
        if "verification" in names:
            stats.verified += table.num_rows - table.column("verification").null_count
        stats.subsets.update(table.column("subset").to_pylist())
        stats.licenses.update(table.column("license").to_pylist())
        if "language" in names:
            stats.languages.update(table.column("language").to_pylist())
        prov = table.column("provenance").combine_chunks()
        for f in PROVENANCE_FIELDS:
            stats.provenance[f].update(v if v else "(unknown)" for v in prov.field(f).to_pylist())
    return stats


def _top(counter: Counter, n: int = TOP_N) -> tuple[list[tuple[str, int]], int, int]:
    ordered = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    shown, rest = ordered[:n], ordered[n:]
    return shown, len(rest), sum(v for _, v in rest)


def collect_card_data(out_dir: str | Path, repo_id: Optional[str] = None) -> dict[str, Any]:
    """Everything the template needs, counted from the folder. ``repo_id``: the Hub repo the folder is pushed to
    (``kvdata push`` renders the card again with it); ``None`` for a local build, whose card loads the folder."""
    stats = [config_stats(out_dir, c) for c in built_configs(out_dir)]
    accounting = read_accounting(out_dir)
    all_licenses: Counter = Counter()
    for s in stats:
        all_licenses.update(s.licenses)
    meta = card_metadata({s.name: s.rows for s in stats}, all_licenses,
                         {s.name: config_num_bytes(out_dir, s.name) for s in stats})

    configs = [{
        "name": s.name, "rows": s.rows, "shards": s.shards, "verified": s.verified,
        "subsets": sorted(s.subsets), "languages": sorted(s.languages),
        "subset_counts": sorted(s.subsets.items()),
        "columns": [(f.name, str(f.type) if not str(f.type).startswith("struct") else
                     "struct(" + ", ".join(sub.name for sub in f.type) + ")")
                    for f in arrow_schema(s.name)],
    } for s in stats]

    licenses = [{"name": lic, "total": n, "per_config": [s.licenses.get(lic, 0) for s in stats]}
                for lic, n in sorted(all_licenses.items(), key=lambda kv: (-kv[1], kv[0]))]

    provenance = []
    for f in PROVENANCE_FIELDS:
        merged: Counter = Counter()
        for s in stats:
            merged.update(s.provenance[f])
        shown, more, more_rows = _top(merged)
        provenance.append({"field": f, "counts": shown, "more": more, "more_rows": more_rows})

    sources, reasons = [], []
    for name, acc in accounting["sources"].items():
        origin = {"repo": None, "commit": None, "dirty": None, "license": None, "license_full": None,
                  **(acc.get("origin") or {})}
        commit = origin["commit"] or ""
        origin["commit_short"] = commit[:12] if re.fullmatch(r"[0-9a-f]{40}", commit) else commit
        sources.append({**acc, "name": name, "origin": origin,
                        "dup_exact": acc["duplicates"].get("duplicate_exact", 0),
                        "dup_near": acc["duplicates"].get("duplicate_near", 0)})
        reasons.extend((name, reason, n) for reason, n in acc["rejected"].items())

    return {
        "front_matter": render_front_matter(meta).rstrip("\n"),
        "repo_id": repo_id,
        "total_rows": sum(s.rows for s in stats),
        "verified_rows": sum(s.verified for s in stats),
        "configs": configs,
        "licenses": licenses,
        "allow_license": accounting.get("settings", {}).get("allow_license", []),
        "provenance": provenance,
        "sources": sources,
        "totals": accounting["totals"],
        "reconciles": accounting["reconciles"],
        "reject_reasons": reasons,
        "settings": accounting.get("settings", {}) or {"near_dup_threshold": "?", "dedup": True},
    }


def render_card(out_dir: str | Path, repo_id: Optional[str] = None) -> str:
    """The README.md text of a built folder."""
    import importlib.resources

    import jinja2

    template_text = importlib.resources.files("kvdata.cards").joinpath(TEMPLATE).read_text()
    env = jinja2.Environment(keep_trailing_newline=True, trim_blocks=False, lstrip_blocks=False,
                             undefined=jinja2.StrictUndefined, autoescape=False)
    return env.from_string(template_text).render(**collect_card_data(out_dir, repo_id))


def write_card(out_dir: str | Path, repo_id: Optional[str] = None) -> Path:
    """Render and write ``out_dir/README.md``."""
    path = Path(out_dir) / "README.md"
    path.write_text(render_card(out_dir, repo_id))
    return path
