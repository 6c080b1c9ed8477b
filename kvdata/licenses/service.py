"""One ScanCode matcher per build: worker processes ask it instead of each loading ScanCode's index.

ScanCode's license index takes seconds and ~1.4 GB to load. A build with worker processes would pay
that in every process that meets a text the license cache does not know (the main process for a
tree's LICENSE file, each worker for the first new file header). With a :class:`NoticeService`
the index is loaded at most once per build, in the service's own process, on the first request;
every other process sends the text and gets the notices back.

What crosses the process boundary is a data class: :class:`MatchRequest` (a text, exact or
approximate matching) or :class:`NameRequest` (a license name), answered by a :class:`Reply`.
The service answers each distinct request once (a second worker asking for the same header gets
the first answer), and it never sees cache hits: callers look in the in-memory and on-disk caches
first (:mod:`kvdata.licenses.scancode`).

A process is attached to a service with :func:`attach` (the build does it in its own process and,
as the pool's initializer, in each worker). If the service cannot be reached or dies, the caller
logs it once and matches in its own process, so a lost service costs time, never a result.
"""
from __future__ import annotations

import functools
import logging
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

log = logging.getLogger(__name__)

#: seconds a caller waits for one answer (the first includes the index load) before matching itself
ANSWER_TIMEOUT = 600.0
#: seconds the build waits for the service to listen
START_TIMEOUT = 60.0
#: answers the service remembers (distinct texts of one build); it starts afresh when full
MEMO_MAX = 50_000
#: seconds between the service's checks that the build that started it is still there
PARENT_POLL = 1.0


@dataclass(frozen=True)
class MatchRequest:
    """The license notices of ``text`` (:func:`kvdata.licenses.scancode.match_text`)."""

    text: str
    approximate: bool


@dataclass(frozen=True)
class NameRequest:
    """The SPDX expression a license name stands for (:func:`kvdata.licenses.scancode.match_name`)."""

    name: str


Request = Union[MatchRequest, NameRequest]


@dataclass(frozen=True)
class Reply:
    """The answer to one request: ``value`` (a tuple of Notices, or an SPDX expression or None), or
    ``error`` when matching raised in the service (raised in the caller as :class:`MatchFailed`)."""

    value: Any = None
    error: Optional[str] = None


@dataclass(frozen=True)
class Endpoint:
    """Where a service listens: a Unix socket and the key a client must present."""

    address: str
    authkey: bytes


class ServiceUnavailable(RuntimeError):
    """The service could not answer: not reachable, gone, or too slow."""


class MatchFailed(RuntimeError):
    """ScanCode raised on a text in the service: raised in the asking process as matching there would have."""


def answer(request: Request) -> Any:
    """What a request asks for, computed in this process (loads ScanCode's index on first use)."""
    from kvdata.licenses import scancode

    if isinstance(request, MatchRequest):
        return scancode.match_text(request.text, request.approximate)
    if isinstance(request, NameRequest):
        return scancode.match_name(request.name)
    raise TypeError(f"not a license request: {type(request).__name__}")


# ----------------------------------------------------------------- the service's process
def _serve(endpoint: Endpoint, ready, parent: int) -> None:
    """The service's main loop: one thread per connection, matching under one lock, each distinct
    request answered once. It ends with the build: when it is terminated, or when its parent is gone
    (a build killed outright cannot stop it, so it watches)."""
    from multiprocessing.connection import Listener

    listener = Listener(endpoint.address, "AF_UNIX", authkey=endpoint.authkey)
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    ready.set()
    lock = threading.Lock()
    answered: dict[Request, Reply] = {}     # a second worker asking the same gets the first answer

    def handle(conn) -> None:
        with conn:
            while True:
                try:
                    request = conn.recv()
                except (EOFError, OSError):
                    return
                with lock:
                    reply = answered.get(request)
                    if reply is None:
                        try:
                            reply = Reply(value=answer(request))
                        except Exception as exc:  # noqa: BLE001 - the caller raises it as MatchFailed
                            reply = Reply(error=f"{type(exc).__name__}: {exc}")
                        if len(answered) >= MEMO_MAX:
                            answered.clear()
                        answered[request] = reply
                try:
                    conn.send(reply)
                except OSError:
                    return

    while True:
        try:
            conn = listener.accept()
        except OSError:
            return
        except Exception:  # noqa: BLE001 - a client that fails the handshake is not served
            continue
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(0)


