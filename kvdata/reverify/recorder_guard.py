"""The op recorder's blind spots, closed from the candidate's side: no looking at it, no switching it off, no
work moved where it cannot see.

Runs inside the sample's process. The op recorder (``defences.torch_op_recorder``) is a ``TorchDispatchMode``:
it sits on torch's Python dispatch-mode stack of the calling thread, and it sees aten ops only. The public
catalogs step around it every way that allows:

* a forward that asks ``_get_current_dispatch_mode_stack()`` whether it is watched, and runs honest Triton only
  then;
* a ``torch.mm`` inside ``torch._C._DisableTorchDispatch()``, ``_disable_current_modes()`` or an
  ``_ExcludeDispatchKeyGuard`` on the Python key;
* the matmul done by NumPy on ``tensor.numpy()``, in a thread of its own (the mode is per thread), or in a helper
  process fed through a pipe, with a Triton kernel adding the bias.

:func:`install` replaces each of those entry points, before the candidate is imported, by a wrapper that notes
its name and then does what the original does. A name is noted only when the call comes from the candidate's own
code: walking up the callers, a frame in the candidate's folder comes before one of torch, Triton or kvdata. So
Triton's interpreter may call ``numpy()`` and its compiler may start ``ptxas``, while a candidate's
``subprocess.run`` or ``ThreadPoolExecutor`` is noted through the standard library's frames. A noted name is ``recorder_evaded``
(``checks.check_recorder``): the sample fails. Like the clocks, this reaches what a candidate calls through
Python; a C extension of its own that flips the dispatch keys or starts threads is below it.
"""
from __future__ import annotations

import os
import sys

from kvdata.reverify.clocks import resolve

__all__ = ["ENTRY_POINTS", "install", "noted"]

# (module, attribute): every public-ish way to look at, leave, or switch off the dispatch-mode stack
ENTRY_POINTS = (
    ("torch._C", "_DisableTorchDispatch"), ("torch._C", "_ExcludeDispatchKeyGuard"),
    ("torch._C", "_DisablePythonDispatcher"), ("torch._C", "_len_torch_dispatch_stack"),
    ("torch._C", "_pop_torch_dispatch_stack"), ("torch._C", "_get_dispatch_stack_at"),
    ("torch._C", "_unset_dispatch_mode"), ("torch._C", "_get_dispatch_mode"),
    ("torch._C", "_dispatch_tls_set_dispatch_key_excluded"), ("torch._C", "_dispatch_tls_local_exclude_set"),
    ("torch.utils._python_dispatch", "_disable_current_modes"),
    ("torch.utils._python_dispatch", "_get_current_dispatch_mode_stack"),
    ("torch.utils._python_dispatch", "_get_current_dispatch_mode"),
    ("torch.utils._python_dispatch", "_pop_mode_temporarily"), ("torch.utils._python_dispatch", "_pop_mode"),
    ("torch.utils._python_dispatch", "is_in_torch_dispatch_mode"),
    # work moved out of the recorder's sight: host arrays, threads, processes
    ("torch.Tensor", "numpy"), ("torch.Tensor", "__array__"),
    ("threading.Thread", "start"), ("_thread", "start_new_thread"), ("_thread", "start_joinable_thread"),
    ("os", "fork"), ("os", "forkpty"), ("os", "posix_spawn"), ("os", "posix_spawnp"), ("os", "system"),
    ("subprocess.Popen", "__init__"),
)

_NOTED: list[str] = []
_TRUSTED: tuple[str, ...] = ()
_CANDIDATE = "\0"                # the candidate's folder (install); no path starts with NUL


def _trusted_roots() -> tuple[str, ...]:
    import importlib

    roots = []
    for name in ("torch", "triton", "kvdata"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        roots.append(os.path.dirname(os.path.abspath(mod.__file__)) + os.sep)
    return tuple(roots)


def _from_candidate() -> bool:
    """Whether the call into the wrapper comes from the candidate's code: walking up from the caller, a frame in the
    candidate's folder comes before any frame of torch, Triton or kvdata (other libraries' and the standard
    library's frames are walked through: NumPy called by Triton's interpreter is Triton's, ``subprocess.run``
    called by the candidate is the candidate's)."""
    frame = sys._getframe(2)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if filename.startswith(_CANDIDATE):
            return True
        if filename.startswith(_TRUSTED):
            return False
        frame = frame.f_back
    return False


def _wrap(qualified: str, original):
    def guarded(*args, **kwargs):
        if qualified not in _NOTED and _from_candidate():
            _NOTED.append(qualified)
        return original(*args, **kwargs)

    guarded.__name__ = getattr(original, "__name__", qualified.rsplit(".", 1)[-1])
    guarded.__doc__ = getattr(original, "__doc__", None)
    guarded.__wrapped__ = original
    guarded._kvdata_guarded = True
    return guarded


def install(candidate_dir) -> None:
    """Wrap every entry point (idempotent), noting calls from code under ``candidate_dir`` (the job's folder,
    where the candidate's source is written). Call before any candidate code is imported."""
    global _TRUSTED, _CANDIDATE
    _TRUSTED = _trusted_roots()
    _CANDIDATE = os.path.abspath(str(candidate_dir)) + os.sep
    _NOTED.clear()
    for owner_name, attr in ENTRY_POINTS:
        owner = resolve(owner_name)
        original = getattr(owner, attr, None) if owner is not None else None
        if original is None or getattr(original, "_kvdata_guarded", False):
            continue
        setattr(owner, attr, _wrap(f"{owner_name}.{attr}", original))


def noted() -> list[str]:
    """The entry points the candidate's code has called so far."""
    return list(_NOTED)
