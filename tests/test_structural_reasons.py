"""Structural v2, reason codes: every code that gets no fingerprint says why, and the deterministic reasons are cached.

Each failure below is real: the code is executed and traced in the sandbox (or rejected before it, where nothing
could be traced), in one batch, the failures mixed with codes that trace.
"""
from __future__ import annotations

import pytest

from kvdata.audit import structural as S

GOOD = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2.0

def get_inputs():
    return [torch.rand(4, 4)]
"""
MODULE = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, width):
        super().__init__()
        {init}
        self.lin = nn.Linear(width, width)

    def forward(self, x):
        {forward}
        return self.lin(x)

def get_inputs():
    {inputs}

def get_init_inputs():
    return [8]
"""
FAILING = {
    "empty_code": "   \n",
    "no_inputs": "import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def forward(self, x):\n"
                 "        return x\nget_inputs = None\n",
    "syntax_error": "import torch\ndef get_inputs(:\n    return []\n",
    "exec_failed": "import torch\nimport a_package_that_is_not_installed\ndef get_inputs():\n    return []\n",
    "no_torch_reference": "import torch\ndef helper(x):\n    return x + 1\ndef get_inputs():\n"
                          "    return [torch.rand(3)]\n",
    "inputs_failed": MODULE.format(init="pass", forward="pass", inputs="raise ValueError('no data here')"),
    "init_failed": MODULE.format(init="raise RuntimeError('bad width')", forward="pass",
                                 inputs="return [torch.rand(2, 8)]"),
    "forward_failed": MODULE.format(init="pass", forward="x = x @ torch.rand(3, 5)", inputs="return [torch.rand(2, 8)]"),
    "timeout": "import torch\nwhile True:\n    pass\ndef get_inputs():\n    return []\n",
    "worker_died": "import os\nimport torch\nos._exit(3)\ndef get_inputs():\n    return []\n",
}
MEMORY = "import torch\nblob = b'x' * (1200 << 20)\nwhile True:\n    pass\ndef get_inputs():\n    return []\n"
TOO_LARGE = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        for _ in range(26000):
            x = x * 2.0 + 1.0
        return x

def get_inputs():
    return [torch.rand(4)]
"""


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    codes = {"good/first": GOOD}
    codes.update({f"bad/{code}": text for code, text in FAILING.items()})
    codes["good/last"] = GOOD.replace("2.0", "3.0")
    cache = tmp_path_factory.mktemp("fpcache")
    failures, errors, stats = {}, {}, S.TraceStats()
    fps = S.fingerprint_many(codes, cache_dir=cache, timeout_s=5, workers=1, failures=failures, errors=errors,
                             stats=stats)
    return fps, failures, errors, stats, cache, codes


@pytest.mark.parametrize("code", sorted(FAILING))
def test_each_failure_has_its_reason_code(traced, code):
    fps, failures, errors, _, _, _ = traced
    key = f"bad/{code}"
    assert fps[key] is None
    assert failures[key].code == code, failures[key]
    assert failures[key].code in S.REASON_CODES
    assert errors[key] == failures[key].message and errors[key]


def test_detail_names_the_cause(traced):
    failures = traced[1]
    assert "bad width" in failures["bad/init_failed"].message
    assert "no data here" in failures["bad/inputs_failed"].message
    assert "a_package_that_is_not_installed" in failures["bad/exec_failed"].message


def test_failures_cost_only_themselves(traced):
    fps, _, _, stats, _, _ = traced
    assert fps["good/first"] is not None and fps["good/last"] is not None
    assert stats.failed == len(FAILING) and stats.traced == 2
    assert stats.reasons == {code: 1 for code in FAILING}


def test_deterministic_reasons_are_cached_with_their_code(traced):
    _, failures, _, _, cache, codes = traced
    again, stats = {}, S.TraceStats()
    S.fingerprint_many(codes, cache_dir=cache, timeout_s=5, workers=1, failures=again, stats=stats)
    assert {k: v.code for k, v in again.items()} == {k: v.code for k, v in failures.items()}
    # a dead worker is not the code's fault for sure: not cached, traced again (and dies again); an empty code
    # is rejected without a worker, so it needs no cache entry
    assert stats.cached == len(codes) - 2 and stats.worker_starts == 1
    assert S.FingerprintCache(cache).get_many([S.content_key(codes["bad/init_failed"])])[
        S.content_key(codes["bad/init_failed"])].code == "init_failed"


def test_memory_limit_is_a_reason():
    failures: dict = {}
    fps = S.fingerprint_many({"hog": MEMORY, "fine": GOOD}, timeout_s=20, memory_mb=900, workers=1,
                             failures=failures)
    assert fps["hog"] is None and failures["hog"].code == "memory"
    assert fps["fine"] is not None


def test_graph_over_the_node_limit_is_a_reason():
    failures: dict = {}
    fps = S.fingerprint_many({"unrolled": TOO_LARGE}, timeout_s=300, failures=failures)
    assert fps["unrolled"] is None and failures["unrolled"].code == "too_large"


def test_untrusted_reason_codes_are_not_taken_at_their_word():
    line = b'{"i": 0, "key": "k", "ok": false, "code": "rm -rf", "error": "x"}'
    _, value = S.tracing._parse_line(line, 0, "k")
    assert isinstance(value, S.TraceError) and value.code == "forward_failed"
    _, value = S.tracing._parse_line(b"not json", 0, "k")
    assert value.code == "bad_output"
