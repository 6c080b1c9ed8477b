"""`kvdata score`: parse, call kvdata.score, print one line per model and write the report."""
from __future__ import annotations

from pathlib import Path

import click

from kvdata.cli import main

_EXAMPLES = """
\b
Inputs (RESULTS: files or folders, each optionally NAME=PATH to name the model):
  reverify results (.parquet/.jsonl from `kvdata reverify`), the generic table (.jsonl/.csv/.parquet
  with model, task, [attempt], compiled, correct, [speedup]), KernelBench's eval_results.json (give
  --level unless the run folder says it, --bench-path for the problem names, --baseline for speedups),
  GEAK-eval's *_results_<n>.json / *_all_passes.json folder (--bench-path: ROCmBench's task file maps
  its perf files back to tasks).

\b
Examples:
  kvdata score ours=reverify-ours.parquet base=reverify-base.parquet --audit audit/ --out score/
  kvdata score results.csv --compare ours:base --interval clopper-pearson --json
  kvdata score sft=runs/level1_sft/ rl=runs/level1_rl/ --bench-path kernelbench_v0.1.jsonl \\
      --baseline results/timing/H100/baseline_time_torch.json
  kvdata score --counts "ours=13/31,gpt5=9/31"          # a published table: unpaired tests only
"""


def _specs(results):
    out = []
    for text in results:
        name, sep, path = text.partition("=")
        if sep and not Path(text).exists():
            out.append((name.strip(), path))
        else:
            out.append((None, text))
    for _, path in out:
        if not Path(path).exists():
            raise click.BadParameter(f"{path}: no such file or folder", param_hint="RESULTS")
    return out


def _pairs(texts):
    pairs = []
    for text in texts:
        a, sep, b = text.partition(":")
        if not sep or not a.strip() or not b.strip():
            raise click.BadParameter(f"expected A:B, got {text!r}", param_hint="--compare")
        pairs.append((a.strip(), b.strip()))
    return pairs or None


@main.command("score", epilog=_EXAMPLES)
@click.argument("results", nargs=-1)
@click.option("--counts", help='Published totals, "name=13/31,other=9/31" (or name=33.2%/184).')
@click.option("--format", "fmt", type=click.Choice(["auto", "reverify", "table", "kernelbench", "geak"]),
              default="auto", show_default=True, help="Format of every RESULTS input.")
@click.option("--compare", "compare", multiple=True, help="A:B pair to compare (repeatable; default every pair).")
@click.option("--audit", "audit_dir", type=click.Path(exists=True, file_okay=False),
              help="An audit-overlap output folder: re-score on its clean and contaminated tasks.")
@click.option("--clean-tasks", type=click.Path(exists=True, dir_okay=False),
              help="clean_tasks.txt (clean ids only; other scored tasks count as contaminated).")
@click.option("--interval", type=click.Choice(["wilson", "clopper-pearson"]), default="wilson", show_default=True,
              help="Interval for per-task binary metrics.")
@click.option("--confidence", type=click.FloatRange(0.5, 0.999), default=0.95, show_default=True)
@click.option("--resamples", type=click.IntRange(200, 100_000), default=2000, show_default=True,
              help="Bootstrap resamples.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap and permutation tests.")
@click.option("--on-missing", type=click.Choice(["error", "intersect"]), default="error", show_default=True,
              help="Models scored on different tasks: stop, or compare on the shared tasks.")
@click.option("--unjudged", type=click.Choice(["error", "drop", "fail"]), default="error", show_default=True,
              help="reverify rows the verifier did not judge (toolchain_error, skipped, ...).")
@click.option("--level", type=int, help="KernelBench: the run's level (when its folder name does not say).")
@click.option("--bench-path", type=click.Path(exists=True),
              help="KernelBench problems (ids -> names) or ROCmBench's task file (perf files -> tasks).")
@click.option("--bench-version", default="v0.1", show_default=True, help="KernelBench version label of task ids.")
@click.option("--baseline", type=click.Path(exists=True, dir_okay=False), help="KernelBench baseline timing JSON.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("score"), show_default=True,
              help="Folder for score.json, report.md, report.html, forest.png.")
@click.option("--json", "as_json", is_flag=True, help="Print score.json to stdout instead of the summary.")
def score_cmd(results, counts, fmt, compare, audit_dir, clean_tasks, interval, confidence, resamples, seed,
              on_missing, unjudged, level, bench_path, bench_version, baseline, out, as_json):
    """Score kernel-generation results with intervals, paired comparisons and a clean-task split.

    Per model: compile and correctness rate, unbiased pass@k, any-of-k (corr@k, comp@k), fast_p
    and the geometric-mean speedup, each with a 95% interval (Wilson for per-task binaries, a BCa
    bootstrap over tasks otherwise). Every pair of models (or each --compare A:B): McNemar's exact
    test and a paired bootstrap interval on the same tasks (Fisher and Newcombe for --counts),
    Holm-adjusted, with the smallest difference the tasks could detect at 80% power. With --audit
    or --clean-tasks, everything again on the clean and on the contaminated tasks.

    Writes OUT/score.json, report.md, report.html and forest.png; prints one line per model.
    Results that do not join (a task one model lacks, a duplicate attempt, an id the audit does
    not know, a malformed row) stop with an error naming how many rows and which.
    """
    from kvdata.score import JoinError, ResultsFormatError, ScoreSettings, parse_counts, read_all, score
    from kvdata.score.clean import read_labels
    from kvdata.score.report import terminal_lines, write_report

    if not results and not counts:
        raise click.UsageError("give RESULTS files or --counts")
    if audit_dir and clean_tasks:
        raise click.UsageError("give --audit or --clean-tasks, not both")
    from kvdata.outdir import OutputFolder

    try:
        OutputFolder(out, "score").check()              # a folder of the user's is refused before the work
        attempts = read_all(_specs(results), format=fmt, unjudged=unjudged, level=level, bench_path=bench_path,
                            version=bench_version, baseline=baseline)
        totals = parse_counts(counts) if counts else []
        labels = read_labels(clean_tasks, audit_dir) if (audit_dir or clean_tasks) else None
        report = score(attempts, totals, pairs=_pairs(compare), labels=labels, progress=not as_json,
                       settings=ScoreSettings(interval, confidence, resamples, seed, on_missing))
    except (JoinError, ResultsFormatError, ValueError, FileNotFoundError) as e:
        raise click.ClickException(str(e))
    try:
        paths = write_report(report, out)
    except OSError as e:                                 # --out is a file, read-only, on a full disk, ...
        raise click.ClickException(f"{out}: cannot write the report ({e.strerror or e})")
    if as_json:
        click.echo(paths["score.json"].read_text(encoding="utf-8"))
        return
    for line in terminal_lines(report):
        click.echo(line)
    metric = next((m for m in ("corr@1", "correct", "correct_rate") if m in report.comparisons), None)
    for c in report.comparisons.get(metric, []):         # one line per pair; report.md has every metric
        detectable = f"; detectable at 80% power: {100 * c.mde:.1f} pts" if c.mde else ""
        test = f", {c.test} p={c.p_value:.3g} (Holm {c.p_holm:.3g})" if c.p_value is not None else ""
        verdict = "" if c.significant is None or c.significant else ", not significant"
        click.echo(f"  {c.a} vs {c.b} {metric}: {100 * c.difference:+.1f} pts "
                   f"[{100 * c.low:+.1f}, {100 * c.high:+.1f}]{test}{verdict}{detectable}")
    click.echo(f"report: {paths['report.md']} ({', '.join(sorted(p.name for p in paths.values()))})")
