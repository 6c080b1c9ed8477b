"""The zygote <-> parent protocol: ``JobStatus`` / ``RunRequest`` round-trips, frames the parent
cannot read becoming a ``lost`` status (from a real stand-in process), and the real zygote, in
the real sandbox, killing a sample process that sleeps past its time or hogs memory."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kvdata.reverify.harness import JOB_FILE
from kvdata.reverify.protocol import Job, JobStatus, RunRequest, ZygoteClock
from kvdata.reverify.worker import WarmWorker
from kvdata.sandbox import Sandbox, SandboxLimits

FULL = JobStatus(returncode=-9, signal=9, timed_out=True, memory_exceeded=False, finished=False,
                 peak_rss_mb=812.5, wall_s=3.02, seal=bytes(range(40)),
                 clock=ZygoteClock(dispatched=100.25, ended=103.5, teardown_s=0.001))


@pytest.mark.parametrize("status", [FULL, JobStatus(), JobStatus(returncode=0, finished=True, peak_rss_mb=1),
                                    JobStatus(lost="the zygote hung")])
def test_job_status_round_trips_through_json(status):
    again = JobStatus.from_json(json.loads(json.dumps(status.to_json())))
    assert again == status
    assert again.lost == status.lost


def test_run_request_round_trips_and_rejects_garbage():
    request = RunRequest(job_dir="/x/jobs/ab", timeout_s=2.5, memory_mb=None, device="cpu", spares_ahead=0,
                         rehearse=False)
    assert RunRequest.from_json(json.loads(json.dumps(request.to_json()))) == request
    with pytest.raises(ValueError):
        RunRequest.from_json({"op": "run", "job": "/x"})


def _body(**changes):
    return dict(FULL.to_json(), **changes)


@pytest.mark.parametrize("body, says", [
    ([1, 2], "expected an object, got list"),
    ("status", "expected an object, got str"),
    ({k: v for k, v in FULL.to_json().items() if k != "seal"}, "missing ['seal']"),
    (_body(exit_code=0), "unknown ['exit_code']"),
    (_body(timed_out="yes"), "timed_out="),
    (_body(returncode=True), "returncode="),            # a bool is not an exit code
    (_body(returncode=1.5), "returncode="),
    (_body(wall_s=float("nan")), "wall_s="),
    (_body(peak_rss_mb="812"), "peak_rss_mb="),
    (_body(seal="not hex"), "seal="),
    (_body(clock={"dispatched": 1.0}), "clock="),
    (_body(clock={"dispatched": 1.0, "ended": "2", "teardown_s": 0}), "clock="),
])
def test_malformed_status_frame_becomes_a_lost_status(body, says):
    status = JobStatus.from_json(body)
    assert status.lost is not None and status.lost.startswith("malformed status frame")
    assert says in status.lost
    assert status == JobStatus(lost=status.lost)           # nothing of the bad frame is taken as observed


# ---------------------------------------------------------------- the parent against a stand-in zygote
# Speaks the zygote's side of the protocol: a ready frame, then for the first request the bytes
# given in argv[2] (hex), written verbatim; the request line itself goes to argv[1].
STAND_IN = r"""
import json, sys, time
out = sys.stdout.buffer
out.write(json.dumps({"frame": "ready", "pid": 1, "import_s": 0.5, "nbytes": 0}).encode() + b"\n"); out.flush()
line = sys.stdin.buffer.readline()
open(sys.argv[1], "wb").write(line)
out.write(bytes.fromhex(sys.argv[2])); out.flush()
if sys.argv[3] == "exit":
    sys.exit(0)
