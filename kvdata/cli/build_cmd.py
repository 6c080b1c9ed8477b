"""`kvdata build`, `kvdata push`, `kvdata info`, `kvdata sources`: parse, call the library, print."""
from __future__ import annotations

import json
import logging

import click

from kvdata.cli import main


def _fail(message: str) -> None:
    """Exit code 2 with a one-line message (click's usage-error convention), no traceback."""
    raise click.UsageError(message)


@main.command("build")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder to write (data/<config>/*.parquet, README.md, accounting.json, rejects.parquet).")
@click.option("--sample", is_flag=True, help="Build the bundled sample (every builders/sample/*/sources.yaml).")
@click.option("--source", "sources", multiple=True, metavar="KIND=PATH",
              help="A raw upstream layout to read; repeatable. `kvdata sources` lists the kinds.")
@click.option("--option", "options", multiple=True, metavar="KIND.key=value",
              help="An option for every source of KIND (value read as YAML); repeatable.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False),
              help="A YAML build file: sources, allow_license, near_dup_threshold, dedup, rows_per_shard.")
@click.option("--allow-license", "allow_license", multiple=True, metavar="SPDX",
              help="Allow-list of SPDX ids (repeatable); replaces the default permissive list.")
@click.option("--near-dup-threshold", type=float, default=None,
              help="Estimated Jaccard at/above which a kernel is a near duplicate of a kept kernel for the same reference (default 0.85).")