class NoticeService:
    """A process that owns ScanCode's index for one build; use as a context manager.

    Started before the build forks its workers (so it is forked from a quiet process); it loads
    nothing until the first request. The process that starts it is attached to it until
    :meth:`close`; :meth:`worker_setup` attaches a worker (the pool's initializer).
    """

    def __init__(self) -> None:
        import multiprocessing

        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self._folder = tempfile.mkdtemp(prefix="kvdata-licenses-")
        self.endpoint = Endpoint(os.path.join(self._folder, "socket"), os.urandom(16))
        ready = context.Event()
        self._process = context.Process(target=_serve, args=(self.endpoint, ready, os.getpid()), daemon=True,
                                        name="kvdata-license-service")
        self._process.start()
        self._previous = attached()
        if not ready.wait(START_TIMEOUT):
            self.close()
            raise ServiceUnavailable("the license service did not start")
        attach(self.endpoint)

    @property
    def pid(self) -> Optional[int]:
        return self._process.pid

    def worker_setup(self) -> Callable[[], None]:
        """A picklable call that attaches the process it runs in (a build worker) to this service."""
        return functools.partial(attach, self.endpoint)

    def close(self) -> None:
        """Stop the service; the starting process goes back to what it was attached to before."""
        if attached() == self.endpoint:
            attach(self._previous)
        if self._process.is_alive():
            self._process.terminate()
        self._process.join(10)
        shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> "NoticeService":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# ----------------------------------------------------------------- a client's side
_attached: Optional[Endpoint] = None
_client: Optional[tuple[int, Any]] = None       # (pid, connection): a forked child never reuses its parent's
_client_lock = threading.Lock()
_warned = False


def attach(endpoint: Optional[Endpoint]) -> None:
    """Send this process's cache misses to the service at ``endpoint`` (None: match in-process again)."""
    global _attached
    with _client_lock:
        _drop_client()
        _attached = endpoint


def attached() -> Optional[Endpoint]:
    return _attached


def ask(request: Request) -> Any:
    """The answer to ``request``: from the attached service, else (none attached, or it failed)
    computed in this process."""
    global _warned
    if _attached is not None:
        try:
            return _ask_service(request)
        except ServiceUnavailable as exc:
            if not _warned:
                log.warning("license service unavailable (%s): matching in process %d", exc, os.getpid())
                _warned = True
    return answer(request)


def _drop_client() -> None:
    """Close this process's connection (a late answer must not be read as the next one's)."""
    global _client
    if _client is not None and _client[0] == os.getpid():
        try:
            _client[1].close()
        except OSError:
            pass
    _client = None


def _ask_service(request: Request) -> Any:
    global _client
    from multiprocessing.connection import Client

    with _client_lock:          # one request at a time per process: answers come back in order
        endpoint = _attached
        if endpoint is None:
            raise ServiceUnavailable("detached")
        try:
            if _client is None or _client[0] != os.getpid():
                _client = (os.getpid(), Client(endpoint.address, "AF_UNIX", authkey=endpoint.authkey))
            conn = _client[1]
            conn.send(request)
            if not conn.poll(ANSWER_TIMEOUT):
                raise ServiceUnavailable(f"no answer in {ANSWER_TIMEOUT:.0f} s")
            reply = conn.recv()
        except (ServiceUnavailable, OSError, EOFError) as exc:
            _drop_client()
            if isinstance(exc, ServiceUnavailable):
                raise
            raise ServiceUnavailable(f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(reply, Reply):
        raise ServiceUnavailable(f"unexpected reply {type(reply).__name__}")
    if reply.error is not None:
        raise MatchFailed(reply.error)
    return reply.value
