"""`kvdata export`: parse, call kvdata.export, print the accounting."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from kvdata.cli import main

_EXAMPLES = """
\b
Tasks: torch2hip (hip_gpumode, hip_cudaagent), torch2triton (triton with a reference), hip2hip
(baseline -> optimised, speedup in the metadata), qa, triton-complete (mined Triton files without a
reference). Formats: messages (TRL/datasets chat), alpaca and sharegpt (+ LLaMA-Factory
dataset_info.json), dpo (prompt/chosen/rejected: TRL's conversational form by default, --dpo-form standard
for LLaMA-Factory), rl (veRL's parquet layout).

\b
Examples:
  kvdata export --data out/sample --task torch2triton --format messages --out sft_triton --val-fraction 0.1
  kvdata export --data out/sample --task hip2hip --format dpo --dpo-margin 0.1 --out dpo_hip
  kvdata export --data out/sample --task hip2hip --format dpo --dpo-form standard --name hip_dpo --out dpo_lf
  kvdata export --data DIR --task torch2hip --format rl --audit audit/ --verified reverify.parquet \\
      --min-speedup 1.0 --license MIT --license Apache-2.0 --test-fraction 0.05 --out rl_hip
  kvdata export --data DIR --task qa --format alpaca --tokenizer ./qwen3-tokenizer --max-tokens 4096 --out qa
  kvdata export --data GROWN --task torch2hip --val-fraction 0.1 --keep-splits sft_v1 --out sft_v2
      # a grown corpus: what sft_v1 held stays where it was
"""


@main.command("export", epilog=_EXAMPLES)
@click.option("--data", required=True, help="Built folder or Hub id.")
@click.option("--task", required=True, type=click.Choice(["torch2hip", "torch2triton", "hip2hip", "qa",
                                                           "triton-complete"]))
@click.option("--format", "fmt", default="messages", show_default=True,
              type=click.Choice(["messages", "alpaca", "sharegpt", "dpo", "rl"]))
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--val-fraction", type=click.FloatRange(0, 0.9), default=0.0, show_default=True,
              help="Share of task groups for validation (split by group, never by row).")
@click.option("--test-fraction", type=click.FloatRange(0, 0.9), default=0.0, show_default=True)
@click.option("--seed", default="", help="Salt of the split hash (another seed, another split).")
@click.option("--keep-splits", type=click.Path(exists=True, file_okay=False),
              help="An earlier export: every row it held stays on the side it was on (its groups too).")
@click.option("--audit", "audit_dir", type=click.Path(exists=True, file_okay=False),
              help="audit-overlap folder: drop the training rows it flagged.")
@click.option("--verified", type=click.Path(exists=True, dir_okay=False),
              help="reverify results: keep rows marked correct (dpo: pair correct over incorrect).")
@click.option("--min-speedup", type=float,
              help="With --verified: keep only rows at least this fast (an unmeasured or infinite speedup fails).")
@click.option("--license", "licenses", multiple=True, help="Keep only rows these SPDX ids allow (repeatable).")
@click.option("--template", type=click.Path(exists=True, dir_okay=False), help="Jinja prompt template file.")
@click.option("--dpo-margin", type=float, default=0.0, show_default=True,
              help="hip2hip dpo: the optimised kernel must be at least 1+margin times faster.")
@click.option("--dpo-form", type=click.Choice(["conversational", "standard"]),
              help="dpo: conversational (default; message lists TRL applies the chat template to, system "
                   "included) or standard (strings + a system column, LLaMA-Factory's ranking entry).")
@click.option("--name", help="LLaMA-Factory entry names <NAME>_<split> in dataset_info.json "
                             "[default: kvdata_<out folder>_<task>_<format>].")
@click.option("--tokenizer", type=click.Path(exists=True),
              help="Local Hugging Face tokenizer: lengths in tokens, with its chat template, as the consumer "
                   "builds its input (rl: the prompt only, as veRL filters).")
@click.option("--max-tokens", type=int, help="Drop examples (dpo: pairs) longer than this (needs --tokenizer).")
@click.option("--json", "as_json", is_flag=True, help="Print accounting.json instead of the summary.")
def export_cmd(data, task, fmt, out, val_fraction, test_fraction, seed, keep_splits, audit_dir, verified, min_speedup, licenses,
               template, dpo_margin, dpo_form, name, tokenizer, max_tokens, as_json):
    """Turn the corpus into a training set, decontaminated and split by task group."""
    from kvdata.export.filters import RowFilters, read_audit, read_verdicts
    from kvdata.export.pipeline import ExportOptions, export

    if min_speedup is not None and not verified:
        raise click.UsageError("--min-speedup needs --verified")
    if dpo_form is not None and fmt != "dpo":
        raise click.UsageError("--dpo-form applies to --format dpo")
    try:
        filters = RowFilters(audit=read_audit(audit_dir) if audit_dir else None,
                             verdicts=read_verdicts(verified) if verified else None, min_speedup=min_speedup,
                             allow=list(licenses) or None)
        options = ExportOptions(task, fmt, val_fraction, test_fraction, seed, template, dpo_margin=dpo_margin,
                                tokenizer=tokenizer, max_tokens=max_tokens, keep_splits=keep_splits,
                                dpo_form=dpo_form or "conversational", name=name)
        result = export(data, out, options, filters, command=shlex.join(["kvdata", *sys.argv[1:]]),
                        progress=not as_json)
    except (ValueError, FileNotFoundError, OSError) as e:
        raise click.ClickException(str(e))
    if as_json:
        click.echo((out / "accounting.json").read_text(encoding="utf-8"))
        return
    click.echo(f"{result.input_rows} rows in, {result.examples} examples out "
               f"({', '.join(f'{s} {n}' for s, n in result.exported.items())}"
               f"{' pairs' if fmt == 'dpo' else ''}); reconciles: {'yes' if result.reconciles else 'NO'}")
    for reason, n in sorted(result.dropped.items()):
        click.echo(f"  dropped {reason}: {n}")
    click.echo(f"wrote {out}: {', '.join(result.files)}, accounting.json, README.md")