@click.option("--no-dedup", is_flag=True, help="Keep exact and near duplicates (ids stay unique).")
@click.option("--rows-per-shard", type=int, default=None, help="Rows per parquet shard (default 50000).")
@click.option("--workers", type=int, default=None,
              help="Worker processes that run the builders, checks and fingerprints while the main process reads (default 0: all in-process; 2 is faster on an idle 2-core machine). The output does not depend on it.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@click.option("--allow-empty", is_flag=True, help="Write the folder even when the build keeps no row (default: an "
                                                  "error, nothing written).")
def build_command(out_dir, sample, sources, options, config_file, allow_license, near_dup_threshold, no_dedup,
                  rows_per_shard, workers, quiet, allow_empty):
    """Build a Hub-ready corpus folder from raw upstream layouts.

    \b
    Examples:
      kvdata build --sample --out build/
      kvdata build --source release=AIG-Datasets/ --out build/      # AMD's release as downloaded (folder or .tar)
      kvdata build --source triton_table=kernels.jsonl --option triton_table.license=MIT --out build/
      kvdata build --config build.yaml --allow-license MIT --allow-license Apache-2.0 --out build/
    """
    from kvdata.buildconfig import BuildConfigError, make_build_config
    from kvdata.pipeline import build

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        cfg = make_build_config(config_file=config_file, sample=sample, sources=sources, options=options,
                                allow_license=allow_license, near_dup_threshold=near_dup_threshold,
                                no_dedup=no_dedup, rows_per_shard=rows_per_shard, workers=workers)
    except BuildConfigError as e:
        _fail(str(e))
    result = build(cfg, out_dir, progress=not quiet, allow_empty=allow_empty)
    click.echo(_accounting_table(result.accounting))
    click.echo(f"\nwrote {sum(result.rows.values())} rows to {out_dir} "
               f"({', '.join(f'{c}: {n}' for c, n in sorted(result.rows.items()))})")
    if not result.accounting["reconciles"]:
        raise click.ClickException("accounting does not reconcile; see accounting.json")


@main.command("push")
@click.argument("out_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--repo", "repo_id", required=True, help="Hub dataset repo id, OWNER/NAME.")
@click.option("--token", default=None, help="Hub token (default: the logged-in token / HF_TOKEN).")
@click.option("--private", is_flag=True, help="Create the repo private.")
@click.option("--dry-run", is_flag=True, help="List what would be uploaded; no network.")
def push_command(out_dir, repo_id, token, private, dry_run):
    """Upload a built folder to the Hugging Face Hub as a dataset repo.

    \b
    Example:
      kvdata push build/ --repo my-org/AMDKernelVault --private
    """
    from kvdata.hub import push

    try:
        files = push(out_dir, repo_id, token=token, private=private, dry_run=dry_run)
    except (ValueError, FileNotFoundError) as e:
        _fail(str(e))
    verb = "would upload" if dry_run else "uploaded"
    click.echo(f"{verb} {len(files)} files to datasets/{repo_id}:")
    for f in files:
        click.echo(f"  {f}")


@main.command("info")
@click.argument("out_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print accounting.json as is.")
def info_command(out_dir, as_json):
    """Show a built folder: rows per config and the per-source accounting.

    \b
    Example:
      kvdata info build/
    """
    from kvdata.hub import built_configs, check_shards, config_row_count
    from kvdata.ledger import read_accounting

    try:
        accounting = read_accounting(out_dir)
    except FileNotFoundError:
        _fail(f"{out_dir} has no accounting.json; is it a `kvdata build` folder?")
    except ValueError:
        raise click.ClickException(f"{out_dir}/accounting.json is not valid JSON; rebuild the folder with "
                                   "`kvdata build`") from None
    if not isinstance(accounting, dict) or not {"sources", "totals"} <= set(accounting):
        raise click.ClickException(f"{out_dir}/accounting.json is not a build's accounting (no sources/totals); "
                                   "is it a `kvdata build` folder? rebuild it with `kvdata build`")
    for config in built_configs(out_dir):
        check_shards(out_dir, config)
    if as_json:
        click.echo(json.dumps(accounting, indent=2))
        return
    click.echo("config           rows")
    for config in built_configs(out_dir):
        click.echo(f"{config:<14} {config_row_count(out_dir, config):>6}")
    click.echo("")
    click.echo(_accounting_table(accounting))


@main.command("sources")
@click.option("--inspect", "inspect_path", metavar="PATH",
              help="Walk PATH (a folder, a downloaded release, or a .tar/.tar.gz) and say, per folder, which kind "
                   "reads it, how many records it finds, the files and keys seen and what is missing.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the kinds, or the --inspect reports).")
def sources_command(inspect_path, as_json):
    """List the source kinds `kvdata build --source KIND=PATH` accepts, or inspect a tree before a build.

    \b
    Examples:
      kvdata sources
      kvdata sources --inspect AIG-Datasets/             # a downloaded release: what would each kind read?
      kvdata sources --inspect hip_opt_release.tar.gz --json
    """
    from kvdata.builders import SOURCES, source_class

    if inspect_path:
        _inspect(inspect_path, as_json)
        return
    kinds = []
    for kind in SOURCES:
        try:
            cls = source_class(kind)
            config, description = cls.config, (cls.description or (cls.__doc__ or "").strip().splitlines()[0])
        except Exception as e:  # a builder that does not import still gets listed
            config, description = "?", f"(unavailable: {e})"
        kinds.append({"kind": kind, "config": config, "description": description})
    if as_json:
        click.echo(json.dumps(kinds, indent=2))
        return
    for k in kinds:
        click.echo(f"{k['kind']:<20} -> {k['config']:<14} {k['description']}")


def _inspect(path: str, as_json: bool) -> None:
    import os

    from kvdata.builders.inspect import inspect_tree

    if "://" not in path and not os.path.exists(path):
        _fail(f"{path} does not exist")
    try:
        reports = inspect_tree(path)
    except Exception as e:  # noqa: BLE001 - the one input is the path: a broken archive, an unreadable file
        from kvdata.errors import one_line

        raise click.ClickException(f"{path}: cannot be read as a folder or a tar archive ({one_line(e)})") from None
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in reports], indent=2))
        return
    if not reports:
        click.echo(f"no folder under {path} looks like a layout kvdata reads; `kvdata sources` lists the kinds")
        return
    for r in reports:
        where = f"   --source {r.kind}={r.source}" if r.kind else ""
        click.echo(f"{r.path}\n  kind: {r.kind or '-'}   records: {r.records}{where}")
        if r.patterns:
            click.echo("  files: " + ", ".join(f"{p} ({n})" for p, n in r.patterns.items()))
        if r.keys:
            click.echo("  keys: " + ", ".join(r.keys))
        for line in r.missing:
            click.echo(f"  missing: {line}")
        if r.note:
            click.echo(f"  note: {r.note}")


def _accounting_table(accounting: dict) -> str:
    """The per-source accounting as fixed-width text (the source column as wide as its longest name)."""
    width = max([24] + [len(name) for name in accounting["sources"]])
    header = (f"{'source':<{width}} {'config':<14} {'input':>7} {'kept':>7} {'rejected':>8} {'dups':>6}  ok  "
              f"rejected by reason")
    lines = [header, "-" * len(header)]
    for name, s in accounting["sources"].items():
        reasons = ", ".join(f"{r}={n}" for r, n in s["rejected"].items())
        lines.append(f"{name:<{width}} {s['config']:<14} {s['input']:>7} {s['kept']:>7} {s['rejected_total']:>8} "
                     f"{s['duplicates_total']:>6}  {'yes' if s['reconciles'] else 'NO':<3} {reasons}")
    t = accounting["totals"]
    lines.append(f"{'total':<{width}} {'':<14} {t['input']:>7} {t['kept']:>7} {t['rejected']:>8} {t['duplicates']:>6}  "
                 f"{'yes' if accounting['reconciles'] else 'NO'}")
    return "\n".join(lines)
