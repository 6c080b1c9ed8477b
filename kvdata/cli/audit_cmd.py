"""`kvdata audit-overlap`: parse arguments, call kvdata.audit, print a summary. No logic here."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from kvdata.audit.benchmarks import BENCHMARKS
from kvdata.cli import main

_MEASURES = "lexical,semantic,structural,kernel,behavioural"
_EXAMPLES = """
\b
Measures (--measures, all on by default):
  lexical      MinHash/LSH Jaccard of 5-token shingles and 13-gram containment, identifiers renamed
  semantic     chunked sentence-embedding cosine (ONNX int8 on a CPU, fp16 on a GPU)
  structural   ATen op-graph similarity and containment (sandboxed make_fx on fake tensors)
  kernel       each @triton.jit kernel against each training kernel (Jaccard, containment, AST form)
  behavioural  both references run in the sandbox on shared probe inputs (candidate pairs only)

\b
Outputs in --out: pairs.parquet, summary.parquet, coverage.parquet (why a row was not traced or
probed), train_decontaminated.parquet, clean_tasks.txt, audit.json, report.md, report.html.

\b
Examples:
  kvdata audit-overlap --bench kernelbench --bench-path kernelbench_v0.1.jsonl --train out/sample --out audit
  kvdata audit-overlap --bench tritonbench-g --bench-path TritonBench_G_v1.json --train mined.parquet \\
      --code-column code --out audit_tb --cache-dir ~/.cache/kvdata-audit
  kvdata audit-overlap --bench kernelbench --train rows.jsonl --out a --measures lexical,behavioural \\
      --threshold behavioural=0.99 --executor ray --ray-address auto --json
