"""The export folder's README.md: YAML ``configs`` for ``load_dataset``, where the rows came from,
the filters and accounting, the format's consumers (the DPO form and why, LLaMA-Factory's entry names,
which split TRL evaluates on), split sizes, a length histogram (``lengths.png``) and the command. Paths
appear as repo ids or relative paths only (the pipeline hands them over in public form)."""
from __future__ import annotations

from pathlib import Path

from kvdata.export.split import SPLITS

#: The options that drop rows, as the card lists them (``ExportResult.sources`` keys).
FILTER_OPTIONS = ("audit", "verified", "min-speedup", "license")


#: Split colours of the length plot (train, validation, test).
_COLOURS = {"train": (31, 119, 180), "validation": (255, 127, 14), "test": (44, 160, 44)}


def axis_ticks(lo: float, hi: float, nbins: int = 5) -> list[tuple[float, str]]:
    """``(position, label)`` of the ticks of an axis over ``[lo, hi]``: positions from matplotlib's
    ``MaxNLocator`` (integers: lengths and counts are whole numbers), labels from its ``StrMethodFormatter``
    applied to those positions, so a label always says where its tick is."""
    from matplotlib.ticker import StrMethodFormatter

    hi = max(hi, lo + 1)
    # whole-number positions only: on a span under a few units the locator falls back to fractional steps
    locs = [float(round(t)) for t in _locator(nbins).tick_values(lo, hi)
            if lo <= t <= hi and abs(t - round(t)) < 1e-9]
    return list(zip(locs, StrMethodFormatter("{x:,.0f}").format_ticks(locs)))


def _locator(nbins: int = 5):
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(nbins=nbins, integer=True)


def _plot(lengths: list[int], splits: list[str], unit: str, path: Path, bins: int = 40) -> bool:
    """A length histogram per split (shared bins, counted with numpy), drawn with Pillow as overlaid
    translucent bars with axis ticks (``axis_ticks``) and a legend. Pillow rather than a matplotlib figure:
    importing matplotlib's figure and Agg backend costs an export more than all of its table writing, for one
    small chart (its ``ticker`` alone is cheap)."""
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
    # the y axis ends at the locator's first tick at or above the highest bar
    peak = float(_locator().tick_values(0, max(int(c.max()) for c in counts.values()) or 1)[-1])
    y_ticks = axis_ticks(0, peak)

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
    for t, label in axis_ticks(float(edges[0]), float(edges[-1])):
        x = x_of(t)
        draw.line([(x, top + plot_h), (x, top + plot_h + 4)], fill="black")
        draw.text((x, top + plot_h + 6), label, fill="black", font=font, anchor="mt")
    for t, label in y_ticks:
        y = top + plot_h * (1 - t / peak)
        draw.line([(left - 4, y), (left, y)], fill="black")
        draw.text((left - 6, y), label, fill="black", font=font, anchor="rm")
    draw.text((left + plot_w / 2, height - 6), unit, fill="black", font=font, anchor="mb")
    draw.text((left, 4), "examples", fill="black", font=font, anchor="la")
    y = top + 4
    for s, c in counts.items():
        draw.rectangle([left + plot_w - 120, y, left + plot_w - 110, y + 10], fill=_COLOURS[s])
        draw.text((left + plot_w - 104, y + 5), f"{s} ({int(c.sum())})", fill="black", font=font, anchor="lm")
        y += 16
    img.convert("RGB").save(path, optimize=True)
    return True


#: Why ``--format dpo`` is conversational unless asked otherwise (the card and the README say it).
DPO_FORM_WHY = (
    "TRL applies the model's chat template only to conversational data (TRL 1.16, dataset_formats.md): with "
    "`prompt` as system + user messages and `chosen` / `rejected` as assistant messages, DPOTrainer sees the "
    "same template and the same system prompt that SFTTrainer sees on this corpus's `messages` exports. The "
    "standard form (strings and a `system` column) is what LLaMA-Factory's ranking entry reads, but TRL ignores "
    "its `system` column and applies no template to it, so DPO would train on other inputs than SFT.")


def _trl_eval_split(exported: dict) -> str:
    """The warning about the split TRL evaluates on (its scripts' ``--dataset_test_split``, default ``test``)."""
    head = ("**Evaluation split:** TRL's training scripts and CLI (`trl sft`, `trl dpo`, `trl grpo`, ...) evaluate "
            "on the split named by `--dataset_test_split`, which defaults to `test`. ")
    if "test" in exported and "validation" in exported:
        return head + ("Here that is the held-out `test` split: pass `--dataset_test_split validation` to evaluate "
                       "on `validation` and keep `test` for the final evaluation.")
    if "test" in exported:
        return head + "Here that is the `test` split, the only held-out one."
    if "validation" in exported:
        return head + "This export has no `test` split: pass `--dataset_test_split validation`."
    return head + ("This export has only `train`: turn evaluation off (`--eval_strategy no`) or export again with "
                   "`--val-fraction` / `--test-fraction`.")


def _consumers(result) -> list[str]:
    """The card's "Using it" section: the format's form and readers, LLaMA-Factory's entry names, TRL's
    evaluation split."""
    lines = ["## Using it", "", "```python", "from datasets import load_dataset",
             f"ds = load_dataset(\"{result.sources.get('out', '.')}\")  # or its Hub repo id", "```", ""]
    if result.format == "dpo" and result.dpo_form == "standard":
        lines += ["Preference pairs in the **standard** form (`--dpo-form standard`): `prompt` / `chosen` / "
                  "`rejected` strings and a `system` column, for LLaMA-Factory. TRL reads no `system` column and "
                  "applies no chat template to strings: for TRL, export the default conversational form. " +
                  DPO_FORM_WHY, ""]
    elif result.format == "dpo":
        lines += ["Preference pairs in the **conversational** form (the default): `prompt` = [system, user] "
                  "messages, `chosen` / `rejected` = [assistant] messages. Why this default: " + DPO_FORM_WHY +
                  " LLaMA-Factory's ranking entries cannot read message lists: export with `--dpo-form standard` "
                  "for it.", ""]
    if result.entries:
        lines += ["LLaMA-Factory: `dataset_info.json` (set `dataset_dir` to this folder) names the entries "
                  + ", ".join(f"`{e}`" for e in result.entries) + " (`--name` sets the prefix).", ""]
    if result.format == "rl":
        lines += ["veRL reads the split files by path (`data.train_files`, `data.val_files`).", ""]
    return lines + [_trl_eval_split(result.exported), ""]


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
    lines += _consumers(result)
    lines += ["## Filters", ""]
    given = [k for k in FILTER_OPTIONS if k in result.sources]
    if not given and options.max_tokens is None:
        lines.append("None: every row of the task's configs that makes an example.")
    lines += [f"- `--{key}` {result.sources[key]}" for key in given]
    if options.max_tokens is not None:
        lines.append(f"- `--max-tokens` {options.max_tokens} (`--tokenizer` {result.sources.get('tokenizer')}; "
                     f"{result.length_basis})")
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
    if result.length_basis:
        lines += ["", f"Lengths: {result.length_basis}."]
    if plotted:
        lines += ["", "![lengths](lengths.png)"]
    lines += ["", "Every row keeps its corpus `id`; the split is by task group (same task name or the same "
                  "normalised PyTorch reference), so no task is on two sides.", ""]
    path = out / "README.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
