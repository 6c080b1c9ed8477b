"""`kvdata audit-overlap`: parse arguments, call kvdata.audit, print a summary. No logic here."""
from __future__ import annotations

import click

from kvdata.cli import main


def _levels(text):
    if not text:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {text!r}")


@main.command("audit-overlap")
@click.option("--bench", "bench_name", required=True,
              type=click.Choice(["kernelbench", "tritonbench-g", "tritonbench-t", "rocmbench", "generic"]),
              help="Benchmark to audit against.")
@click.option("--bench-path", type=click.Path(exists=True), help="Local copy of the benchmark (else the Hub, kernelbench only).")
@click.option("--bench-version", default="v0.1", show_default=True, help="KernelBench version label (v0, v0.1).")
@click.option("--levels", help="KernelBench levels, e.g. 1,2.")
@click.option("--bench-id-column", default="id", show_default=True, help="generic: id column.")
@click.option("--bench-code-column", default="code", show_default=True, help="generic: code column.")
@click.option("--train", "train_path", type=click.Path(exists=True),
              help="Built folder, config folder or JSONL/parquet with id and code (default: the bundled sample).")
@click.option("--id-column", default="id", show_default=True)
@click.option("--code-column", default="code", show_default=True)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output folder.")
@click.option("--measures", default="lexical,semantic,structural", show_default=True,
              help="Comma-separated subset of lexical,semantic,structural.")
@click.option("--jaccard", type=float, help="Flag threshold for Jaccard (default 0.8).")
@click.option("--containment", type=float, help="Flag threshold for 13-gram containment (default 0.8).")
@click.option("--cosine", type=float, help="Flag threshold for embedding cosine (default 0.95).")
@click.option("--structural", type=float, help="Flag threshold for op-graph similarity (default 0.95).")
@click.option("--no-structural-veto", is_flag=True, help="Do not let different op-graphs cancel lexical/semantic flags.")
@click.option("--model", help="Embedding model (local path or Hub id); default all-MiniLM-L6-v2 (offline).")
@click.option("--device", help="Device for embeddings (default: cuda when present).")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Cache of embeddings and fingerprints.")
def audit_overlap(bench_name, bench_path, bench_version, levels, bench_id_column, bench_code_column, train_path,
                  id_column, code_column, out_dir, measures, jaccard, containment, cosine, structural,
                  no_structural_veto, model, device, cache_dir):
    """Measure train/test overlap between a benchmark and training rows; write pairs, summary and a report."""
    from kvdata.audit.benchmarks import load_benchmark
    from kvdata.audit.pairs import Thresholds
    from kvdata.audit.pipeline import run_audit, write_outputs
    from kvdata.audit.report import write_report
    from kvdata.audit.training import bundled_sample_rows, load_training

    options = {"version": bench_version, "levels": _levels(levels)} if bench_name == "kernelbench" else {}
    if bench_name == "generic":
        options = {"id_column": bench_id_column, "code_column": bench_code_column}
    try:
        items = load_benchmark(bench_name, bench_path, **options)
        train = (load_training(train_path, id_column=id_column, code_column=code_column) if train_path
                 else bundled_sample_rows())
        th = Thresholds()
        for name, value in (("jaccard", jaccard), ("containment", containment), ("cosine", cosine),
                            ("structural", structural)):
            if value is not None:
                setattr(th, name, value)
        if no_structural_veto:
            th.structural_veto = None
        result = run_audit(items, train, measures=[m.strip() for m in measures.split(",") if m.strip()],
                           thresholds=th, semantic_model=model, device=device, cache_dir=cache_dir)
    except (ValueError, FileNotFoundError, RuntimeError) as exc:
        raise click.ClickException(str(exc))
    paths = {**write_outputs(result, out_dir), **write_report(result, out_dir)}
    click.echo(f"{len(items)} benchmark items x {len(train)} training rows; measures: "
               f"{', '.join(result.measures_run)}")
    for note in result.notes:
        click.echo(f"note: {note}")
    click.echo(f"flagged pairs: {len(result.flagged)}; clean tasks: {len(result.clean_bench_ids())}/{len(items)}; "
               f"training rows removed: {len(result.flagged_train_ids())}")
    for name, path in paths.items():
        click.echo(f"  {name}: {path}")
