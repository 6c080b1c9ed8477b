"""The sandboxed zygote: imports torch/Triton once and forks a fresh child per sample.

Why a zygote: importing torch and Triton costs seconds, far over the per-sample budget,
but one long-lived process that runs sample after sample would let one sample's
monkeypatching leak into the next. The zygote imports everything, never runs sample
code and never touches the GPU (CUDA does not survive a fork); each sample runs in a
child forked from it, so it starts from a clean, pre-imported state and its CUDA
context, device errors included, dies with it. Its parent-side client is
``worker.WarmWorker``; it runs as ``python -I -m kvdata.reverify.zygote BACKEND``.

Protocol (zygote stdin/stdout; the data classes are in ``protocol.py``): the parent sends
one JSON line per job, a ``RunRequest``, and closes stdin to end the zygote. The zygote
answers with frames, each a JSON header line, optionally followed by ``nbytes`` raw bytes:
``{"frame": "ready", "pid": P, "import_s": S}`` once at start; per job
``{"frame": "reference", "nbytes": N}`` (the reference blob, read from a pipe the child
closes before importing candidate code, and forwarded as soon as it closes) and then
``{"frame": "status", "status": JobStatus}`` (exit code, signal, timeout, memory, wall
time — observed by the zygote, not reported by the child — and ``seal``: the first bytes
of a second pipe, where the child sends round A's size and sha256 before the bait runs;
see ``harness._send_seal``). Limits are enforced by the sandbox's ``Watchdog`` on the
child's process tree. The child's stdout/stderr go to a log file; it never holds the
protocol pipe. As each job starts, the zygote forks the processes of the next jobs
("spares", see ``_Spare``; three ahead on a GPU) so that their device context is created,
and the harness's GPU work rehearsed (``rehearsal.py``), while earlier samples run and
the parent judges them; a spare a running sample tampered with is replaced before it
gets a job (``_spare_is_clean``).
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

from kvdata.reverify.protocol import JobStatus, RunRequest, ZygoteClock
from kvdata.sandbox import PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE, Watchdog, prctl

# Spares kept forked ahead on a GPU (default; the run message may say otherwise). A spare's
# warm-up (context ~0.2 s + rehearsal ~0.3 s on an H200) spans about two sample cycles
# (~0.2 s each); measured side by side (bench_reverify.py --spares-ahead): 1 ahead left
# 0.18 s of waiting per sample, 2 left 0.07 s, 3 left none. On the CPU nothing is warmed: one.
SPARES_AHEAD_GPU = 3


def _preload(backend_name: str) -> None:
    """Import what every sample needs, without initialising any device."""
    import torch
    import torch.nn  # noqa: F401

    try:
        import triton  # noqa: F401
        import triton.language  # noqa: F401
        import triton.runtime.jit  # noqa: F401
        if os.environ.get("TRITON_INTERPRET") == "1":
            import triton.runtime.interpreter  # noqa: F401
        else:
            _warm_triton_compiler()
    except ImportError:
        pass
    try:
        import numpy.random  # noqa: F401  (seed_everything seeds it)
    except ImportError:
        pass
    import hashlib  # noqa: F401  (input fingerprints)
    import concurrent.futures  # noqa: F401  (round A's seal hashes large outputs on a helper thread)

    import kvdata.reverify.checks  # noqa: F401
    import kvdata.reverify.harness  # noqa: F401
    from kvdata.reverify.defences import torch_op_recorder

    with torch_op_recorder():           # its first use imports torch._dynamo: ~1 s (3.3 s on the H200 host)
        torch.empty(1)
    import kvdata.reverify.rehearsal  # noqa: F401  (spares rehearse on a GPU)
    import kvdata.reverify.tensor_blob  # noqa: F401
    from kvdata.reverify.backends import backend_class

    backend_class(backend_name)
    # Everything imported so far is permanent: a child's gc.collect() neither scans it nor
    # touches its pages (no copy-on-write storm after fork).
    import gc

    gc.collect()
    gc.freeze()


def _warm_triton_compiler() -> None:
    """Compute Triton's installation hash once, in the zygote, so no sample child pays for it.

    Every compiled-kernel lookup keys on ``triton_key()``, a SHA-256 over Triton's compiler
    sources and its ``libtriton`` shared object (about 0.4-0.8 s); it is memoised per process,
    so children forked after this call inherit the value. It reads files only: no device is
    touched. Absent in some Triton versions, hence optional.
    """
    try:
        from triton.runtime.cache import triton_key
    except ImportError:
        return
    try:
        triton_key()
    except Exception:  # noqa: BLE001 - only an optimisation; the sample's own launch recomputes it
        pass


def _kill_descendants(keep: Sequence[int] = (), wait: bool = True) -> None:
    """Kill every process below the zygote (orphans of a sample reparent to it: it is a subreaper).

    ``keep``: the spares of the next samples, spared with their own descendants. Nothing of
    a sample can end up below one: orphans reparent to the zygote, never to a sibling.
    ``wait``: until they are gone (a GPU process takes ~0.1 s to tear its context down, more
    with much device memory; the next sample must not start before that memory is free), at
    most 30 s for one stuck in the kernel; else only the already-dead are reaped.
    """
    import psutil

    try:
        kids = psutil.Process().children(recursive=True)
        spared = set()
        for pid in keep:
            try:
                spared |= {pid} | {k.pid for k in psutil.Process(pid).children(recursive=True)}
            except psutil.Error:
                pass
        kids = [k for k in kids if k.pid not in spared]
    except psutil.Error:
        return
    for k in kids:
        try:
            k.kill()
        except psutil.Error:
            pass
    if wait:
        psutil.wait_procs(kids, timeout=30)
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


@dataclass
class _Spare:
    """A child forked ahead of its job (fresh from the zygote, no sample code run yet).

    Why: on a GPU each sample needs its own CUDA context, and creating one costs ~0.2-0.5 s.
    Spares are forked as earlier samples start (``SPARES_AHEAD_GPU`` of them) and create
    their context and rehearse while those samples run and the parent judges them, then
    block until the zygote hands them a job over
    ``ctl_fd``. It never ran anything but that warm-up, so it is as clean as a child forked
    at the job's start. It is not dumpable until it has its job (the running sample cannot
    trace it or write its memory), and one that was stopped, traced or signalled meanwhile is
    replaced (``_spare_is_clean``).
    """

    pid: int
    ctl_fd: int                 # zygote -> spare: one line, the job dir as a JSON string
    ref_fd: int                 # spare -> zygote: the reference blob, closed before candidate code runs
    seal_fd: int                # spare -> zygote: round A's seal, closed before the bait runs
    done_fd: int                # spare -> zygote: one byte once the harness has returned (see _run_one)


def _fork_spare(device: Optional[str], rehearse: bool = True) -> _Spare:
    """Fork a spare that keeps only its own pipe ends (see ``_spare_child``)."""
    ref_r, ref_w = os.pipe()
    ctl_r, ctl_w = os.pipe()
    seal_r, seal_w = os.pipe()
    done_r, done_w = os.pipe()
    try:                                            # bigger pipe: fewer wake-ups for a large reference
        import fcntl

        fcntl.fcntl(ref_w, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (OSError, ImportError):
        pass
    pid = os.fork()
    if pid == 0:
        os.close(ref_r)
        os.close(ctl_w)
        os.close(seal_r)
        os.close(done_r)
        _spare_child(ctl_r, ref_w, seal_w, done_w, device, rehearse)
    for fd in (ref_w, ctl_r, seal_w, done_w):
        os.close(fd)
    return _Spare(pid, ctl_w, ref_r, seal_r, done_r)


def _warm_device(device: Optional[str], rehearse: bool = True) -> dict:
    """Create this process's CUDA/HIP context, then rehearse the harness's GPU work
    (``rehearsal.py``: lazy kernel loads, cuBLAS/cuDNN, Triton's launcher), before the job arrives.
    Returns the seconds each took (diagnostics: off the sample's clock when the spare is ready in time)."""
    spent: dict = {}
    if not device or device == "cpu":
        return spent
    t0 = time.monotonic()
    try:
        import torch

        torch.cuda.set_device(0)
        torch.empty(1, device="cuda")
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001 - the job itself will meet (and report) the same error
        import traceback

        traceback.print_exc()
        return spent
    from kvdata.reverify.harness import init_triton_driver

    init_triton_driver()
    spent["context"] = round(time.monotonic() - t0, 4)
    if not rehearse:
        return spent
    t0 = time.monotonic()
    try:
        from kvdata.reverify.rehearsal import rehearse as run_rehearsal

        run_rehearsal("cuda")
    except Exception:  # noqa: BLE001 - optional: only moves first-use costs off the sample's clock
        import traceback

        traceback.print_exc()
    spent["rehearsal"] = round(time.monotonic() - t0, 4)
    return spent


def _close_fds_except(keep: set[int]) -> None:
    """Close every descriptor above 2 not in ``keep``: the protocol pipe, and the pipe ends of
    the running sample and of the other spares (with another spare's job pipe, this one's
    sample could hand that spare a job of its own making)."""
    try:
        fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 1024))
    for fd in fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _spare_child(ctl_fd: int, ref_fd: int, seal_fd: int, done_fd: int, device: Optional[str],
                 rehearse: bool) -> None:
    """In the forked child: detach from the protocol, warm up, wait for the job, confine output, run it."""
    try:
        os.setpgid(0, 0)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        _close_fds_except({ctl_fd, ref_fd, seal_fd, done_fd})
        warmup = _warm_device(device, rehearse)
        line = b""
        while not line.endswith(b"\n"):
            chunk = os.read(ctl_fd, 4096)
            if not chunk:                           # the zygote is gone or retired this spare
                os._exit(0)
            line += chunk
        received = time.monotonic()
        os.close(ctl_fd)
        prctl(PR_SET_DUMPABLE, 1)                   # /proc/self of the sample's own code belongs to it
        job_dir = Path(json.loads(line))
        log = os.open(job_dir / "worker.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        sys.stdin = open(0, closefd=False)
        sys.stdout = open(1, "w", buffering=1, closefd=False)
        sys.stderr = open(2, "w", buffering=1, closefd=False)
        from kvdata.reverify.harness import run_job

        run_job(job_dir, ref_fd, seal_fd, received_at=received, warmup=warmup)
    except BaseException:  # noqa: BLE001
        import traceback

        traceback.print_exc()
    finally:
        try:
            os.write(done_fd, b"D")                 # files written; the zygote ends us (see _run_one)
        except OSError:
            pass
        os._exit(0)


def _spare_is_clean(spare: _Spare) -> bool:
    """Whether the spare is alive, running, untraced and has no signal pending.

    The spare waits while another sample runs, and that sample's code may signal it (stop it:
    the next sample would time out; kill it) or try to trace it. Checked after every process
    of that sample is dead, so nothing can change it between this check and the job.
    """
    try:
        done, _ = os.waitpid(spare.pid, os.WNOHANG)
    except ChildProcessError:
        return False
    if done:
        return False
    try:
        fields = dict(line.split(":", 1) for line in Path(f"/proc/{spare.pid}/status").read_text().splitlines()
                      if ":" in line)
    except OSError:
        return False
    state = fields.get("State", "").strip()[:1]
    return (state in ("S", "R", "D")
            and fields.get("TracerPid", "0").strip() == "0"
            and int(fields.get("SigPnd", "0"), 16) == 0
            and int(fields.get("ShdPnd", "0"), 16) == 0)


def _dispatch(spare: Optional[_Spare], job_dir: str) -> _Spare:
    """Hand the job to the spare; a spare that died or was tampered with is replaced by a fresh child."""
    line = json.dumps(job_dir).encode() + b"\n"
    if spare is not None and not _spare_is_clean(spare):
        _retire(spare)
        spare = None
    for attempt in range(2):
        if spare is None or attempt:
            spare = _fork_spare(None)
        try:
            os.write(spare.ctl_fd, line)           # < PIPE_BUF: atomic
            os.close(spare.ctl_fd)
            return spare
        except OSError:
            _retire(spare)
    raise RuntimeError("could not start a sample process")


def _retire(spare: _Spare) -> None:
    for fd in (spare.ctl_fd, spare.ref_fd, spare.seal_fd, spare.done_fd):
        try:
            os.close(fd)
        except OSError:
            pass
    try:
        os.kill(spare.pid, signal.SIGKILL)
        os.waitpid(spare.pid, 0)
    except (OSError, ChildProcessError):
        pass


def _run_one(request: RunRequest, spares: list[_Spare],
             send_reference: Callable[[list[bytes]], None]) -> JobStatus:
    """Run one job in ``spare`` (or a fresh child) under the sandbox's ``Watchdog``; forward the
    reference as soon as its pipe closes.

    The reference blob is sent to the parent from the reader thread the moment the child
    closes the pipe (before candidate code runs), so the transfer overlaps the candidate's
    rounds. ``send_reference`` must refuse once the status is sent (see ``zygote_main``).
    ``spares``: the processes forked ahead for the next jobs; the first runs this one, and
    the list is topped up as the job starts (before any thread exists: a fork copies one
    thread).
    """
    t_wait = time.monotonic()
    _kill_descendants(keep=[s.pid for s in spares])   # the previous sample's processes are gone first
    t0 = time.monotonic()
    spare = _dispatch(spares.pop(0) if spares else None, request.job_dir)
    ahead = request.spares_ahead
    if ahead is None:
        ahead = SPARES_AHEAD_GPU if request.device and request.device != "cpu" else 1
    while len(spares) < ahead:
        spares.append(_fork_spare(request.device, request.rehearse))
    watchdog = Watchdog(spare.pid, request.timeout_s, request.memory_mb, kill=lambda: _kill_group(spare.pid),
                        period_s=0.01)
    watchdog.start()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            b = os.read(spare.ref_fd, 1 << 20)
            if not b:
                break
            chunks.append(b)
        if chunks:
            send_reference(chunks)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    seal: list[bytes] = []
    seal_reader = threading.Thread(target=_read_seal, args=(spare.seal_fd, seal), daemon=True)
    seal_reader.start()
    finished = _wait_until_done(spare)
    watchdog.stop()                                 # before the reap: it must never see the pid reused
    returncode = signum = None
    if finished:
        # The harness returned: its files are written. The process (and anything it
        # started) is killed now and reaped before the next job, so its device teardown
        # overlaps the parent's judging. After SIGKILL none of its code runs again: the
        # files the parent reads can no longer change size (no SIGBUS) and the process
        # learns nothing after round B that could improve an answer. A candidate that
        # writes this byte early only cuts its own run short.
        returncode = 0
    else:
        _, wstatus = os.waitpid(spare.pid, 0)
        if os.WIFSIGNALED(wstatus):
            signum = os.WTERMSIG(wstatus)
            returncode = -signum
        else:
            returncode = os.WEXITSTATUS(wstatus)
    ended = time.monotonic()
    _kill_descendants(keep=[s.pid for s in spares], wait=not finished)
    reader.join(timeout=30)
    os.close(spare.ref_fd)
    seal_reader.join(timeout=5)
    for fd in (spare.seal_fd, spare.done_fd):
        os.close(fd)
    return JobStatus(returncode=returncode, signal=signum, timed_out=watchdog.timed_out,
                     memory_exceeded=watchdog.memory_exceeded, finished=finished,
                     peak_rss_mb=watchdog.peak_rss_mb, wall_s=time.monotonic() - t0,
                     seal=seal[0] if seal else None,
                     clock=ZygoteClock(dispatched=t0, ended=ended, teardown_s=t0 - t_wait))


def _wait_until_done(spare: _Spare) -> bool:
    """Wait until the harness has written its done byte (True) or the process ends without it
    (False), on its own or killed by the watchdog. The pipe is looked at after the exit is
    seen, so a process that wrote the byte and exited at once still counts as done. An ended
    process is left unreaped (``WNOWAIT``)."""
    import select

    watch_done = True
    while True:
        exited = os.waitid(os.P_PID, spare.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        if watch_done:
            if select.select([spare.done_fd], [], [], 0 if exited else 0.01)[0]:
                if os.read(spare.done_fd, 1):
                    return True
                watch_done = False                  # EOF: the process is exiting; waitid will see it
        elif not exited:
            time.sleep(0.01)
        if exited:
            return False


def _kill_group(pgid: int) -> None:
    """SIGKILL a sample's process group (its process made itself the group leader)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def _read_seal(fd: int, into: list) -> None:
    """The first ``SEAL.size`` bytes of the seal pipe (what came first was written first), then drain to EOF.

    Draining (and discarding) the rest means a candidate that keeps writing to its copy
    of the pipe never blocks on it, nor makes the zygote hold what it wrote.
    """
    from kvdata.reverify.tensor_blob import SEAL

    head = b""
    try:
        while True:
            b = os.read(fd, 1 << 16)
            if not b:
                break
            if len(head) < SEAL.size:
                head += b[:SEAL.size - len(head)]
    except OSError:
        pass
    if head:
        into.append(head)


def zygote_main(argv: Optional[list[str]] = None) -> None:
    """Entry point of the sandboxed zygote: ``python -I -m kvdata.reverify.zygote BACKEND``.

    Runs one job per ``RunRequest`` line on stdin until stdin closes.
    """
    argv = sys.argv[1:] if argv is None else argv
    backend_name = argv[0]
    t0 = time.monotonic()
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)                                   # stray prints cannot corrupt the protocol
    proto_in = os.fdopen(os.dup(0), "rb")
    from kvdata.sandbox import drop_capabilities

    drop_capabilities()                             # else a sample could trace the zygote or a spare
    _preload(backend_name)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_DUMPABLE, 0)                       # children cannot read our memory or fds

    lock = threading.RLock()

    def send(header: dict, payload: Sequence[bytes] = ()) -> None:
        header = dict(header, nbytes=sum(len(p) for p in payload))
        with lock:
            proto_out.write(json.dumps(header).encode() + b"\n")
            for part in payload:                    # no join: one copy less of the reference
                proto_out.write(part)
            proto_out.flush()

    send({"frame": "ready", "pid": os.getpid(), "import_s": time.monotonic() - t0})
    spares: list[_Spare] = []
    for line in proto_in:
        request = RunRequest.from_json(json.loads(line))
        job_open = [True]

        def send_reference(chunks: list[bytes], job_open=job_open) -> None:
            with lock:                              # never after this job's status: it would meet the next job
                if job_open[0]:
                    send({"frame": "reference"}, chunks)

        status = _run_one(request, spares, send_reference)
        with lock:
            job_open[0] = False
            send({"frame": "status", "status": status.to_json()})
    for spare in spares:
        _retire(spare)


if __name__ == "__main__":
    zygote_main()
