"""The in-sandbox half of a batch worker: the loop both audit workers run (:mod:`._trace_worker`,
:mod:`._probe_worker`); the parent half is :class:`kvdata.sandbox_batch.BatchWorker`.

Like the workers it serves, it imports nothing from kvdata (they run with ``python -I``): they
load it by path (:func:`load_by_path`). Items arrive one JSON line at a time on stdin; one answer
line per item, each item under its own alarm, so a hang costs only that item; the parent's
watchdog covers a worker that disarms it.
"""
from __future__ import annotations

import importlib.util
import json
import os
import signal
import sys
from typing import Callable


class ItemTimeout(BaseException):
    """Raised by the per-item alarm; a BaseException so ``except Exception`` in the code under
    test does not swallow it."""


def _on_alarm(signum, frame):
    signal.setitimer(signal.ITIMER_REAL, 1.0)   # keep firing if the code swallows it anyway
    raise ItemTimeout()


def load_by_path(name: str, path: str):
    """Import the file at ``path`` as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def protocol_channel():
    """A private copy of stdout for answer lines; fd 1 then points at stderr for whatever the code prints."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto


def input_channel():
    """A private copy of stdin for the items; fd 0 then reads /dev/null, so the code under test reads nothing of
    the items that follow its own."""
    inputs = os.fdopen(os.dup(0), "r", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")
    return inputs


def serve(timeout_s: float, proto, answer: Callable[[int, dict], str],
          failed: Callable[[int, dict, BaseException], str]) -> int:
    """Answer every item that arrives on stdin (one JSON line each, until it closes) on ``proto``, one line
    each, in order: the parent hands over the next item once this one is answered.

    ``answer(i, item)`` runs under a ``timeout_s`` alarm and returns the item's line; when it
    raises (``ItemTimeout`` included), ``failed(i, item, error)`` returns the line instead.
    """
    signal.signal(signal.SIGALRM, _on_alarm)
    inputs = input_channel()
    for i, raw in enumerate(iter(inputs.readline, "")):
        if not raw.strip():
            continue
        item = json.loads(raw)
        try:
            signal.setitimer(signal.ITIMER_REAL, timeout_s)
            line = answer(i, item)
        except BaseException as err:  # noqa: BLE001 - SystemExit from the code under test is this item's failure
            line = failed(i, item, err)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        proto.write(line + "\n")
        proto.flush()
    return 0
