"""The audit report on real audits: Markdown that links its plots, the nearest row per measure, and side-by-side
views of the texts a flag came from (kernel functions for a kernel flag, PyTorch references for a graph flag)."""
from __future__ import annotations

import json

from click.testing import CliRunner

from kvdata.audit.pairs import PairScores
from kvdata.audit.report import fired_measures, flag_texts
from kvdata.cli import main


def _library(kernel_source: str) -> str:
    """A library file of some unrelated helpers with one kernel of a TritonBench-G item in the middle."""
    head = "import torch\nimport triton\nimport triton.language as tl\n\n\ndef helper(x):\n    return x * 2\n\n\n"
    return head + kernel_source + "\n\n\ndef other(y):\n    return y + 1\n"


def test_report_links_plots_names_nearest_rows_and_shows_the_matching_kernels(shared_data, tmp_path):
    from kvdata.audit.triton_kernels import extract_kernels

    items = json.loads((shared_data / "tritonbench" / "TritonBench_G_v1.json").read_text())
    # one of three kernels of an item planted: the file as a whole is no copy (lexical stays low), the kernel is
    planted = next(it for it in items if it["file"] == "lightning_attention.py")
    kernel = max(extract_kernels(planted["output"]), key=lambda k: k.n_tokens)
    train = tmp_path / "train.jsonl"
    rows = [{"id": "lib/planted.py", "code": _library(kernel.source)},
            {"id": "lib/unrelated.py", "code": items[0]["output"] if items[0] is not planted else items[1]["output"]}]
    train.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "audit"
    res = CliRunner().invoke(main, ["audit-overlap", "--bench", "tritonbench-g", "--bench-path",
                                    str(shared_data / "tritonbench" / "TritonBench_G_v1.json"), "--train", str(train),
                                    "--out", str(out), "--measures", "lexical,kernel"])
    assert res.exit_code == 0, res.output
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert "base64" not in md and "data:image/png;base64," in html
    linked = [line.split("](")[1].rstrip(")") for line in md.splitlines() if line.startswith("![")]
    assert linked and all((out / p).is_file() and p.startswith("plots/") for p in linked)
    assert len(md) < len(html) / 2
    # the planted item's flag shows the kernel functions, not the whole library file
    block = md.split(f"### `{planted['file']}` ↔ `lib/planted.py`", 1)[1].split("### ", 1)[0]
    assert f"compared: kernels {kernel.name} ~ {kernel.name}" in block
    assert "def helper" not in block and "def other" not in block
    # the nearest row is named per measure
    table = md.split("## Closest benchmark items", 1)[1].split("## Flagged pairs", 1)[0]
    assert "`lib/planted.py`" in table


def test_flag_texts_follow_the_measures_that_fired():
    bench, train, ref = "class Model: ...", "__global__ void k() {}", "class Model: pass  # train reference"
    graph = PairScores("b", "t", structural=1.0, reason="structural>=0.95")
    assert flag_texts(graph, bench, train, ref) == ("PyTorch references", bench, ref)
    lexical = PairScores("b", "t", jaccard=0.9, reason="jaccard>=0.8;structural>=0.95")
    assert flag_texts(lexical, bench, train, ref)[0] == "code"
    assert fired_measures("vetoed:structural<0.5 (jaccard>=0.8); kernel_w_jaccard>=0.8") == {"kernel_jaccard"}
    kernel = PairScores("b", "t", kernel_jaccard=1.0, reason="kernel_w_jaccard>=0.8", kernels="a~b (lines 1/1)")
    assert flag_texts(kernel, "x", "y", "")[0] == "code"          # no such kernels in the texts: the code itself
