"""Warm workers: a sandboxed zygote that imports torch/Triton once and forks a fresh child per sample.

Why a zygote: importing torch and Triton costs seconds, far over the per-sample budget,
but one long-lived process that runs sample after sample would let one sample's
monkeypatching leak into the next. The zygote imports everything, never runs sample
code and never touches the GPU (CUDA does not survive a fork); each sample runs in a
child forked from it, so it starts from a clean, pre-imported state and its CUDA
context, device errors included, dies with it.

Protocol (zygote stdin/stdout, the parent's side is ``WarmWorker``): the parent sends one
JSON line ``{"op": "run", "job": DIR, "timeout_s": T, "memory_mb": M}``; the zygote
answers with frames, each a JSON header line, optionally followed by ``nbytes`` raw bytes:
``{"frame": "reference", "nbytes": N}`` (the reference blob, read from a pipe the child
closes before importing candidate code, and forwarded as soon as it closes) and then
``{"frame": "status", ...}`` (exit code, signal, timeout, memory, wall time — observed by
the zygote, not reported by the child — and ``seal``: the first bytes of a second pipe,
where the child sends round A's size and sha256 before the bait runs; see
``harness._send_seal``). The child's stdout/stderr go to a log file; it
never holds the protocol pipe. After each job the zygote forks the next job's process
(a "spare", see ``_Spare``) so that on a GPU its device context is created while the
parent judges the previous sample.
"""
from __future__ import annotations

import ctypes
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36


