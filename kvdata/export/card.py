"""The export folder's README.md: YAML ``configs`` for ``load_dataset``, where the rows came from,
the filters and accounting, split sizes, a length histogram (``lengths.png``) and the command."""
from __future__ import annotations

from pathlib import Path

from kvdata.export.split import SPLITS


def _plot(lengths: list[int], splits: list[str], unit: str, path: Path) -> bool:
    """A length histogram per split (shared bins, counted with numpy, drawn as steps)."""
    if not lengths:
        return False
    import numpy as np
    from matplotlib.figure import Figure      # no pyplot: no GUI backend, no global figure state

    values, names = np.asarray(lengths), np.asarray(splits)
    edges = np.histogram_bin_edges(values, bins=40)
    fig = Figure(figsize=(6, 3))
    ax = fig.subplots()
    for s in SPLITS:
        xs = values[names == s]
        if xs.size:
            ax.stairs(np.histogram(xs, bins=edges)[0], edges, fill=True, alpha=0.6, label=f"{s} ({xs.size})")
    ax.set_xlabel(unit)
    ax.set_ylabel("examples")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def write_card(result, options, out: Path, lengths: list[int], splits: list[str], command: str) -> Path:
    unit = next(iter(result.lengths.values()), {}).get("unit", "characters")
    plotted = _plot(lengths, splits, unit, out / "lengths.png")
    yaml = ["---", "configs:", "- config_name: default", "  data_files:"]
    for f in result.files:
        if f.startswith("data/"):
            yaml += [f"  - split: {Path(f).name.split('-')[0]}", f"    path: {f}"]
    yaml.append("---")
    lines = yaml + ["", f"# kvdata export: `{result.task}` as `{result.format}`", "",
                    f"From `{result.sources.get('data')}` (configs {result.sources.get('configs')}).", ""]
    if command:
        lines += ["Made with:", "", "```", command, "```", ""]
    lines += ["## Filters", ""]
    if not any(k in result.sources for k in ("audit", "verified")) and options.max_tokens is None:
        lines.append("None: every row of the task's configs that makes an example.")
    for key in ("audit", "verified"):
        if key in result.sources:
            lines.append(f"- `--{key}` {result.sources[key]}")
    if options.max_tokens is not None:
        lines.append(f"- `--max-tokens` {options.max_tokens}")
    lines += ["", "## Accounting", "", "| | rows |", "|---|---:|", f"| input | {result.input_rows} |",
              f"| exported examples | {result.examples} |"]
    lines += [f"| dropped: {k} | {v} |" for k, v in sorted(result.dropped.items())]
    if result.overlap_by_measure:
        lines += ["", "Benchmark overlap by measure: " + ", ".join(f"{k} {v}" for k, v in
                                                               sorted(result.overlap_by_measure.items()))]
    lines += ["", f"Reconciles: {'yes' if result.reconciles else 'NO'}. Task groups crossing splits: "
                  f"{result.crossings}.", "", "## Splits", "",
              f"{result.groups} task groups (rows sharing a task name or a normalised PyTorch reference), each on "
              f"one side.", "",
              f"| split | {'pairs' if result.format == 'dpo' else 'rows'} | mean {unit} | p95 | max |",
              "|---|---:|---:|---:|---:|"]
    for s in SPLITS:
        if s in result.exported:
            st = result.lengths.get(s, {})
            lines.append(f"| {s} | {result.exported[s]} | {st.get('mean', 0):.0f} | {st.get('p95', 0):.0f} | "
                         f"{st.get('max', 0)} |")
    if plotted:
        lines += ["", "![lengths](lengths.png)"]
    lines += ["", "Every row keeps its corpus `id`; the split is by task group (same task name or the same "
                  "normalised PyTorch reference), so no task is on two sides.", ""]
    path = out / "README.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
