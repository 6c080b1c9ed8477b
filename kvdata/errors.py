"""What a failure says to the user: one line, naming the file where the exception knows it.

The command line (:mod:`kvdata.cli`) turns every exception a command raises into ``one_line(e)`` on stderr with
exit code 1. The library raises ``ValueError`` / ``FileNotFoundError`` / ``ConnectionError`` with messages
written for users (they name the file and the fix): those are shown as they are. Anything else is a failure no
message was written for: it is shown with its type, and the hint that ``KVDATA_DEBUG=1`` shows the traceback.
"""
from __future__ import annotations

__all__ = ["one_line", "unreadable_parquet"]

_WRITTEN_FOR_USERS = (ValueError, FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError,
                      ConnectionError, TimeoutError)
_MAX = 400


def one_line(e: BaseException) -> str:
    """``e`` as one line for a user (see the module docstring)."""
    text = " ".join(str(e).split())
    if isinstance(e, OSError) and e.filename and e.strerror:          # open() and friends: name the file
        text = f"{e.filename}: {e.strerror}"
    if _is_network_error(e):
        return _clip(f"no network: {text or type(e).__name__} (check the connection, or work from a local folder)")
    if isinstance(e, _WRITTEN_FOR_USERS) and text:
        return _clip(text)
    if isinstance(e, KeyError):
        text = f"missing field {text}"
    return _clip(f"{type(e).__name__}: {text or 'no message'} (KVDATA_DEBUG=1 shows the traceback)")


def unreadable_parquet(path, error: BaseException, kind: type = ValueError, fix: str = "") -> Exception:
    """The one message for a file that is not readable parquet (a truncated download, a disk error): its path, the
    first line of pyarrow's reason, and the fix where there is one. ``kind``: the exception class to return."""
    reason = (str(error).splitlines() or [type(error).__name__])[0][:100]
    return kind(f"{path} is not a readable parquet file ({reason})" + (f"; {fix}" if fix else ""))


def _is_network_error(e: BaseException) -> bool:
    """httpx's (huggingface_hub 2 ships it as httpx2) and requests' connection errors, whichever the Hub client
    uses (none is imported here)."""
    names = {c.__name__ for c in type(e).__mro__}
    modules = {c.__module__.split(".")[0] for c in type(e).__mro__}
    return bool(names & {"ConnectError", "ConnectTimeout", "ConnectionError", "NetworkError"}) \
        and bool(modules & {"httpx", "httpx2", "httpcore", "requests", "urllib3"})


def _clip(text: str) -> str:
    return text if len(text) <= _MAX else text[:_MAX - 1] + "…"
