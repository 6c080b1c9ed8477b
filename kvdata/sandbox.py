"""Run untrusted code in a confined worker process.

Everything that executes corpus code (a re-verification worker, a structural trace)
goes through ``Sandbox``. What it enforces:

- its own process (a new session, so the whole tree is killed on timeout);
- a wall-clock limit, a resident-memory limit (a watchdog over the whole process tree,
  plus ``RLIMIT_AS`` when no GPU is used), a file-size limit and a core-dump ban;
- a scrubbed environment: nothing is inherited but an allow-list (no ``HF_TOKEN``,
  no cloud credentials); ``HOME`` and ``TMPDIR`` point into the scratch dir;
- no network and writes only to the scratch dir (plus explicit ``rw_binds`` such as a
  compile cache) when bubblewrap is available: ``--unshare-all``, ``/`` read-only.
  Without bubblewrap it falls back to ``unshare --net`` (no network, writes not
  confined) and then to plain rlimits; ``Sandbox.isolation`` says which one ran, and
  every result records it. Inside, code that runs untrusted samples one after another
  (a re-verification worker) also confines each sample's writes to its own directories
  with Landlock (``confine_writes``), under any of these levels;
- no capabilities: bubblewrap run as root keeps them inside its user namespace
  (``CAP_SYS_PTRACE`` would let a sample write another sample's memory), so it gets
  ``--cap-drop ALL``; long-lived workers also call ``drop_capabilities`` themselves,
  which covers the ``unshare`` fallback (``--map-root-user`` grants them too).
"""
from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

import psutil

# Variables a worker may inherit from the caller; everything else is dropped.
ENV_ALLOW = (
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ",
    "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_PLATFORM",
    "ROCM_PATH", "HIP_PATH", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH",
    "TRITON_INTERPRET", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
    "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
    "NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS",
    "PYTHONPATH",
)


@dataclass
class SandboxLimits:
    timeout_s: float = 120.0
    memory_mb: Optional[int] = 8192        # resident memory of the whole process tree
    file_size_mb: int = 1024               # largest file the worker may write (stdout included)
    gpu: bool = False                      # expose /dev (GPU device nodes) to the worker
    network: bool = False
    max_output_chars: int = 20_000         # stdout/stderr kept in the result (the tail)


@dataclass
class SandboxResult:
    returncode: Optional[int]
    timed_out: bool
    memory_exceeded: bool
    stdout: str
    stderr: str
    wall_s: float
    peak_rss_mb: float
    isolation: str
    scratch: Path

    @property
    def signal(self) -> Optional[int]:
        """The signal that ended the worker, if any (negative return codes)."""
        if self.returncode is not None and self.returncode < 0:
            return -self.returncode
        if self.returncode is not None and self.returncode > 128 and self.isolation == "bwrap":
            return self.returncode - 128  # bwrap reports a child killed by a signal as 128+n
        return None

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.memory_exceeded


def detect_isolation() -> str:
    """The strongest isolation this machine offers: 'bwrap', 'unshare' or 'rlimits'."""
    for probe, name in ((["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev",
                          "--proc", "/proc", "true"], "bwrap"),
                        (["unshare", "--net", "--map-root-user", "true"], "unshare")):
        if shutil.which(probe[0]) is None:
            continue
        try:
            if subprocess.run(probe, capture_output=True, timeout=20).returncode == 0:
                return name
        except (OSError, subprocess.TimeoutExpired):
            pass
    return "rlimits"


_ISOLATION: Optional[str] = None


def isolation_level() -> str:
    global _ISOLATION
    if _ISOLATION is None:
        _ISOLATION = os.environ.get("KVDATA_SANDBOX") or detect_isolation()
    return _ISOLATION


