"""The sandbox: scrubbed env, hidden credentials, no network, writes confined, limits enforced."""
from __future__ import annotations

import sys

import pytest

from kvdata.sandbox import Sandbox, SandboxLimits, isolation_level

PY = [sys.executable, "-I", "-c"]


def test_env_scrubbed_and_home_hidden(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".cache" / "huggingface").mkdir(parents=True)
    (home / ".cache" / "huggingface" / "token").write_text("hf_FAKE")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HF_TOKEN", "hf_FAKE")
    code = ("import os;print(os.environ.get('HF_TOKEN'));"
            f"print(os.path.exists({str(home / '.cache/huggingface/token')!r}))")
    r = Sandbox(SandboxLimits(timeout_s=30)).run(PY + [code])
    assert r.ok, r.stderr
    assert r.stdout.split() == ["None", "False" if isolation_level() == "bwrap" else r.stdout.split()[1]]


@pytest.mark.skipif(isolation_level() != "bwrap", reason="writes are confined only under bubblewrap")
def test_writes_outside_scratch_fail(tmp_path):
    target = tmp_path / "escaped"
    r = Sandbox(SandboxLimits(timeout_s=30)).run(PY + [f"open({str(target)!r}, 'w').write('x')"])
    assert not r.ok and not target.exists()
    r = Sandbox(SandboxLimits(timeout_s=30)).run(PY + ["import os; open(os.environ['HOME'] + '/ok', 'w').write('x')"])
    assert r.ok and (r.scratch / "ok").exists()


@pytest.mark.skipif(isolation_level() == "rlimits", reason="no network namespace available")
def test_no_network():
    code = "import socket; s=socket.socket(); s.settimeout(3); s.connect(('1.1.1.1', 80))"
    assert not Sandbox(SandboxLimits(timeout_s=30)).run(PY + [code]).ok


def test_timeout_and_memory_limit():
    r = Sandbox(SandboxLimits(timeout_s=2)).run(PY + ["while True: pass"])
    assert r.timed_out and not r.ok
    r = Sandbox(SandboxLimits(timeout_s=30, memory_mb=300)).run(
        PY + ["x=[]\nwhile True: x.append(bytearray(b'1') * (64 << 20))"])
    assert not r.ok and (r.memory_exceeded or r.returncode != 0)
