"""`kvdata reverify` and `kvdata reverify-report`: parse, call kvdata.reverify, print."""
from __future__ import annotations

from pathlib import Path

import click

from kvdata.cli import main


@main.command("reverify")
@click.option("--subset", help="Config to re-verify (e.g. triton), loaded from --data.")
@click.option("--data", help="Built folder or Hub id for --subset.")
@click.option("--input", "input_path", type=click.Path(exists=True, path_type=Path),
              help="Rows to re-verify: .jsonl or .parquet (or a folder of parquet).")
@click.option("--out", type=click.Path(path_type=Path), help="Results file: .jsonl (appended) or .parquet.")
@click.option("--backend", help="triton-gpu, triton-interpreter, rocm, hip-compile, cuda-portability "
                                "(default: the best one here for each sample's language).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--ray-address", help="Ray cluster address (--executor ray); default starts a local Ray.")
@click.option("--gpus", type=int, help="One worker per GPU, GPUs 0..N-1.")
@click.option("--workers", type=int, default=1, show_default=True, help="CPU worker slots (no --gpus).")
@click.option("--shard", help="Only shard i of N (i/N), by a stable hash of the id.")
@click.option("--seeds", type=int, default=3, show_default=True, help="Input sets per sample, drawn fresh.")
@click.option("--seed", type=int, help="Fix the seeds (debugging only; fixed seeds can be special-cased).")
@click.option("--timeout", type=float, default=300, show_default=True, help="Seconds per sample.")
@click.option("--memory-mb", type=int, default=8192, show_default=True, help="Host memory per sample.")
@click.option("--atol", type=float, help="Override atol for every language (rows' own atol still win).")
@click.option("--rtol", type=float, help="Override rtol for every language (rows' own rtol still win).")
@click.option("--speedup-limit", type=float, default=50.0, show_default=True,
              help="Flag speedups above this as implausible.")
@click.option("--no-timing", is_flag=True, help="Correctness only, even on a GPU.")
@click.option("--sanitize/--no-sanitize", default=None,
              help="Run one seed of each sample again under compute-sanitizer memcheck (NVIDIA), without "
                   "PyTorch's caching allocator; invalid accesses fail it (out_of_bounds). "
                   "Default: on for portability runs (cuda-portability), off otherwise.")
@click.option("--visible-only", is_flag=True,
              help="Judge only the visible input configuration (the seeds of get_inputs()), as before v3: no "
                   "other sizes or value ranges, so no shape_specialised / range_specialised.")
@click.option("--static", "static", is_flag=True,
              help="Only the static pre-screen: named rules over the code (timer patches, frame/gc/sys.modules "
                   "access, reference lookup, try/except fallback to torch, kernels never launched, visible shape "
                   "literals), nothing run. Flags, never verdicts. Writes one JSON line per sample to --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object (no progress bars).")
@click.option("--allow-empty", is_flag=True, help="Exit 0 when there are no samples to verify (default: an error).")
@click.option("--limit", type=int, help="Only the first N samples.")
@click.option("--cache-dir", type=click.Path(path_type=Path), help="Compile cache root (default ~/.cache/kvdata).")
@click.option("--report/--no-report", default=False, help="Write the report next to the results.")
@click.option("--spares-ahead", type=click.IntRange(0, 8),
              help="Sample processes each worker forks ahead and warms up (GPU context, a rehearsal of the "
                   "harness's GPU work) while earlier samples run. Default: 3 on a GPU (~0.6 GB of GPU memory "
                   "each), 1 on the CPU; "
                   "0 starts each sample's process when its job arrives (least GPU memory).")