@dataclass
class Sandbox:
    """Runs commands confined; one instance may run many commands, one at a time or in parallel."""

    limits: SandboxLimits = field(default_factory=SandboxLimits)
    scratch_root: Optional[Path] = None       # where per-run scratch dirs are made
    ro_binds: Sequence[str] = ()              # extra paths to expose read-only (bwrap)
    rw_binds: Sequence[str] = ()              # extra writable paths, e.g. a compile cache
    env: Mapping[str, str] = field(default_factory=dict)   # set in the worker, after scrubbing

    @property
    def isolation(self) -> str:
        return isolation_level()

    # ------------------------------------------------------------------ building blocks
    def make_scratch(self) -> Path:
        root = Path(self.scratch_root or tempfile.gettempdir())
        root.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix="kvsbx-", dir=root))

    def worker_env(self, scratch: Path) -> dict[str, str]:
        env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env.update({"HOME": str(scratch), "TMPDIR": str(scratch / "tmp"),
                    "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
                    "TRITON_CACHE_DIR": str(scratch / ".triton"),
                    # There is no network in here: make Hub clients fail at once instead of
                    # retrying with back-off (KernelBench level 4 calls from_pretrained).
                    "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
        env.update(self.env)
        return env

    def wrap(self, argv: Sequence[str], scratch: Path, env: Mapping[str, str]) -> list[str]:
        """The command line that runs ``argv`` under this machine's isolation."""
        level = self.isolation
        if level == "bwrap":
            cmd = ["bwrap", "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL",
                   "--ro-bind", "/", "/", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run"]
            # Home directories hold credentials (~/.cache/huggingface/token, ~/.aws, ~/.ssh):
            # hide them, then expose again only the interpreter and its import paths.
            for home in _home_dirs():
                cmd += ["--tmpfs", home]
            for p in _interpreter_paths():
                cmd += ["--ro-bind", p, p]
            cmd += ["--dev-bind", "/dev", "/dev"] if self.limits.gpu else ["--dev", "/dev"]
            if self.limits.network:
                cmd += ["--share-net"]
            for p in self.ro_binds:
                cmd += ["--ro-bind", str(p), str(p)]
            for p in list(self.rw_binds) + [str(scratch)]:
                cmd += ["--bind", str(p), str(p)]
            # The tmpfs layers stay read-only: a write outside scratch fails loudly (EROFS)
            # instead of landing in a private tmpfs where it would look like it succeeded.
            for p in _hidden_roots():
                cmd += ["--remount-ro", p]
            cmd += ["--chdir", str(scratch), "--clearenv"]
            for k, v in env.items():
                cmd += ["--setenv", k, v]
            return cmd + ["--"] + list(argv)
        if level == "unshare" and not self.limits.network:
            return ["unshare", "--net", "--map-root-user", "--"] + list(argv)
        return list(argv)

    def _preexec(self):
        limits = self.limits

        def apply() -> None:
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            fsize = limits.file_size_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            if limits.memory_mb and not limits.gpu:
                # Address space gets headroom over the RSS limit: allocators reserve more than they touch.
                cap = (limits.memory_mb + 4096) * 1024 * 1024
                resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        return apply

    # ------------------------------------------------------------------ running
    def popen(self, argv: Sequence[str], scratch: Optional[Path] = None, **kwargs) -> tuple[subprocess.Popen, Path]:
        """Start a long-lived confined worker (pipes are the caller's); returns (process, scratch)."""
        scratch = scratch or self.make_scratch()
        (scratch / "tmp").mkdir(parents=True, exist_ok=True)
        env = self.worker_env(scratch)
        proc = subprocess.Popen(self.wrap(argv, scratch, env), cwd=scratch, env=env,
                                start_new_session=True, preexec_fn=self._preexec(), **kwargs)
        return proc, scratch

    def run(self, argv: Sequence[str], scratch: Optional[Path] = None,
            stdin: Optional[bytes] = None) -> SandboxResult:
        """Run ``argv`` to completion (or to its limits) and collect what it printed."""
        scratch = scratch or self.make_scratch()
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            t0 = time.monotonic()
            proc, scratch = self.popen(argv, scratch=scratch, stdout=out, stderr=err,
                                       stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL)
            watch = Watchdog(proc.pid, self.limits.timeout_s, self.limits.memory_mb, kill=lambda: kill_tree(proc))
            watch.start()
            if stdin is not None:
                try:
                    proc.stdin.write(stdin)
                    proc.stdin.close()
                except (BrokenPipeError, OSError):
                    pass
            proc.wait()
            watch.stop()
            wall = time.monotonic() - t0
            return SandboxResult(
                returncode=proc.returncode, timed_out=watch.timed_out,
                memory_exceeded=watch.memory_exceeded,
                stdout=_tail(out, self.limits.max_output_chars),
                stderr=_tail(err, self.limits.max_output_chars),
                wall_s=wall, peak_rss_mb=watch.peak_rss_mb, isolation=self.isolation, scratch=scratch)

    def run_python(self, script: str | os.PathLike, args: Sequence[str] = (), **kw) -> SandboxResult:
        """Run a Python file with this interpreter (``-I``: no user site, no cwd on sys.path)."""
        return self.run([sys.executable, "-I", str(script), *map(str, args)], **kw)


def _home_dirs() -> list[str]:
    homes = {os.path.expanduser("~"), "/root"}
    return sorted(h for h in homes if h not in ("/", "") and os.path.isdir(h))


def _hidden_roots() -> list[str]:
    """Folders the sandbox covers with an empty tmpfs: home directories (credentials), /tmp and /run."""
    return ["/tmp", "/run"] + _home_dirs()


def _interpreter_paths() -> list[str]:
    """Paths under a hidden root that the worker's Python needs: the interpreter (pyenv, a venv),
    its import paths and kvdata itself (an editable install points into a checkout, which may
    live under /tmp or a home directory)."""
    hidden = _hidden_roots()
    wanted = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    wanted.update(p for p in sys.path if p)
    import kvdata  # the package itself, wherever it is installed
    wanted.add(str(Path(kvdata.__file__).resolve().parent.parent))
    out = []
    for p in sorted(wanted):
        real = os.path.realpath(p)
        if os.path.exists(real) and any(real.startswith(h + os.sep) for h in hidden):
            out.append(real)
    # Keep only the outermost paths.
    return [p for p in out if not any(p != q and p.startswith(q + os.sep) for q in out)]


PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 4, 24, 36, 38


@functools.lru_cache(maxsize=None)
def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> int:
    """prctl(2) with one argument: 0 on success, -1 where it failed (errno in ``ctypes.get_errno``)."""
    try:
        return _libc().prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        return -1


def drop_capabilities() -> bool:
    """Give up every capability for good (bounding set, then effective/permitted/inheritable).

    For code already inside the sandbox: without ``CAP_SYS_PTRACE`` a process cannot trace
    or write the memory of a non-dumpable sibling, even one of the same uid. Also sets
    ``no_new_privs``, so no executable can grant them back. Returns False where the
    kernel refused (the caller runs on; ``isolation`` already says what ran).
    """
    import ctypes

    prctl(PR_SET_NO_NEW_PRIVS, 1)
    for cap in range(64):
        if prctl(PR_CAPBSET_DROP, cap) != 0 and ctypes.get_errno() == 22:     # EINVAL: past the last
            break

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    header, data = Header(0x20080522, 0), (Data * 2)()      # _LINUX_CAPABILITY_VERSION_3: all zero
    nr_capset = {"x86_64": 126, "aarch64": 91}.get(os.uname().machine)
    if nr_capset is None or _libc().syscall(nr_capset, ctypes.byref(header), data) != 0:
        return False
    return True


# Landlock (Linux >= 5.13): an unprivileged process can take away its own right to write
# anywhere but a few directories; children inherit it. Access rights by ABI version: the
# write-like ones only (reads, execution and device ioctls stay as the sandbox left them).
_LANDLOCK_WRITE = {1: 0b1_1111_1111_0010, 2: 1 << 13, 3: 1 << 14}  # WRITE_FILE..MAKE_SYM; REFER; TRUNCATE
_LANDLOCK_FILE_RIGHTS = (1 << 1) | (1 << 14)                        # WRITE_FILE, TRUNCATE: all a file rule may hold
_NR_LANDLOCK_CREATE_RULESET, _NR_LANDLOCK_ADD_RULE, _NR_LANDLOCK_RESTRICT_SELF = 444, 445, 446  # every arch


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where Landlock is missing or disabled."""
    import ctypes

    version = _libc().syscall(_NR_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(0, int(version))


def confine_writes(paths: Sequence[os.PathLike | str]) -> bool:
    """From now on this process and its children may create, change or delete files only
    beneath ``paths`` (Landlock); existing open descriptors keep working. True if applied.

    Why, beyond bubblewrap: a re-verification worker's scratch dir and compile cache are
    shared by the samples it runs one after another, so without this a sample could plant
    files in the next sample's job dir or another sample's compiled kernels. Under the
    ``unshare`` fallback it is the only write confinement there is.
    """
    import ctypes
    import struct

    abi = landlock_abi()
    if abi < 1:
        return False
    rights = 0
    for version, bits in _LANDLOCK_WRITE.items():
        if abi >= version:
            rights |= bits
    libc = _libc()
    attr = ctypes.create_string_buffer(struct.pack("<Q", rights))   # handled_access_fs (the ABI 1 layout)
    ruleset = libc.syscall(_NR_LANDLOCK_CREATE_RULESET, attr, ctypes.c_size_t(8), ctypes.c_uint32(0))
    if ruleset < 0:
        return False
    try:
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
                allowed = rights if is_dir else rights & _LANDLOCK_FILE_RIGHTS
                rule = ctypes.create_string_buffer(struct.pack("<Qi", allowed, fd))   # packed path_beneath_attr
                if libc.syscall(_NR_LANDLOCK_ADD_RULE, ruleset, ctypes.c_int(1), rule, ctypes.c_uint32(0)) != 0:
                    return False
            finally:
                os.close(fd)
        prctl(PR_SET_NO_NEW_PRIVS, 1)                                  # required by Landlock
        return libc.syscall(_NR_LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) == 0
    finally:
        os.close(ruleset)


def kill_tree(proc: subprocess.Popen) -> None:
    """Kill a worker and everything it started (it runs in its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        for child in psutil.Process(proc.pid).children(recursive=True):
            child.kill()
        proc.kill()
    except (psutil.Error, ProcessLookupError):
        pass


def tree_rss_mb(pid: int) -> float:
    try:
        p = psutil.Process(pid)
        procs = [p] + p.children(recursive=True)
    except psutil.Error:
        return 0.0
    total = 0
    for q in procs:
        try:
            total += q.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


class Watchdog(threading.Thread):
    """Kills a process tree that runs past its wall-clock limit or its resident-memory limit.

    The one watchdog of everything that runs untrusted code: ``Sandbox.run`` watches its
    worker with it, and the re-verification zygote (``kvdata.reverify.zygote``) each
    sample's forked process. It polls the tree's RSS (``tree_rss_mb``) every ``period_s``,
    keeps the peak, and past a limit calls ``kill`` once and records which limit it was.
    It never reaps the process: its owner waits for it and then calls ``stop``.
    ``timeout_s`` / ``memory_mb``: None (or 0) for no limit.
    """

    def __init__(self, pid: int, timeout_s: Optional[float], memory_mb: Optional[float],
                 kill: Callable[[], None], period_s: float = 0.05):
        super().__init__(daemon=True)
        self.pid, self.timeout_s, self.memory_mb, self.kill, self.period_s = pid, timeout_s, memory_mb, kill, period_s
        self.timed_out = False
        self.memory_exceeded = False
        self.peak_rss_mb = 0.0
        self._halt = threading.Event()
        self._started_at = time.monotonic()

    def run(self) -> None:
        while not self._halt.is_set():
            rss = tree_rss_mb(self.pid)
            self.peak_rss_mb = max(self.peak_rss_mb, rss)
            self.memory_exceeded = bool(self.memory_mb) and rss > self.memory_mb
            self.timed_out = bool(self.timeout_s) and time.monotonic() - self._started_at > self.timeout_s
            if self.memory_exceeded or self.timed_out:
                self.kill()
                return
            self._halt.wait(self.period_s)

    def stop(self) -> None:
        """End the watch (the process has ended, or its owner ended it); the verdicts stay."""
        self._halt.set()
        self.join(timeout=1)


def _tail(f, limit: int) -> str:
    f.seek(0, os.SEEK_END)
    size = f.tell()
    f.seek(max(0, size - limit * 4))
    text = f.read().decode("utf-8", "replace")
    return text[-limit:]
