"""The static pre-screen (`kvdata reverify --static`): each named rule fires on the pattern it names and not on
honest code; on the hostile suites in tests/ it flags only hostile code; the CLI writes one line per row."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kvdata.reverify.static import RULES, screen

REPO = Path(__file__).resolve().parents[1]
HONEST = '''
import torch, triton, triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

class ModelNew(torch.nn.Module):
    def forward(self, x, y):
        out = torch.empty_like(x)
        add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
        return out
'''
REFERENCE = "import torch\nROWS = 64\nCOLS = 384\nclass Model(torch.nn.Module):\n    pass\n"
TRICKS = {
    "timer_patch": "import time\n_real = time.perf_counter\ntime.perf_counter = lambda: _real() * 0.1\n",
    "introspection": "import sys\nref = sys._getframe(1).f_locals.get('expected')\n",
    "reference_lookup": "import sys\nM = [getattr(m, 'Model') for m in list(sys.modules.values()) if hasattr(m, 'Model')]\n",
    "torch_fallback": ("def fast(x, y):\n    try:\n        return launch(x, y)\n    except Exception:\n"
                       "        return torch.add(x, y)\n"),
    "kernel_never_launched": "@triton.jit\ndef unused_kernel(x_ptr):\n    pass\n",
    "shape_literal": "def width():\n    return 384\n",
    "dispatch_mode_probe": "from torch.utils._python_dispatch import _get_current_dispatch_mode\n",
    "thread_or_stream": "import threading\nthreading.Thread(target=print).start()\n",
}


def test_honest_code_trips_no_rule():
    report = screen(HONEST, REFERENCE)
    assert report.parsed and report.flags == [], report.hits


@pytest.mark.parametrize("rule", RULES)
def test_each_rule_fires_on_its_pattern(rule):
    report = screen(HONEST + "\n" + TRICKS[rule], REFERENCE)
    assert rule in report.flags, report.hits
    assert all(h.line >= 1 for h in report.hits)


def test_unparseable_code_is_said_not_raised():
    report = screen("def broken(:\n", REFERENCE)
    assert not report.parsed and report.flags == []


def test_on_the_suites_it_flags_hostile_code_and_little_else(tmp_path):
    """Measured by the same script the README quotes: precision on the hostile suites at least 0.9, no honest
    bundled sample flagged, and a rate fit for 100,000 rows."""
    out = tmp_path / "eval.json"
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "eval_static.py"), "--rows", "500", "--json",
                        str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    result = json.loads(out.read_text())
    assert result["precision"] >= 0.9 and result["recall"] > 0.2, result
    honest = next(s for s in result["suites"] if s["suite"] == "honest samples")
    assert honest["honest"] >= 20 and honest["honest_flagged"] == 0, honest


def test_cli_static_writes_a_line_per_row_and_never_overwrites(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(json.dumps({"id": f"r{i}", "language": "triton", "pytorch_code": REFERENCE,
                                          "kernel_code": HONEST + (TRICKS["timer_patch"] if i else "")})
                              for i in range(2)) + "\n")
    out = tmp_path / "screen.jsonl"
    r = subprocess.run([sys.executable, "-m", "kvdata", "reverify", "--input", str(rows), "--static", "--out",
                        str(out), "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    summary = json.loads(r.stdout)
    assert summary["samples"] == 2 and summary["flagged"] == 1 and summary["by_rule"]["timer_patch"] == 1
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["static_flags"] for line in lines] == [[], ["timer_patch"]]
    again = subprocess.run([sys.executable, "-m", "kvdata", "reverify", "--input", str(rows), "--static", "--out",
                            str(out)], capture_output=True, text=True, timeout=120)
    assert again.returncode != 0 and "exists" in again.stderr and "Traceback" not in again.stderr
