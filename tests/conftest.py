"""Shared test fixtures: paths to the bundled sample and to ../shared/data."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("KVDATA_SHARED_DATA", REPO.parent / "shared" / "data"))
SAMPLE = REPO / "builders" / "sample"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def sample_dir() -> Path:
    return SAMPLE


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    """The bundled sample built once per session through the real CLI (`kvdata build --sample`). Read-only: a test
    that changes a corpus copies it first."""
    from click.testing import CliRunner

    from kvdata.cli import main

    out = tmp_path_factory.mktemp("built") / "sample"
    res = CliRunner().invoke(main, ["build", "--sample", "--out", str(out), "--quiet", "--workers", "0"])
    assert res.exit_code == 0, res.output[-3000:]
    return out
