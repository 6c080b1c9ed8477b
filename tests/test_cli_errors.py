"""Every failure ends in one line (kvdata/cli/__init__.py, kvdata/errors.py); KVDATA_DEBUG=1 shows the traceback.

The real group class runs a command that fails the way library code does; the bad-input suite
(tests/test_bad_inputs.py) drives the real commands with realistic mistakes."""
from __future__ import annotations

import click
from click.testing import CliRunner

from kvdata.cli import _Main
from kvdata.errors import one_line


def _group(exc: BaseException) -> click.Group:
    @click.group(cls=_Main)
    def g():
        pass

    @g.command()
    def boom():
        raise exc

    return g


def test_an_unexpected_exception_is_one_line_and_exit_1(monkeypatch):
    monkeypatch.delenv("KVDATA_DEBUG", raising=False)
    r = CliRunner().invoke(_group(KeyError("status")), ["boom"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert lines == ["Error: KeyError: missing field 'status' (KVDATA_DEBUG=1 shows the traceback)"]


def test_kvdata_debug_lets_the_traceback_through(monkeypatch):
    monkeypatch.setenv("KVDATA_DEBUG", "1")
    r = CliRunner().invoke(_group(KeyError("status")), ["boom"])
    assert isinstance(r.exception, KeyError)


def test_messages_written_for_users_are_shown_as_they_are_on_one_line():
    assert one_line(ValueError("rows.jsonl: line 3\nis not JSON")) == "rows.jsonl: line 3 is not JSON"
    missing = FileNotFoundError(2, "No such file or directory", "data/x.parquet")
    assert one_line(missing) == "data/x.parquet: No such file or directory"
    assert len(one_line(ValueError("x" * 5000))) <= 400


def test_a_network_error_of_the_hub_client_says_so():
    import importlib
    import importlib.util

    import huggingface_hub  # noqa: F401  (its HTTP client: httpx, or httpx2 from huggingface_hub 2)

    client = next(m for m in ("httpx2", "httpx") if importlib.util.find_spec(m))
    connect_error = importlib.import_module(client).ConnectError
    assert one_line(connect_error("[Errno 111] Connection refused")).startswith("no network: ")
    assert not one_line(RuntimeError("Connection refused")).startswith("no network: ")