# ============================================================================ zygote side
def _prctl(option: int, value: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _preload(backend_name: str) -> None:
    """Import what every sample needs, without initialising any device."""
    import torch  # noqa: F401
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


def _kill_descendants() -> None:
    """Kill every process below the zygote (orphans of a sample reparent to it: it is a subreaper)."""
    import psutil

    try:
        kids = psutil.Process().children(recursive=True)
    except psutil.Error:
        return
    for k in kids:
        try:
            k.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(kids, timeout=2)
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

    Why: on a GPU each sample needs its own CUDA context, and creating one costs ~0.3-0.5 s.
    The spare creates it while the parent is still judging the previous sample, then
    blocks until the zygote hands it a job over ``ctl_fd``. It never ran anything but
    that warm-up, so it is as clean as a child forked at the job's start.
    """

    pid: int
    ctl_fd: int                 # zygote -> spare: one JSON line, the job
    ref_fd: int                 # spare -> zygote: the reference blob, closed before candidate code runs
    seal_fd: int                # spare -> zygote: round A's seal, closed before the bait runs


def _fork_spare(proto_fds: tuple[int, ...], device: Optional[str]) -> _Spare:
    ref_r, ref_w = os.pipe()
    ctl_r, ctl_w = os.pipe()
    seal_r, seal_w = os.pipe()
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
        _spare_child(ctl_r, ref_w, seal_w, proto_fds, device)
    os.close(ref_w)
    os.close(ctl_r)
    os.close(seal_w)
    return _Spare(pid, ctl_w, ref_r, seal_r)


def _warm_device(device: Optional[str]) -> None:
    """Create this process's CUDA/HIP context (and Triton's driver) before the job arrives."""
    if not device or device == "cpu":
        return
    try:
        import torch

        torch.cuda.set_device(0)
        torch.empty(1, device="cuda")
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001 - the job itself will meet (and report) the same error
        import traceback

        traceback.print_exc()
        return
    try:
        from triton.runtime import driver

        driver.active.get_current_device()
    except Exception:  # noqa: BLE001 - optional: only saves Triton's first-launch set-up
        pass


def _spare_child(ctl_fd: int, ref_fd: int, seal_fd: int, proto_fds: tuple[int, ...],
                 device: Optional[str]) -> None:
    """In the forked child: detach from the protocol, warm up, wait for the job, confine output, run it."""
    try:
        os.setpgid(0, 0)
        _prctl(PR_SET_DUMPABLE, 1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd in set(proto_fds) | {null}:
            if fd > 2:
                try:
                    os.close(fd)
                except OSError:
                    pass
        _warm_device(device)
        line = b""
        while not line.endswith(b"\n"):
            chunk = os.read(ctl_fd, 4096)
            if not chunk:                           # the zygote is gone or retired this spare
                os._exit(0)
            line += chunk
        os.close(ctl_fd)
        job_dir = Path(json.loads(line)["job"])
        log = os.open(job_dir / "worker.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        sys.stdin = open(0, closefd=False)
        sys.stdout = open(1, "w", buffering=1, closefd=False)
        sys.stderr = open(2, "w", buffering=1, closefd=False)
        from kvdata.reverify.harness import run_job

        run_job(job_dir, ref_fd, seal_fd)
    except BaseException:  # noqa: BLE001
        import traceback

        traceback.print_exc()
    finally:
        os._exit(0)


def _dispatch(spare: Optional[_Spare], msg: dict, proto_fds: tuple[int, ...]) -> _Spare:
    """Hand the job to the spare; a spare that died meanwhile is replaced by a fresh child."""
    line = json.dumps({"job": msg["job"]}).encode() + b"\n"
    for attempt in range(2):
        if spare is None or attempt:
            spare = _fork_spare(proto_fds, None)
        try:
            os.write(spare.ctl_fd, line)           # < PIPE_BUF: atomic
            os.close(spare.ctl_fd)
            return spare
        except OSError:
            _retire(spare)
    raise RuntimeError("could not start a sample process")


def _retire(spare: _Spare) -> None:
    for fd in (spare.ctl_fd, spare.ref_fd, spare.seal_fd):
        try:
            os.close(fd)
        except OSError:
            pass
    try:
        os.kill(spare.pid, signal.SIGKILL)
        os.waitpid(spare.pid, 0)
    except (OSError, ChildProcessError):
        pass


def _run_one(msg: dict, proto_fds: tuple[int, ...], spare: Optional[_Spare],
             send_reference: Callable[[list[bytes]], None]) -> dict:
    """Run one job in ``spare`` (or a fresh child); forward the reference as soon as its pipe closes.

    The reference blob is sent to the parent from the reader thread the moment the child
    closes the pipe (before candidate code runs), so the transfer overlaps the candidate's
    rounds. ``send_reference`` must refuse once the status is sent (see ``zygote_main``).
    """
    from kvdata.sandbox import tree_rss_mb

    timeout_s = float(msg.get("timeout_s", 300))
    memory_mb = msg.get("memory_mb")
    t0 = time.monotonic()
    spare = _dispatch(spare, msg, proto_fds)
    pid, r = spare.pid, spare.ref_fd
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            b = os.read(r, 1 << 20)
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
    status = {"frame": "status", "returncode": None, "signal": None, "timed_out": False,
              "memory_exceeded": False, "peak_rss_mb": 0.0}
    while True:
        done, wstatus = os.waitpid(pid, os.WNOHANG)
        if done:
            if os.WIFSIGNALED(wstatus):
                status["signal"] = os.WTERMSIG(wstatus)
                status["returncode"] = -status["signal"]
            else:
                status["returncode"] = os.WEXITSTATUS(wstatus)
            break
        rss = tree_rss_mb(pid)
        status["peak_rss_mb"] = max(status["peak_rss_mb"], rss)
        over_time = time.monotonic() - t0 > timeout_s
        over_mem = bool(memory_mb) and rss > memory_mb
        if over_time or over_mem:
            status["timed_out"] |= over_time
            status["memory_exceeded"] |= over_mem
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            _, wstatus = os.waitpid(pid, 0)
            status["signal"] = os.WTERMSIG(wstatus) if os.WIFSIGNALED(wstatus) else None
            status["returncode"] = -status["signal"] if status["signal"] else os.WEXITSTATUS(wstatus)
            break
        time.sleep(0.01)
    _kill_descendants()
    reader.join(timeout=30)
    os.close(r)
    seal_reader.join(timeout=5)
    os.close(spare.seal_fd)
    status["seal"] = seal[0].hex() if seal else None
    status["wall_s"] = time.monotonic() - t0
    return status


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
    """Entry point of the sandboxed zygote: ``python -m kvdata.reverify.worker BACKEND``."""
    argv = sys.argv[1:] if argv is None else argv
    backend_name = argv[0]
    t0 = time.monotonic()
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)                                   # stray prints cannot corrupt the protocol
    proto_in = os.fdopen(os.dup(0), "rb")
    _preload(backend_name)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_DUMPABLE, 0)                      # children cannot read our memory or fds
    proto_fds = (proto_out.fileno(), proto_in.fileno(), 0)

    lock = threading.RLock()

    def send(header: dict, payload: list[bytes] = ()) -> None:
        header = dict(header, nbytes=sum(len(p) for p in payload))
        with lock:
            proto_out.write(json.dumps(header).encode() + b"\n")
            for part in payload:                    # no join: one copy less of the reference
                proto_out.write(part)
            proto_out.flush()

    send({"frame": "ready", "pid": os.getpid(), "import_s": time.monotonic() - t0})
    spare: Optional[_Spare] = None
    for line in proto_in:
        msg = json.loads(line)
        if msg.get("op") == "exit":
            break
        if msg.get("op") == "ping":
            send({"frame": "pong"})
            continue
        job_open = [True]

        def send_reference(chunks: list[bytes], job_open=job_open) -> None:
            with lock:                              # never after this job's status: it would meet the next job
                if job_open[0]:
                    send({"frame": "reference"}, chunks)

        status = _run_one(msg, proto_fds, spare, send_reference)
        with lock:
            job_open[0] = False
            send(status)
        # The next sample's process, forked now (every descendant was just killed) and
        # warmed up while the parent judges this one.
        spare = _fork_spare(proto_fds, msg.get("device"))
    if spare is not None:
        _retire(spare)


# ============================================================================ parent side
def _read_exactly(stream, n: int) -> bytearray:
    """``n`` bytes into one buffer (a bytearray, so tensors can view it without a copy)."""
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = stream.readinto(view[got:])
        if not k:
            raise ValueError("protocol stream ended inside a frame")
        got += k
    return buf


class WorkerDied(RuntimeError):
    """The zygote itself died or stopped answering; the sample in flight gets `crashed`."""


@dataclass
class JobOutcome:
    reference: Optional[bytes]
    status: dict
    worker_died: bool = False


@dataclass
class WarmWorker:
    """The parent's handle on one sandboxed zygote (one per GPU, or per CPU worker slot)."""

    backend: str
    sandbox: "object"                      # kvdata.sandbox.Sandbox
    startup_timeout_s: float = 180.0
    proc: Optional[subprocess.Popen] = None
    scratch: Optional[Path] = None
    import_s: Optional[float] = None
    starts: int = 0
    _frames: "queue.Queue" = field(default_factory=queue.Queue)
    _jobs: int = 0

    def start(self) -> None:
        scratch = self.sandbox.make_scratch()
        log = open(scratch / "zygote.log", "wb")
        self.proc, self.scratch = self.sandbox.popen(
            [sys.executable, "-I", "-m", "kvdata.reverify.worker", self.backend], scratch=scratch,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        log.close()
        self._frames = queue.Queue()
        threading.Thread(target=self._read_frames, args=(self.proc, self._frames), daemon=True).start()
        self.starts += 1
        ready = self._next_frame(self.startup_timeout_s)
        if ready is None or ready[0].get("frame") != "ready":
            tail = (scratch / "zygote.log").read_text(errors="replace")[-3000:]
            self.stop()
            raise WorkerDied(f"worker for {self.backend} did not start: {tail}")
        self.import_s = ready[0].get("import_s")

    @staticmethod
    def _read_frames(proc: subprocess.Popen, frames: "queue.Queue") -> None:
        out = proc.stdout
        try:
            while True:
                line = out.readline()
                if not line:
                    break
                header = json.loads(line)
                payload = _read_exactly(out, int(header.get("nbytes") or 0))
                frames.put((header, payload))
        except (ValueError, OSError):
            pass
        frames.put(None)

    def _next_frame(self, timeout: float):
        try:
            return self._frames.get(timeout=timeout)
        except queue.Empty:
            return None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def new_job_dir(self) -> Path:
        if not self.alive:
            self.start()
        self._jobs += 1
        d = self.scratch / "jobs" / str(self._jobs)
        d.mkdir(parents=True, exist_ok=True)
        return d

    def run(self, job_dir: Path, timeout_s: float, memory_mb: Optional[int],
            device: Optional[str] = None) -> JobOutcome:
        """Run the job in ``job_dir``; a dead or silent zygote is stopped and reported, never raised."""
        if not self.alive:
            self.start()
        msg = {"op": "run", "job": str(job_dir), "timeout_s": timeout_s, "memory_mb": memory_mb, "device": device}
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.stop()
            return JobOutcome(None, {}, worker_died=True)
        reference = None
        deadline = time.monotonic() + timeout_s + 30
        while True:
            frame = self._next_frame(max(0.1, deadline - time.monotonic()))
            if frame is None:               # zygote died (EOF) or hung past the backstop
                self.stop()
                return JobOutcome(reference, {}, worker_died=True)
            header, payload = frame
            if header.get("frame") == "reference":
                reference = payload
            elif header.get("frame") == "status":
                return JobOutcome(reference, header)

    def stop(self) -> None:
        from kvdata.sandbox import kill_tree

        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    self.proc.stdin.write(b'{"op": "exit"}\n')
                    self.proc.stdin.flush()
                    self.proc.wait(timeout=2)
                except (OSError, subprocess.TimeoutExpired, ValueError):
                    pass
            kill_tree(self.proc)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
        self.proc = None

    def cleanup(self) -> None:
        import shutil

        self.stop()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


if __name__ == "__main__":
    zygote_main()
