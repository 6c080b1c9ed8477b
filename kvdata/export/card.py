"""The export folder's README.md: YAML ``configs`` for ``load_dataset``, where the rows came from,
the filters and accounting, split sizes, a length histogram (``lengths.png``) and the command."""
from __future__ import annotations

from pathlib import Path

from kvdata.export.split import SPLITS

#: The options that drop rows, as the card lists them (``ExportResult.sources`` keys).
FILTER_OPTIONS = ("audit", "verified", "min-speedup", "license")


#: Split colours of the length plot (train, validation, test).
_COLOURS = {"train": (31, 119, 180), "validation": (255, 127, 14), "test": (44, 160, 44)}


def _plot(lengths: list[int], splits: list[str], unit: str, path: Path, bins: int = 40) -> bool:
    """A length histogram per split (shared bins, counted with numpy), drawn with Pillow as overlaid
    translucent bars with axis ticks and a legend. Pillow rather than matplotlib: importing matplotlib
    costs an export more than all of its table writing, for one small chart."""
    if not lengths:
        return False
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    values, names = np.asarray(lengths), np.asarray(splits)
    edges = np.histogram_bin_edges(values, bins=bins)
    counts = {s: np.histogram(values[names == s], bins=edges)[0] for s in SPLITS if (names == s).any()}
    width, height, left, right, top, bottom = 640, 300, 64, 16, 24, 48
    font = ImageFont.load_default(size=11)
    img = Image.new("RGBA", (width, height), "white")
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max(int(c.max()) for c in counts.values()) or 1

    def x_of(v: float) -> float:
        return left + (v - edges[0]) / ((edges[-1] - edges[0]) or 1) * plot_w

    for s, c in counts.items():
        layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
        draw = ImageDraw.Draw(layer)
        for i, n in enumerate(c):
            if n:
                draw.rectangle([x_of(edges[i]), top + plot_h * (1 - n / peak), x_of(edges[i + 1]) - 1, top + plot_h],
                               fill=_COLOURS[s] + (150,))
        img = Image.alpha_composite(img, layer)
    draw = ImageDraw.Draw(img)
    draw.line([(left, top), (left, top + plot_h), (left + plot_w, top + plot_h)], fill="black")
    for t in np.linspace(edges[0], edges[-1], 6):
        x = x_of(t)
        draw.line([(x, top + plot_h), (x, top + plot_h + 4)], fill="black")
        draw.text((x, top + plot_h + 6), f"{t:,.0f}", fill="black", font=font, anchor="mt")
    for t in np.linspace(0, peak, 5):
        y = top + plot_h * (1 - t / peak)
        draw.line([(left - 4, y), (left, y)], fill="black")
        draw.text((left - 6, y), f"{t:,.0f}", fill="black", font=font, anchor="rm")
    draw.text((left + plot_w / 2, height - 6), unit, fill="black", font=font, anchor="mb")
    draw.text((left, 4), "examples", fill="black", font=font, anchor="la")
    y = top + 4
    for s, c in counts.items():
        draw.rectangle([left + plot_w - 120, y, left + plot_w - 110, y + 10], fill=_COLOURS[s])
        draw.text((left + plot_w - 104, y + 5), f"{s} ({int(c.sum())})", fill="black", font=font, anchor="lm")
        y += 16
    img.convert("RGB").save(path, optimize=True)
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
    given = [k for k in FILTER_OPTIONS if k in result.sources]
    if not given and options.max_tokens is None:
        lines.append("None: every row of the task's configs that makes an example.")
    lines += [f"- `--{key}` {result.sources[key]}" for key in given]
    if options.max_tokens is not None:
        lines.append(f"- `--max-tokens` {options.max_tokens}")
    lines += [f"- `--{key}` {result.sources[key]}" for key in ("keep-splits", "template") if key in result.sources]
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
