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