def reverify_cmd(subset, data, input_path, out, backend, executor, ray_address, gpus, workers, shard, seeds,
                 seed, timeout, memory_mb, atol, rtol, speedup_limit, no_timing, sanitize, visible_only, static, as_json,
                 allow_empty, limit, cache_dir, report, spares_ahead):
    """Recompile and rerun samples in a sandbox and record whether they are still correct.

    \b
    Examples:
      kvdata reverify --input rows.jsonl --out results.jsonl --backend triton-interpreter
      kvdata reverify --subset triton --data out/sample --out results.parquet --gpus 1
      kvdata reverify --input rows.jsonl --static --out screen.jsonl --json
      kvdata reverify --input rows.jsonl --out results.jsonl --json | jq .counts
    """
    from kvdata.reverify import reverify
    from kvdata.reverify.config import ReverifyConfig, TimingConfig
    from kvdata.reverify.executors import parse_shard
    from kvdata.reverify.samples import SampleError, load_subset, read_samples
    from kvdata.schema import DEFAULT_TOLERANCES

    if bool(subset) == bool(input_path):
        raise click.UsageError("give exactly one of --subset or --input")
    if out is None:
        out = Path(f"reverify-{subset or input_path.stem}.jsonl")
    try:
        samples = load_subset(subset, data) if subset else read_samples(input_path)
    except (SampleError, FileNotFoundError, ValueError) as e:
        raise click.ClickException(str(e))
    if limit:
        samples = samples[:limit]
    try:
        shard_spec = parse_shard(shard) if shard else None
    except ValueError as e:
        raise click.UsageError(str(e))
    if shard_spec:
        from kvdata.reverify.executors import select_shard

        samples = select_shard(samples, *shard_spec)
    if not samples and not allow_empty:
        raise click.ClickException(f"no samples in {input_path or f'{data} ({subset})'}; nothing to verify "
                                   "(--allow-empty exits 0 instead)")
    if static:
        _static_screen(samples, out, as_json)
        return
    if backend and executor == "local":              # a backend asked for by name must run here (a Ray cluster: there)
        from kvdata.reverify.backends import BackendUnavailable, create_backend

        try:
            ok, why = create_backend(backend).is_available()
        except BackendUnavailable as e:
            ok, why = False, str(e)
        if not ok:
            raise click.ClickException(f"--backend {backend} cannot run on this machine: {why}")
    tolerances = {}
    if atol is not None or rtol is not None:
        for lang, (a, r) in DEFAULT_TOLERANCES.items():
            tolerances[lang] = [atol if atol is not None else a, rtol if rtol is not None else r]
    config = ReverifyConfig(backend=backend, seeds=seeds, seed=seed, timeout_s=timeout, memory_mb=memory_mb,
                            speedup_limit=speedup_limit, tolerances=tolerances,
                            timing=TimingConfig(enabled=not no_timing), sanitize=sanitize, spares_ahead=spares_ahead,
                            other_configs=not visible_only)
    try:
        summary = reverify(samples, out, config, executor=executor, workers=workers, gpus=gpus,
                           shard=None, cache_root=cache_dir,
                           ray_address=ray_address, progress=not as_json)
    except ValueError as e:
        raise click.ClickException(str(e))
    report_path = None
    if report:
        from kvdata.reverify.report import write_report

        report_path = write_report(summary.parquet or summary.results,
                                   Path(out).parent / (Path(out).stem + "-report"),
                                   corpus_rows=[s.__dict__ for s in samples])
    if as_json:
        import json

        click.echo(json.dumps({"samples": summary.total, "already_done": summary.already_done, "ran": summary.ran,
                               "counts": dict(sorted(summary.counts.items())),
                               "results": str(summary.parquet or summary.results),
                               "report": str(report_path) if report_path else None}))
        return
    click.echo(f"{summary.total} samples: {summary.already_done} already done, {summary.ran} verified now")
    for status, n in sorted(summary.counts.items()):
        click.echo(f"  {status:14s} {n}")
    click.echo(f"results: {summary.parquet or summary.results}")
    if report_path:
        click.echo(f"report: {report_path}")


def _static_screen(samples, out: Path, as_json: bool) -> None:
    """``--static``: every sample through ``kvdata.reverify.static.screen``; one JSON line each to ``out``."""
    import json
    from collections import Counter

    from tqdm.auto import tqdm

    from kvdata.reverify.static import RULES, screen

    if out.exists():
        raise click.ClickException(f"{out} exists; --static writes a new file (remove it or pick another --out)")
    counts, flagged, unparsed = Counter(), 0, 0
    with open(out, "w", encoding="utf-8") as f:
        for s in tqdm(samples, desc="static screen", unit="row", disable=len(samples) < 1000):
            rep = screen(s.kernel_code, s.pytorch_code or "")
            counts.update(rep.flags)
            flagged += bool(rep.flags)
            unparsed += not rep.parsed
            f.write(json.dumps({"id": s.id, "static_flags": rep.flags, "parsed": rep.parsed,
                                "hits": [vars(h) for h in rep.hits]}) + "\n")
    summary = {"samples": len(samples), "flagged": flagged, "unparsed": unparsed,
               "by_rule": {r: counts[r] for r in RULES}, "out": str(out)}
    if as_json:
        click.echo(json.dumps(summary))
        return
    click.echo(f"{len(samples)} samples screened, {flagged} flagged (flags, not verdicts), {unparsed} not parsed")
    for rule in RULES:
        click.echo(f"  {rule:22s} {counts[rule]}")
    click.echo(f"results: {out}")


@main.command("reverify-report")
@click.argument("results", type=click.Path(exists=True, path_type=Path))
@click.option("--corpus", type=click.Path(exists=True, path_type=Path),
              help="Built folder / parquet / jsonl whose recorded `verification` the drift table compares with.")
@click.option("--subset", help="Config of --corpus to read (built folder).")
@click.option("--out-dir", type=click.Path(path_type=Path), help="Where to write report.md and plots.")
def reverify_report_cmd(results, corpus, subset, out_dir):
    """Summarise a results file: counts by status, plots, drift against the corpus.

    \b
    Examples:
      kvdata reverify-report results.parquet                      # writes results-report/report.md
      kvdata reverify-report results.jsonl --corpus out/sample --subset triton --out-dir report/
    """
    from kvdata.reverify.report import load_corpus_rows, write_report

    corpus_rows = load_corpus_rows(corpus, subset) if corpus else None
    out_dir = out_dir or results.parent / (results.stem + "-report")
    click.echo(f"report: {write_report(results, out_dir, corpus_rows=corpus_rows)}")
