"""The sandbox: scrubbed env, hidden credentials, no network, writes confined, limits enforced."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kvdata.sandbox import Sandbox, SandboxLimits, isolation_level, landlock_abi

PY = [sys.executable, "-I", "-c"]


def test_env_scrubbed_and_home_hidden(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".cache" / "huggingface").mkdir(parents=True)
    (home / ".cache" / "huggingface" / "token").write_text("hf_FAKE")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HF_TOKEN", "hf_FAKE")
    code = ("import os;print(os.environ.get('HF_TOKEN'));"
            "print(os.path.exists(os.path.expanduser('~/.cache/huggingface/token')));"
            f"print(os.path.exists({str(home / '.cache/huggingface/token')!r}))")
    r = Sandbox(SandboxLimits(timeout_s=30)).run(PY + [code])
    assert r.ok, r.stderr
    token_env, token_at_home, token_by_path = r.stdout.split()
    # every level: the token variable is dropped, and HOME is the scratch dir (no credentials found through ~)
    assert token_env == "None" and token_at_home == "False"
    # bubblewrap also hides the real home directory, so the token cannot be read by its absolute path either
    if isolation_level() == "bwrap":
        assert token_by_path == "False"


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


def _effective_caps(status_text: str) -> int:
    return int(next(l.split()[1] for l in status_text.splitlines() if l.startswith("CapEff:")), 16)


@pytest.mark.skipif(isolation_level() != "bwrap", reason="capabilities are dropped by bubblewrap here")
def test_sandboxed_code_has_no_capabilities():
    """As root, bwrap keeps every capability in its user namespace unless told otherwise;
    CAP_SYS_PTRACE would let one sample write another's memory."""
    r = Sandbox(SandboxLimits(timeout_s=30)).run(PY + ["print(open('/proc/self/status').read())"])
    assert r.ok, r.stderr
    assert _effective_caps(r.stdout) == 0


def test_drop_capabilities_in_a_user_namespace():
    """The unshare fallback maps the sample to root with full capabilities: workers drop them."""
    import shutil

    if not shutil.which("unshare"):
        pytest.skip("no unshare here")
    code = ("from kvdata.sandbox import drop_capabilities; ok = drop_capabilities(); "
            "print(ok); print(open('/proc/self/status').read())")
    r = subprocess.run(["unshare", "--map-root-user", sys.executable, "-c", code], capture_output=True, text=True)
    if r.returncode != 0 and "unshare" in r.stderr:
        pytest.skip(f"user namespaces unavailable: {r.stderr.strip()[:200]}")
    assert r.returncode == 0, r.stderr
    before = subprocess.run(["unshare", "--map-root-user", sys.executable, "-c",
                             "print(open('/proc/self/status').read())"], capture_output=True, text=True)
    assert _effective_caps(before.stdout) != 0          # the namespace did grant them
    assert r.stdout.split()[0] == "True" and _effective_caps(r.stdout) == 0


@pytest.mark.skipif(landlock_abi() == 0, reason="this kernel has no Landlock")
def test_confine_writes_allows_only_the_given_dirs_also_for_children(tmp_path):
    allowed, other = tmp_path / "allowed", tmp_path / "other"
    allowed.mkdir()
    other.mkdir()
    code = f"""
import os, subprocess
from kvdata.sandbox import confine_writes
assert confine_writes([{str(allowed)!r}, '/dev'])
open({str(allowed / 'ok')!r}, 'w').write('x')
open('/dev/null', 'w').write('x')
for attempt in (lambda: open({str(other / 'f')!r}, 'w'), lambda: os.mkdir({str(other / 'd')!r}),
                lambda: os.rename({str(allowed / 'ok')!r}, {str(other / 'moved')!r})):
    try:
        attempt()
        print('wrote')
    except PermissionError:
        print('refused')
r = subprocess.run(['sh', '-c', 'echo x > {other / 'sh'}'], capture_output=True)
print('child refused' if r.returncode else 'child wrote')
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:4] == ["refused", "refused", "refused", "child refused"]
    assert (allowed / "ok").exists() and not list(other.iterdir())


def test_timeout_and_memory_limit():
    r = Sandbox(SandboxLimits(timeout_s=2)).run(PY + ["while True: pass"])
    assert r.timed_out and not r.ok
    # 64 MB more every step, up to 2 GB, then a clean exit: the limit of 300 MB must stop it long before that, and
    # well within the timeout (a limit that did nothing would exit 0, or be stopped by the timeout instead)
    r = Sandbox(SandboxLimits(timeout_s=60, memory_mb=300)).run(
        PY + ["x=[]\nfor _ in range(32): x.append(bytearray(b'1') * (64 << 20))\nprint('survived')"])
    assert not r.ok and not r.timed_out and "survived" not in r.stdout
    assert r.memory_exceeded or r.returncode != 0


_QUEUE_WORKER = """
import json, os, sys, time
me = os.urandom(8).hex()        # pids repeat across sandboxes (each has its own pid namespace)
for i, line in enumerate(iter(sys.stdin.readline, "")):
    item = json.loads(line)
    time.sleep(item["sleep"])
    if item.get("die"):
        os._exit(3)
    print(json.dumps({"i": i, "key": item["key"], "worker": me}), flush=True)
"""


def _queue_run(tmp_path, items, n_workers):
    from kvdata.sandbox_batch import BatchWorker, run_workers

    script = tmp_path / "worker.py"
    script.write_text(_QUEUE_WORKER)

    def parse(line, index, key):
        d = json.loads(line)
        assert (d["i"], d["key"]) == (index, key)
        return d["worker"]

    worker = BatchWorker(Sandbox(SandboxLimits(timeout_s=60), ro_binds=[str(tmp_path)]), script, 60, 2048,
                         parse=parse, fail=lambda stop: stop.kind, broken=lambda stop: "broken")
    return run_workers(worker, items, n_workers)


def test_a_slow_item_leaves_the_rest_to_the_other_worker(tmp_path):
    """Two workers, one shared queue: while one worker sits on a slow item, the other takes every item after it
    (dealt in advance, half of them would have waited behind the slow one)."""
    items = [("slow", {"sleep": 8})] + [(f"fast{i}", {"sleep": 0}) for i in range(30)]
    results, starts = _queue_run(tmp_path, items, 2)
    assert sorted(results) == sorted(k for k, _ in items) and starts == 2
    slow_worker = results["slow"]
    assert sum(1 for k, w in results.items() if w == slow_worker and k != "slow") <= 2, results


def test_a_dying_worker_costs_its_item_and_a_broken_one_the_queue(tmp_path):
    items = [("a", {"sleep": 0}), ("dies", {"sleep": 0, "die": True}), ("b", {"sleep": 0})]
    results, starts = _queue_run(tmp_path, items, 1)
    assert results["dies"] == "worker_died" and len(results["a"]) == len(results["b"]) == 16
    assert starts == 2
    items = [(f"d{i}", {"sleep": 0, "die": True}) for i in range(5)]
    results, starts = _queue_run(tmp_path, items, 1)
    assert results == {"d0": "worker_died", **{f"d{i}": "broken" for i in range(1, 5)}} and starts == 2