sys.stdin.buffer.read()                                  # until the parent closes our input
"""


class StandInSandbox:
    """Runs the stand-in script instead of the zygote (the parent code under test is unchanged)."""

    def __init__(self, root: Path, reply: bytes, then: str = "wait"):
        self.root, self.reply, self.then, self.argv = root, reply, then, None

    def make_scratch(self) -> Path:
        d = self.root / f"scratch{len(list(self.root.iterdir()))}"
        d.mkdir()
        return d

    def popen(self, argv, scratch, **kw):
        self.argv = list(argv)
        cmd = [sys.executable, "-c", STAND_IN, str(scratch / "request.json"), self.reply.hex(), self.then]
        return subprocess.Popen(cmd, **kw), scratch


def _frame(header: dict, payload: bytes = b"") -> bytes:
    return json.dumps(dict(header, nbytes=len(payload))).encode() + b"\n" + payload


def _run_stand_in(tmp_path, reply: bytes, then: str = "wait"):
    sandbox = StandInSandbox(tmp_path, reply, then)
    worker = WarmWorker("triton-interpreter", sandbox, startup_timeout_s=30, spares_ahead=2, rehearse=False)
    job_dir = worker.new_job_dir()
    outcome = worker.run(job_dir, timeout_s=1.0, memory_mb=512, device="cpu")
    request = RunRequest.from_json(json.loads((worker.scratch / "request.json").read_text()))
    assert request == RunRequest(job_dir=str(job_dir), timeout_s=1.0, memory_mb=512, device="cpu",
                                 spares_ahead=2, rehearse=False)
    assert sandbox.argv[1:] == ["-I", "-m", "kvdata.reverify.zygote", "triton-interpreter"]
    return worker, outcome


def test_parent_reads_reference_and_status(tmp_path):
    reply = _frame({"frame": "reference"}, b"\x00ref-bytes\n") + _frame({"frame": "status", "status": FULL.to_json()})
    worker, outcome = _run_stand_in(tmp_path, reply)
    try:
        assert outcome.status == FULL and not outcome.worker_died
        assert bytes(outcome.reference) == b"\x00ref-bytes\n"
        assert worker.alive and worker.import_s == 0.5
    finally:
        worker.cleanup()


@pytest.mark.parametrize("reply, then, says", [
    (_frame({"frame": "status", "status": _body(timed_out="yes")}), "wait", "malformed status frame: timed_out="),
    (_frame({"frame": "status", "status": None}), "wait", "expected an object, got NoneType"),
    (b"this is not json\n", "wait", "unreadable frame: JSONDecodeError"),
    (b'["frame", "status"]\n', "wait", "malformed frame header"),
    (b'{"frame": "status"}\n', "wait", "malformed frame header"),             # no nbytes
    (b'{"frame": "reference", "nbytes": -1}\n', "wait", "malformed frame header"),
    (_frame({"frame": "bogus"}), "wait", "unexpected frame 'bogus'"),
    (b'{"frame": "reference", "nbytes": 100}\nshort', "exit", "unreadable frame: ValueError"),
    (b"", "exit", "output ended (it died)"),
    (b"", "wait", "no status within 2 s (the zygote hung)"),        # 1 s job limit + 0.5 s grace
])
def test_frames_the_parent_cannot_read_become_a_lost_status(tmp_path, monkeypatch, reply, then, says):
    import kvdata.reverify.worker as worker_module

    monkeypatch.setattr(worker_module, "STATUS_GRACE_S", 0.5)
    worker, outcome = _run_stand_in(tmp_path, reply, then)
    try:
        assert outcome.worker_died and says in outcome.status.lost, outcome.status
        assert not worker.alive                             # stopped: the next job gets a fresh zygote
    finally:
        worker.cleanup()


# ---------------------------------------------------------------- the real zygote in the real sandbox
SLEEPER = "import time\ntime.sleep(600)\n"
HOG = ("import time\nhog = []\n"
       "while len(hog) < 64:                      # 4 GB, 64 MB at a time, every page written\n"
       "    hog.append(b'\\x01' * (64 << 20))\n    time.sleep(0.02)\n"
       "time.sleep(600)\n")
QUICK = "raise SystemExit(3)\n"                  # the reference fails at once: the harness returns


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    root = tmp_path_factory.mktemp("zygote")
    cache = root / "cache"
    cache.mkdir()
    sandbox = Sandbox(SandboxLimits(timeout_s=600, memory_mb=None), scratch_root=root / "scratch",
                      rw_binds=[str(cache)], env={"TRITON_INTERPRET": "1"})
    worker = WarmWorker("triton-interpreter", sandbox, spares_ahead=1, rehearse=False)
    worker.start()
    yield worker, cache
    worker.cleanup()


def _job(worker: WarmWorker, cache: Path, pytorch_code: str) -> Path:
    job_dir = worker.new_job_dir()
    sample = {"id": "watchdog", "language": "triton", "pytorch_code": pytorch_code, "kernel_code": "",
              "pytorch_functional_code": None}
    job = Job(sample=sample, seeds=[1], bait_seeds=[2], decoy_seed=4, timing_seed=3, device="cpu",
              backend="triton-interpreter", cache_dir=str(cache), poison_mb=0)
    (job_dir / JOB_FILE).write_text(json.dumps(job.to_json()))
    return job_dir


def test_zygote_watchdog_kills_a_sleeping_sample(zygote):
    worker, cache = zygote
    pid = worker.proc.pid
    outcome = worker.run(_job(worker, cache, SLEEPER), timeout_s=3.0, memory_mb=None, device="cpu")
    status = outcome.status
    assert not outcome.worker_died, status
    assert status.timed_out and not status.memory_exceeded and not status.finished
    assert status.signal == signal.SIGKILL and status.returncode == -signal.SIGKILL
    assert status.wall_s >= 3.0                 # not before its time (a busy machine only makes this longer)
    assert status.clock is not None and status.clock.ended >= status.clock.dispatched
    # the zygote itself carries on: the next job runs in the same one, to its end
    outcome = worker.run(_job(worker, cache, QUICK), timeout_s=60.0, memory_mb=None, device="cpu")
    assert outcome.status.finished and not outcome.status.timed_out and outcome.status.returncode == 0
    assert worker.proc.pid == pid


def test_zygote_watchdog_kills_a_memory_hog(zygote):
    worker, cache = zygote
    limit_mb = 1500
    outcome = worker.run(_job(worker, cache, HOG), timeout_s=60.0, memory_mb=limit_mb, device="cpu")
    status = outcome.status
    assert not outcome.worker_died, status
    assert status.memory_exceeded and not status.timed_out, status
    assert status.signal == signal.SIGKILL
    assert limit_mb < status.peak_rss_mb < limit_mb + 1000  # caught on the way up, long before 4 GB
