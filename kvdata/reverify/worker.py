"""The parent's side of a warm worker: ``WarmWorker`` starts the sandboxed zygote
(``zygote.py``), sends it one ``RunRequest`` per job and reads its frames back.

Why warm: importing torch and Triton costs seconds, far over the per-sample budget; the
zygote pays that once and forks a clean child per sample (see ``zygote.py`` for why and
for the frame format). This side owns the timeouts around the zygote itself: its
start-up, and a backstop past the job's own limit (which the zygote's watchdog enforces).
A zygote that dies, goes silent or sends something that is not a valid frame is stopped
and restarted for the next job; the job in flight gets a ``JobStatus`` whose ``lost``
says what happened: nothing the zygote sends makes ``run`` raise.
"""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from kvdata.reverify.protocol import JobStatus, RunRequest


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
    """The zygote did not start (``WarmWorker.start``); the sample that needed it gets `crashed`."""


@dataclass(frozen=True)
class JobOutcome:
    """What the parent got back for one job: the reference blob (None if none arrived) and the
    zygote's ``JobStatus`` of the sample's process (``lost`` set when there was none)."""

    reference: Optional[bytearray]
    status: JobStatus

    @property
    def worker_died(self) -> bool:
        """The zygote gave no valid status for this job (died, hung, or broke the protocol); it was stopped."""
        return self.status.lost is not None


# How long past the job's own time limit the parent waits for its status before it
# declares the zygote hung (the zygote's watchdog kills the sample at the limit).
STATUS_GRACE_S = 30.0


@dataclass
class WarmWorker:
    """The parent's handle on one sandboxed zygote (one per GPU, or per CPU worker slot)."""

    backend: str
    sandbox: "object"                      # kvdata.sandbox.Sandbox
    startup_timeout_s: float = 180.0
    spares_ahead: Optional[int] = None     # see ReverifyConfig.spares_ahead
    rehearse: bool = True
    proc: Optional[subprocess.Popen] = None
    scratch: Optional[Path] = None
    import_s: Optional[float] = None
    _frames: "queue.Queue" = field(default_factory=queue.Queue)

    def start(self) -> None:
        """Start the zygote in the sandbox and wait for its ``ready`` frame; ``WorkerDied`` if none comes."""
        scratch = self.sandbox.make_scratch()
        log = open(scratch / "zygote.log", "wb")
        self.proc, self.scratch = self.sandbox.popen(
            [sys.executable, "-I", "-m", "kvdata.reverify.zygote", self.backend], scratch=scratch,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        log.close()
        self._frames = queue.Queue()
        threading.Thread(target=self._read_frames, args=(self.proc, self._frames), daemon=True).start()
        ready = self._next_frame(self.startup_timeout_s)
        if not isinstance(ready, tuple) or ready[0]["frame"] != "ready":
            tail = (scratch / "zygote.log").read_text(errors="replace")[-3000:]
            self.stop()
            raise WorkerDied(f"worker for {self.backend} did not start ({ready or 'no ready frame'}): {tail}")
        import_s = ready[0].get("import_s")
        self.import_s = float(import_s) if isinstance(import_s, (int, float)) else None

    @staticmethod
    def _read_frames(proc: subprocess.Popen, frames: "queue.Queue") -> None:
        """Queue each frame as ``(header, payload)``; at the end of the stream, queue why it ended (a str).

        A header must be a JSON object with a string ``frame`` and an integer ``nbytes``;
        anything else ends the stream here (the zygote is then stopped by ``run``).
        """
        out = proc.stdout
        try:
            while True:
                line = out.readline()
                if not line:
                    frames.put("the zygote's output ended (it died)")
                    return
                header = json.loads(line)
                if not (isinstance(header, dict) and isinstance(header.get("frame"), str)
                        and type(header.get("nbytes")) is int and header["nbytes"] >= 0):
                    frames.put(f"malformed frame header: {line[:200]!r}")
                    return
                frames.put((header, _read_exactly(out, header["nbytes"])))
        except (ValueError, OSError, MemoryError, OverflowError) as e:
            frames.put(f"unreadable frame: {type(e).__name__}: {e}")

    def _next_frame(self, timeout: float):
        """The next frame, the reason the stream ended (a str), or None after ``timeout`` seconds."""
        try:
            return self._frames.get(timeout=timeout)
        except queue.Empty:
            return None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def new_job_dir(self) -> Path:
        """A fresh directory for the next job, named by a random token: the scratch dir is
        shared by the worker's samples, so a sample must not be able to guess (and fill)
        the directory of the one after it."""
        import secrets

        if not self.alive:
            self.start()
        (self.scratch / "jobs").mkdir(exist_ok=True)
        d = self.scratch / "jobs" / secrets.token_hex(12)
        d.mkdir()
        return d

    def run(self, job_dir: Path, timeout_s: float, memory_mb: Optional[int],
            device: Optional[str] = None) -> JobOutcome:
        """Run the job in ``job_dir``; a dead, silent or garbled zygote is stopped and reported
        (``JobStatus.lost``), never raised."""
        if not self.alive:
            self.start()
        request = RunRequest(job_dir=str(job_dir), timeout_s=timeout_s, memory_mb=memory_mb, device=device,
                             spares_ahead=self.spares_ahead, rehearse=self.rehearse)
        try:
            self.proc.stdin.write((json.dumps(request.to_json()) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.stop()
            return JobOutcome(None, JobStatus(lost="the zygote's input is closed (it died)"))
        reference = None
        deadline = time.monotonic() + timeout_s + STATUS_GRACE_S
        while True:
            frame = self._next_frame(max(0.1, deadline - time.monotonic()))
            if frame is None:
                status = JobStatus(lost=f"no status within {timeout_s + STATUS_GRACE_S:.0f} s (the zygote hung)")
            elif isinstance(frame, str):
                status = JobStatus(lost=frame)
            elif frame[0]["frame"] == "reference":
                reference = frame[1]
                continue
            elif frame[0]["frame"] == "status":
                status = JobStatus.from_json(frame[0].get("status"))
                if status.lost is None:
                    return JobOutcome(reference, status)
            else:
                status = JobStatus(lost=f"unexpected frame {frame[0]['frame']!r:.100} during a job")
            self.stop()
            return JobOutcome(reference, status)

    def stop(self) -> None:
        """End the zygote: close its input (it retires its spares and exits), then kill what is left."""
        from kvdata.sandbox import kill_tree

        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    self.proc.stdin.close()
                    self.proc.wait(timeout=2)
                except (OSError, subprocess.TimeoutExpired):
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