"""


def _levels(text):
    if not text:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {text!r}")


def _thresholds(pairs, named: dict, no_structural_veto: bool, no_behavioural_veto: bool):
    from kvdata.audit.pairs import Thresholds

    th = Thresholds()
    settings = dict(named)
    for text in pairs:
        name, sep, value = text.partition("=")
        if not sep:
            raise click.BadParameter(f"expected NAME=VALUE, got {text!r}", param_hint="--threshold")
        try:
            settings[name.strip()] = float(value)
        except ValueError:
            raise click.BadParameter(f"{value!r} is not a number", param_hint="--threshold")
    for name, value in settings.items():
        if value is None:
            continue
        if name not in th.as_dict():
            raise click.BadParameter(f"unknown threshold {name!r}; known: {', '.join(th.as_dict())}",
                                     param_hint="--threshold")
        setattr(th, name, value)
    if no_structural_veto:
        th.structural_veto = None
    if no_behavioural_veto:
        th.behavioural_veto = None
    return th


@main.command("audit-overlap", epilog=_EXAMPLES)
@click.option("--bench", "bench_name", required=True, type=click.Choice(list(BENCHMARKS)),
              help="Benchmark to audit against.")
@click.option("--bench-path", type=click.Path(exists=True),
              help="Local copy of the benchmark (else the Hub, kernelbench only).")
@click.option("--bench-version", default="v0.1", show_default=True, help="KernelBench version label (v0, v0.1).")
@click.option("--levels", help="KernelBench levels, e.g. 1,2.")
@click.option("--bench-id-column", default="id", show_default=True, help="generic: id column.")
@click.option("--bench-code-column", default="code", show_default=True, help="generic: code column.")
@click.option("--train", "train_path", type=click.Path(exists=True),
              help="Built folder, config folder or JSONL/parquet with id and code (default: the bundled sample).")
@click.option("--id-column", default="id", show_default=True)
@click.option("--code-column", default="code", show_default=True)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output folder.")
@click.option("--measures", default=_MEASURES, show_default=True, help="Comma-separated subset of the measures.")
@click.option("--jaccard", type=float, help="Flag threshold for Jaccard (default 0.8).")
@click.option("--containment", type=float, help="Flag threshold for 13-gram containment (default 0.8).")
@click.option("--cosine", type=float, help="Flag threshold for embedding cosine (default 0.95).")
@click.option("--structural", type=float, help="Flag threshold for op-graph similarity (default 0.95).")
@click.option("--threshold", "threshold_pairs", multiple=True, metavar="NAME=VALUE",
              help="Any threshold, e.g. behavioural=0.99 or kernel_jaccard=0.6 (repeatable; see audit.json).")
@click.option("--no-structural-veto", is_flag=True, help="Do not let different op-graphs cancel lexical/semantic flags.")
@click.option("--no-behavioural-veto", is_flag=True, help="Do not let different probe outputs cancel other flags.")
@click.option("--model", help="Embedding model (local path or Hub id); default all-MiniLM-L6-v2 (offline).")
@click.option("--embedding-backend", type=click.Choice(["auto", "onnx", "torch"]), default="auto", show_default=True,
              help="auto: torch fp16 on a GPU, ONNX Runtime int8 on a CPU.")
@click.option("--embed-max-windows", type=click.IntRange(1, 4096),
              help="Embedding windows per document, sampled evenly past this (default: all on a GPU, 3 on a CPU).")
@click.option("--device", help="Device for embeddings (default: cuda when present).")
@click.option("--cache-dir", type=click.Path(file_okay=False),
              help="Cache of embeddings, traces and probes (a re-audit computes only what is new).")
@click.option("--workers", type=int, help="Sandboxed tracing/probing processes (default: one per CPU).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where tracing and probing run.")
@click.option("--ray-address", help="Ray cluster address (--executor ray); default starts a local Ray.")
@click.option("--trace-timeout", type=float, default=60.0, show_default=True, help="Seconds to trace one code.")
@click.option("--probe-timeout", type=float, default=30.0, show_default=True, help="Seconds to probe one pair.")
@click.option("--json", "as_json", is_flag=True, help="Print audit.json to stdout instead of the summary.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@click.option("--allow-empty", is_flag=True, help="Audit even when --train has no rows (default: an error).")
def audit_overlap(bench_name, bench_path, bench_version, levels, bench_id_column, bench_code_column, train_path,
                  id_column, code_column, out_dir, measures, jaccard, containment, cosine, structural,
                  threshold_pairs, no_structural_veto, no_behavioural_veto, model, embedding_backend, embed_max_windows, device,
                  cache_dir, workers, executor, ray_address, trace_timeout, probe_timeout, as_json, quiet,
                  allow_empty):
    """Measure train/test overlap between a benchmark and training rows; write pairs, coverage and a report.

    A pair is flagged when any measure reaches its threshold, unless both sides were run and computed
    different functions (or, unprobed, their op graphs clearly differ): see the README's audit section.
    """
    from kvdata.audit.benchmarks import load_benchmark
    from kvdata.audit.outputs import audit_summary
    from kvdata.audit.pipeline import run_audit, write_outputs
    from kvdata.audit.report import write_report
    from kvdata.audit.training import bundled_sample_rows, load_training
    from kvdata.outdir import OutputFolder

    options = {"version": bench_version, "levels": _levels(levels)} if bench_name == "kernelbench" else {}
    if bench_name == "generic":
        options = {"id_column": bench_id_column, "code_column": bench_code_column}
    th = _thresholds(threshold_pairs, {"jaccard": jaccard, "containment": containment, "cosine": cosine,
                                       "structural": structural}, no_structural_veto, no_behavioural_veto)
    out = OutputFolder(out_dir, "audit-overlap", besides=(cache_dir,) if cache_dir else ())
    try:
        out.check()                                     # before the work: a folder of the user's is refused now
        items = load_benchmark(bench_name, bench_path, **options)
        train = (load_training(train_path, id_column=id_column, code_column=code_column) if train_path
                 else bundled_sample_rows())
        if not items or (not len(train.ids) and not allow_empty):
            empty = f"the benchmark ({bench_path or bench_name})" if not items else f"--train {train_path}"
            raise ValueError(f"{empty} has no rows; nothing to audit" + ("" if not items else
                                                                         " (--allow-empty exits 0 instead)"))
        result = run_audit(items, train, measures=[m.strip() for m in measures.split(",") if m.strip()],
                           thresholds=th, semantic_model=model, semantic_backend=embedding_backend, embed_max_windows=embed_max_windows,
                           device=device,
                           cache_dir=cache_dir, workers=workers, executor=executor, ray_address=ray_address,
                           structural_timeout_s=trace_timeout, probe_timeout_s=probe_timeout, progress=not quiet)
    except (ValueError, FileNotFoundError, RuntimeError) as exc:
        raise click.ClickException(str(exc))
    with out.staged() as stage:
        staged = {**write_outputs(result, stage), **write_report(result, stage)}
    paths = {k: Path(out_dir) / Path(v).relative_to(stage) for k, v in staged.items()}
    result.outputs.update(paths)
    if result.interrupted:
        click.echo(f"interrupted during {result.interrupted}: pairs and coverage so far written to {out_dir}; run "
                   "the same command again" + (" (same --cache-dir) to continue" if cache_dir else
                                               " with --cache-dir to keep finished work next time"), err=True)
        sys.exit(130)
    if as_json:
        click.echo(json.dumps({**audit_summary(result), "outputs": {k: str(v) for k, v in paths.items()}},
                              indent=2, default=str))
        return
    click.echo(f"{len(items)} benchmark items x {len(train)} training rows; measures: "
               f"{', '.join(result.measures_run)}")
    for note in result.notes:
        click.echo(f"note: {note}")
    cov = result.coverage.summary()
    for side in ("bench", "train"):
        c = cov[side]
        if c["trace_ran"] or c["probe_ran"]:
            click.echo(f"coverage ({side}): traced {c['traced']}/{c['rows']}, probed {c['probed']}/{c['rows']}"
                       + (f"; not traced: {c['trace_reasons']}" if c["trace_reasons"] else ""))
    click.echo(f"flagged pairs: {len(result.flagged)}; clean tasks: {len(result.clean_bench_ids())}/{len(items)}; "
               f"training rows removed: {len(result.flagged_train_ids())}")
    for name, path in paths.items():
        click.echo(f"  {name}: {path}")
